# Faults for the runner's root-cause attribution (tests/root_cause_test.cc):
# broken basics that checks only use, so they must be blocked, not failed.
sectl_add_faulty_plugin(ROOT_SYNC_HTOD_CRASH root_cause_faults.cc)
sectl_add_faulty_plugin(ROOT_USAGE_FALSE root_cause_faults.cc)
sectl_add_faulty_plugin(ROOT_USAGE_THROWS root_cause_faults.cc)
