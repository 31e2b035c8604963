# Faults in performance, for `sectl bench --compare` (tool/bench_command.cc):
# a correct plugin that has become slower. The base is the minimal plugin,
# whose copies run at enqueue time, inside the interval bench times; compare
# with a baseline of sectl_minimal.so.
sectl_add_faulty_plugin(COPIES_25_PERCENT_SLOWER bench_faults.c)
