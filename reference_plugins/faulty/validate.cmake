# Plugin faults that only the validation layer (libsectl_validate.so) sees
# online, and that no other faulty plugin already seeds. Each makes exactly
# one of the layer's plugin-side findings fire (tests/validate_layer_test.cc).
sectl_add_faulty_plugin(EVENT_STATUS_OUT_OF_RANGE validate_faults.c BASE cpu)
sectl_add_faulty_plugin(CREATE_EVENT_ERROR_WITH_HANDLE validate_faults.c BASE cpu)
sectl_add_faulty_plugin(NESTED_ALLOCATION validate_faults.c BASE cpu)
# How a process ends while registering: the layer's report must say so.
sectl_add_faulty_plugin(INIT_FAILS validate_faults.c BASE cpu)
sectl_add_faulty_plugin(INIT_CRASHES validate_faults.c BASE cpu)
sectl_add_faulty_plugin(CONSTRUCTOR_CRASHES validate_faults.c BASE cpu)
# Fills the 264-byte SP_StreamExecutor of TensorFlow 2.5-2.6 whatever the
# host: a newer host finds host_callback null (and the plugin's host_callback
# in its mem_zero).
sectl_add_faulty_plugin(OLD_STREAM_EXECUTOR_LAYOUT validate_faults.c BASE cpu)
