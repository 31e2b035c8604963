# Faults in devices and their lifecycle (checks/device_checks.cc,
# checks/lifecycle_checks.cc).
sectl_add_faulty_plugin(UNSTABLE_DEVICE_COUNT device_faults.c)
# Ordinal 0 is what the host pre-fills: only a second device shows the fault.
sectl_add_faulty_plugin(ORDINAL_NOT_SET device_faults.c BASE cpu)
sectl_add_faulty_plugin(OUT_OF_RANGE_SUCCEEDS device_faults.c)
# Needs two devices alive at once, as TensorFlow keeps them.
sectl_add_faulty_plugin(SHARED_CONTEXT_TEARDOWN device_faults.c BASE cpu)
sectl_add_faulty_plugin(DEVICE_TABLE_EXHAUSTED device_faults.c)
sectl_add_faulty_plugin(LEAKS_STREAM_THREADS device_faults.c)
sectl_add_faulty_plugin(LEAKS_MEMORY_PER_STREAM device_faults.c)
sectl_add_faulty_plugin(LEAKS_DEVICE_MEMORY_PER_EVENT device_faults.c)
# destroy_device that never releases what create_device took: 1 MiB of
# resident memory, or a thread, per device.
sectl_add_faulty_plugin(DEVICE_DESTROY_LEAKS_MEMORY device_faults.c)
sectl_add_faulty_plugin(DEVICE_DESTROY_LEAKS_THREAD device_faults.c)
# A C++ create_device that throws for an ordinal beyond the count instead of
# setting an error status: an exception across the C API, not a refusal.
sectl_add_faulty_plugin(THROWS_FROM_CREATE_DEVICE device_exception_faults.cc)
