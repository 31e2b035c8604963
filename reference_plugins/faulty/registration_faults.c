/* Faults in registration: what SE_InitPlugin fills and returns. */
#include <stddef.h>

#include "fault_hooks.h"

void PlantRegistrationFault(SE_PlatformRegistrationParams* params, TF_Status* status) {
  (void)status;
#if defined(FAULT_INVALID_PLATFORM_NAME)
  params->platform->name = "Faulty-Device"; /* fails [A-Z][A-Z_]* */
#elif defined(FAULT_OVERWRITES_VERSION)
  params->major_version = 1; /* the host's fields, overwritten */
  params->minor_version = 4;
  params->patch_version = 2;
#endif
  (void)params;
}

void PlantStreamExecutorFault(SP_StreamExecutor* stream_executor) {
#if defined(FAULT_NO_HOST_CALLBACK)
  stream_executor->host_callback = NULL; /* required by every TensorFlow */
#endif
  (void)stream_executor;
}
