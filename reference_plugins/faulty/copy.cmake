# Faults in copies and fills (checks/memcpy_checks.cc, checks/fill_checks.cc).
sectl_add_faulty_plugin(CORRUPT_DTOH copy_faults.c)
sectl_add_faulty_plugin(DTOH_READS_PAST_END copy_faults.c)
sectl_add_faulty_plugin(HTOD_DROPS_LAST_BYTE copy_faults.c)
sectl_add_faulty_plugin(ZERO_SIZE_CRASH copy_faults.c)
sectl_add_faulty_plugin(DTOD_IGNORES_OFFSET copy_faults.c)
sectl_add_faulty_plugin(SYNC_HTOD_TRUNCATES copy_faults.c)
sectl_add_faulty_plugin(SYNC_DTOH_STALE copy_faults.c)
# The minimal plugin has no sync_memcpy_dtod (optional in the newest TensorFlow).
sectl_add_faulty_plugin(SYNC_DTOD_WRONG copy_faults.c BASE cpu)
sectl_add_faulty_plugin(MEM_ZERO_PARTIAL copy_faults.c)
sectl_add_faulty_plugin(MEMSET_WRONG_PATTERN copy_faults.c)
sectl_add_faulty_plugin(MEMSET32_ELEMENT_COUNT copy_faults.c)
# Field-style: a crashing sync_memcpy_htod hiding an interior defect of
# memcpy_htod, and fills that do nothing on a plugin whose callbacks are broken.
sectl_add_faulty_plugin(SYNC_HTOD_CRASH copy_faults.c)
sectl_add_faulty_plugin(MEM_ZERO_NOOP copy_faults.c)
sectl_add_faulty_plugin(MEMSET_NOOP copy_faults.c)
# Both forms of one direction broken, for sectl bench's verification
# (tests/bench_verification_test.cc): which direction is to blame.
sectl_add_faulty_plugin(CORRUPT_EVERY_DTOH copy_faults.c)
sectl_add_faulty_plugin(CORRUPT_EVERY_HTOD copy_faults.c)
