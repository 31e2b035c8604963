# Faults in streams, events, host callbacks, timers and concurrency
# (checks/{stream,event,callback,timer,concurrency}_checks.cc). A fault that
# is only visible while work is still pending needs the asynchronous cpu base.
# create_stream aborts: TensorFlow cannot use the plugin at all, and every
# check that needs a stream is blocked by it (issue 25's false pass).
sectl_add_faulty_plugin(CREATE_STREAM_ABORTS stream_faults.cc BASE cpu)
sectl_add_faulty_plugin(STREAM_OUT_OF_ORDER stream_faults.cc BASE cpu)
sectl_add_faulty_plugin(DEPENDENCY_IGNORED stream_faults.cc BASE cpu)
sectl_add_faulty_plugin(WAIT_FOR_EVENT_IGNORED stream_faults.cc BASE cpu)
sectl_add_faulty_plugin(BLOCK_RETURNS_EARLY stream_faults.cc BASE cpu)
sectl_add_faulty_plugin(SYNCHRONIZE_RETURNS_EARLY stream_faults.cc BASE cpu)
# block_host_until_done ignores a stop_timer still on its way: the timer
# checks are blocked by it, not failed.
sectl_add_faulty_plugin(BLOCK_IGNORES_TIMERS stream_faults.cc BASE cpu)
sectl_add_faulty_plugin(STREAM_STATUS_SPURIOUS_ERROR stream_faults.cc)
sectl_add_faulty_plugin(EVENT_COMPLETE_EARLY stream_faults.cc BASE cpu)
sectl_add_faulty_plugin(EVENT_STATUS_UNKNOWN stream_faults.cc BASE cpu)
sectl_add_faulty_plugin(EVENT_RERECORD_KEEPS_COMPLETE stream_faults.cc BASE cpu)
sectl_add_faulty_plugin(BLOCK_FOR_EVENT_RETURNS_EARLY stream_faults.cc BASE cpu)
sectl_add_faulty_plugin(CALLBACK_NOT_ENQUEUED stream_faults.cc)
sectl_add_faulty_plugin(CALLBACK_CALLED_TWICE stream_faults.cc)
sectl_add_faulty_plugin(CALLBACK_NEVER_CALLED stream_faults.cc)
sectl_add_faulty_plugin(CALLBACK_BEFORE_EARLIER_WORK stream_faults.cc BASE cpu)
sectl_add_faulty_plugin(CALLBACK_ERROR_DROPPED stream_faults.cc)
sectl_add_faulty_plugin(TIMER_MEASURES_ENQUEUE stream_faults.cc BASE cpu)
sectl_add_faulty_plugin(TIMER_IN_MICROSECONDS stream_faults.cc BASE cpu)
sectl_add_faulty_plugin(RACY_CONCURRENT_COPIES stream_faults.cc)
# Field-style: host_callback returns TF_OK (false) and never runs the
# callback, alone and hiding an event status that is always UNKNOWN or a timer
# handle create_timer never sets. On the asynchronous base, so that the checks'
# routes without host callbacks meet pending work.
sectl_add_faulty_plugin(HOST_CALLBACK_RETURNS_FALSE stream_faults.cc BASE cpu)
sectl_add_faulty_plugin(EVENT_STATUS_ALWAYS_UNKNOWN stream_faults.cc BASE cpu)
sectl_add_faulty_plugin(TIMER_HANDLE_UNSET stream_faults.cc BASE cpu)
