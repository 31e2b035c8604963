# Faults seen only as the plugin's process lives on and exits
# (checks/lifecycle_exit_checks.cc): a late crash in a thread of the
# plugin's, and library destructors or atexit handlers that crash, hang or
# change the exit status.
sectl_add_faulty_plugin(THREAD_CRASHES_LATE exit_faults.cc BASE cpu)
sectl_add_faulty_plugin(DESTRUCTOR_CRASHES exit_faults.cc BASE cpu)
sectl_add_faulty_plugin(DESTRUCTOR_HANGS exit_faults.cc BASE cpu)
sectl_add_faulty_plugin(DESTRUCTOR_CHANGES_EXIT_STATUS exit_faults.cc BASE cpu)
