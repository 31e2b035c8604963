/* Faults in struct_size handling (checks/struct_size_checks.cc) and in the
 * layout an older TensorFlow reads (checks/compat_checks.cc). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "fault_hooks.h"

#if defined(FAULT_OVERRUNS_OLDER_HOST) || defined(FAULT_CONFUSED_BY_NEWER_HOST) || \
    defined(FAULT_FILLS_NEW_LAYOUT_ON_OLD_HOST) || defined(FAULT_WRITES_PAST_STREAM_EXECUTOR)
#define FAULT_IN_CREATE_STREAM_EXECUTOR 1

/* The correct create_stream_executor (the base's, as faulty_base.c wraps it). */
static void (*correct_create_stream_executor)(const SP_Platform*, SE_CreateStreamExecutorParams*,
                                              TF_Status*);

static void FaultyCreateStreamExecutor(const SP_Platform* platform,
                                       SE_CreateStreamExecutorParams* params, TF_Status* status) {
  SP_StreamExecutor* host_struct = params->stream_executor;
  const size_t host_size = host_struct->struct_size;
#if defined(FAULT_OVERRUNS_OLDER_HOST)
  /* Takes its own header's size for the host's, and so writes all 288
   * bytes, host_callback last, into a host that has fewer. */
  (void)host_size;
  host_struct->struct_size = SP_STREAMEXECUTOR_STRUCT_SIZE;
  correct_create_stream_executor(platform, params, status);
#elif defined(FAULT_WRITES_PAST_STREAM_EXECUTOR)
  /* Built against a private header with one more member after
   * host_callback, which it sets whatever size the host announced: 8 bytes
   * past the end of every TensorFlow's SP_StreamExecutor. */
  (void)host_size;
  correct_create_stream_executor(platform, params, status);
  void (*extra_member)(void) = (void (*)(void))correct_create_stream_executor;
  memcpy((unsigned char*)host_struct + SP_STREAMEXECUTOR_STRUCT_SIZE, &extra_member,
         sizeof(extra_member));
#elif defined(FAULT_CONFUSED_BY_NEWER_HOST)
  /* Insists on exactly the size it was built with. */
  if (host_size > SP_STREAMEXECUTOR_STRUCT_SIZE) {
    char message[128];
    snprintf(message, sizeof(message),
             "faulty: SP_StreamExecutor.struct_size is %zu, not the %zu bytes this plugin knows",
             host_size, (size_t)SP_STREAMEXECUTOR_STRUCT_SIZE);
    TF_SetStatus(status, TF_FAILED_PRECONDITION, message);
    return;
  }
  correct_create_stream_executor(platform, params, status);
#else /* FAULT_FILLS_NEW_LAYOUT_ON_OLD_HOST */
  if (host_size == 0 || host_size >= SP_STREAMEXECUTOR_STRUCT_SIZE) {
    correct_create_stream_executor(platform, params, status);
    return;
  }
  /* Into a smaller host, it copies whatever of today's layout fits and
   * reports today's size: memory-safe, but mem_zero lands where a 264-byte
   * host reads host_callback. */
  SP_StreamExecutor ours = {SP_STREAMEXECUTOR_STRUCT_SIZE};
  SE_CreateStreamExecutorParams our_params = *params;
  our_params.stream_executor = &ours;
  correct_create_stream_executor(platform, &our_params, status);
  if (TF_GetCode(status) == TF_OK) memcpy(host_struct, &ours, host_size);
#endif
}
#endif

void PlantRegistrationFault(SE_PlatformRegistrationParams* params, TF_Status* status) {
  (void)status;
#if defined(FAULT_ZERO_STRUCT_SIZE)
  params->platform->struct_size = 0; /* as after memset(platform, 0, ...) */
#elif defined(FAULT_SIZEOF_PLATFORM)
  params->platform->struct_size = sizeof(SP_Platform); /* 40, not 35 */
#elif defined(FAULT_IN_CREATE_STREAM_EXECUTOR)
  correct_create_stream_executor = params->platform_fns->create_stream_executor;
  params->platform_fns->create_stream_executor = FaultyCreateStreamExecutor;
#endif
  (void)params;
}

void PlantStreamExecutorFault(SP_StreamExecutor* stream_executor) { (void)stream_executor; }
