# Faults in lifecycle (checks/lifecycle_checks.cc): destroys that leak.
sectl_add_faulty_plugin(STREAM_DESTROY_LEAKS lifecycle_faults.c)
sectl_add_faulty_plugin(EVENT_DESTROY_LEAKS lifecycle_faults.c)
