# Faults in registration (checks/registration_checks.cc) and in the members a
# TensorFlow generation requires (checks/compat_checks.cc).
sectl_add_faulty_plugin(INVALID_PLATFORM_NAME registration_faults.c)
sectl_add_faulty_plugin(OVERWRITES_VERSION registration_faults.c)
sectl_add_faulty_plugin(NO_HOST_CALLBACK registration_faults.c)
sectl_add_faulty_plugin(STALE_STATUS_ON_SUCCESS registration_faults.c)
sectl_add_faulty_plugin(NO_SYNC_MEMCPY_DTOD registration_faults.c BASE cpu)
sectl_add_faulty_plugin(NO_DESTROY_TIMER_FNS registration_faults.c BASE cpu)

# These change the base's own version decision, before the hooks could run:
# the linker routes faulty_base.c's call to Base_SE_InitPlugin through
# __wrap_Base_SE_InitPlugin in registration_faults.c.
sectl_add_faulty_plugin(ACCEPTS_ANY_MAJOR registration_faults.c)
sectl_add_faulty_plugin(STATUS_NOT_SET_ON_REJECT registration_faults.c)
foreach(wrapped faulty_accepts_any_major faulty_status_not_set_on_reject)
  target_link_options(${wrapped} PRIVATE LINKER:--wrap=Base_SE_InitPlugin)
endforeach()
