# Faults in registration (checks/registration_checks.cc).
sectl_add_faulty_plugin(INVALID_PLATFORM_NAME registration_faults.c)
sectl_add_faulty_plugin(OVERWRITES_VERSION registration_faults.c)
sectl_add_faulty_plugin(NO_HOST_CALLBACK registration_faults.c)
