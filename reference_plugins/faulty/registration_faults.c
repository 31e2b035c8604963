/* Faults in registration (checks/registration_checks.cc) and in the members
 * a TensorFlow generation requires (checks/compat_checks.cc). */
#include <stddef.h>
#include <stdint.h>

#include "fault_hooks.h"

#if defined(FAULT_ACCEPTS_ANY_MAJOR) || defined(FAULT_STATUS_NOT_SET_ON_REJECT)
/* These faults change what the base's SE_InitPlugin decides, which the two
 * hooks (called once it has succeeded) cannot: registration.cmake links
 * their plugins with --wrap=Base_SE_InitPlugin, so faulty_base.c's call
 * arrives here first. The linker fixes these reserved names. */
/* NOLINTBEGIN(bugprone-reserved-identifier) */
void __real_Base_SE_InitPlugin(SE_PlatformRegistrationParams* params, TF_Status* status);
void __wrap_Base_SE_InitPlugin(SE_PlatformRegistrationParams* params, TF_Status* status);

void __wrap_Base_SE_InitPlugin(SE_PlatformRegistrationParams* params, TF_Status* status) {
#if defined(FAULT_ACCEPTS_ANY_MAJOR)
  /* The base's version check never sees the host's major version. */
  const int32_t offered = params->major_version;
  params->major_version = SE_MAJOR;
  __real_Base_SE_InitPlugin(params, status);
  params->major_version = offered;
#else
  /* The base refuses another major version; the refusal's status is lost,
   * as when a plugin returns early without setting it. */
  __real_Base_SE_InitPlugin(params, status);
  if (TF_GetCode(status) != TF_OK) TF_SetStatus(status, TF_OK, "");
#endif
}
/* NOLINTEND(bugprone-reserved-identifier) */
#endif

void PlantRegistrationFault(SE_PlatformRegistrationParams* params, TF_Status* status) {
  (void)status;
#if defined(FAULT_INVALID_PLATFORM_NAME)
  params->platform->name = "Faulty-Device"; /* fails [A-Z][A-Z_]* */
#elif defined(FAULT_OVERWRITES_VERSION)
  params->major_version = 1; /* the host's fields, overwritten */
  params->minor_version = 4;
  params->patch_version = 2;
#elif defined(FAULT_STALE_STATUS_ON_SUCCESS)
  /* A "warning" left in the status of a registration that went ahead. */
  if (params->minor_version != SE_MINOR) {
    TF_SetStatus(status, TF_FAILED_PRECONDITION,
                 "faulty: the host's minor version is not ours; registering anyway");
  }
#elif defined(FAULT_NO_DESTROY_TIMER_FNS)
  /* Validated by TensorFlow up to 2.15; called at teardown by every one. */
  params->platform_fns->destroy_timer_fns = NULL;
#endif
  (void)params;
}

void PlantStreamExecutorFault(SP_StreamExecutor* stream_executor) {
#if defined(FAULT_NO_HOST_CALLBACK)
  stream_executor->host_callback = NULL; /* required by every TensorFlow */
#elif defined(FAULT_NO_SYNC_MEMCPY_DTOD)
  /* Never validated; TensorFlow up to 2.15 calls it without a null check. */
  stream_executor->sync_memcpy_dtod = NULL;
#endif
  (void)stream_executor;
}
