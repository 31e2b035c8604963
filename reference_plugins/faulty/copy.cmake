# Faults in copies and fills (checks/memcpy_checks.cc).
sectl_add_faulty_plugin(CORRUPT_DTOH copy_faults.c)
