# Not faults: device queues that behave as real accelerators' do, for the
# bench engine's tests (tests/bench_queue_test.cc). A stream of
# BOUNDED_QUEUE holds at most 256 operations behind a pending host callback,
# as CUDA's queue does.
sectl_add_faulty_plugin(BOUNDED_QUEUE queue_faults.cc BASE cpu)
