/* The entry point of every faulty plugin: the base plugin's, then the fault. */
#include "fault_hooks.h"

static void (*base_create_stream_executor)(const SP_Platform*, SE_CreateStreamExecutorParams*,
                                           TF_Status*);

static void CreateFaultyStreamExecutor(const SP_Platform* platform,
                                       SE_CreateStreamExecutorParams* params, TF_Status* status) {
  base_create_stream_executor(platform, params, status);
  if (TF_GetCode(status) == TF_OK) PlantStreamExecutorFault(params->stream_executor);
}

TF_CAPI_EXPORT void SE_InitPlugin(SE_PlatformRegistrationParams* params, TF_Status* status) {
  Base_SE_InitPlugin(params, status);
  if (TF_GetCode(status) != TF_OK) return;
  base_create_stream_executor = params->platform_fns->create_stream_executor;
  params->platform_fns->create_stream_executor = CreateFaultyStreamExecutor;
  PlantRegistrationFault(params, status);
}
