# Faults in lifecycle (checks/lifecycle_checks.cc): destroys that leak.
sectl_add_faulty_plugin(STREAM_DESTROY_LEAKS lifecycle_faults.c)
sectl_add_faulty_plugin(EVENT_DESTROY_LEAKS lifecycle_faults.c)
# Both leak: each is judged and blamed on its own destroy function.
sectl_add_faulty_plugin(STREAM_AND_EVENT_DESTROY_LEAK lifecycle_faults.c)
