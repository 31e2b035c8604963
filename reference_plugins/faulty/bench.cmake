# Faults in performance, for `sectl bench --compare` (tool/bench_command.cc):
# a correct plugin that has become slower. The base is the minimal plugin,
# whose copies run at enqueue time, inside the interval bench times; compare
# with a baseline of sectl_minimal.so.
sectl_add_faulty_plugin(COPIES_25_PERCENT_SLOWER bench_faults.c)
# Not a fault: a run disturbed once (slower in the first process only), which
# the gate's re-measurement must clear (tests/bench_cli_test.cc).
sectl_add_faulty_plugin(COPIES_SLOWER_IN_FIRST_PROCESS bench_faults.c)
# Completion that cannot be believed (bench_faults.c), on the asynchronous
# cpu base: bench and conform's throughput must say "not measurable", never
# print a bandwidth (tests/bench_not_measurable_test.cc).
sectl_add_faulty_plugin(CALLBACK_ACCEPTED_NEVER_RUN bench_faults.c BASE cpu)
sectl_add_faulty_plugin(BLOCK_RETURNS_AT_ONCE bench_faults.c BASE cpu)
sectl_add_faulty_plugin(EVENT_NEVER_COMPLETES bench_faults.c BASE cpu)
# Stalls in every step, each shorter than --timeout: bench's one deadline
# for the whole run must stop it after two slow steps and say why
# (tests/bench_cli_test.cc).
sectl_add_faulty_plugin(STALLS_IN_EVERY_STEP bench_faults.c)
