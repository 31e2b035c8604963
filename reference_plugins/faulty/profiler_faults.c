/* Faults in a plugin's profiler module (TF_InitProfiler), caught by the
 * profiler.* checks (checks/profiler_checks.cc): the base plugin is
 * correct, and its profiler module registers a profiler for the base's
 * device type, with one fault. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fault_hooks.h"
#include "tensorflow/c/experimental/pluggable_profiler/pluggable_profiler.h"

/* The type the minimal base registers. */
#define BASE_DEVICE_TYPE "SECTL_MINIMAL"

void PlantRegistrationFault(SE_PlatformRegistrationParams* params, TF_Status* status) {
  (void)params;
  (void)status;
}

void PlantStreamExecutorFault(SP_StreamExecutor* stream_executor) { (void)stream_executor; }

static void Start(const TP_Profiler* profiler, TF_Status* status) {
  (void)profiler;
  TF_SetStatus(status, TF_OK, "");
}

static void Stop(const TP_Profiler* profiler, TF_Status* status) {
  (void)profiler;
  TF_SetStatus(status, TF_OK, "");
}

/* The trace: an XSpace holding one empty XPlane (field 1, length 0). */
static const uint8_t kTrace[] = {0x0a, 0x00};

static void Collect(const TP_Profiler* profiler, uint8_t* buffer, size_t* size_in_bytes,
                    TF_Status* status) {
  (void)profiler;
  TF_SetStatus(status, TF_OK, "");
  if (buffer == NULL) {
#if !defined(FAULT_PROFILER_SIZE_NOT_SET)
    *size_in_bytes = sizeof(kTrace);
#endif
    return;
  }
#if defined(FAULT_PROFILER_COLLECT_OVERRUNS)
  /* Serialised again for the fill, after more events arrived. */
  memset(buffer, 0, *size_in_bytes + 64);
#endif
  memcpy(buffer, kTrace, sizeof(kTrace));
  *size_in_bytes = sizeof(kTrace);
}

static void DestroyProfiler(TP_Profiler* profiler) { (void)profiler; }
static void DestroyProfilerFns(TP_ProfilerFns* profiler_fns) { (void)profiler_fns; }

void TF_InitProfiler(TF_ProfilerRegistrationParams* params, TF_Status* status);

__attribute__((visibility("default"))) void TF_InitProfiler(TF_ProfilerRegistrationParams* params,
                                                            TF_Status* status) {
  params->profiler->device_type = BASE_DEVICE_TYPE;
  params->profiler_fns->start = Start;
  params->profiler_fns->stop = Stop;
  params->profiler_fns->collect_data_xspace = Collect;
  params->destroy_profiler = DestroyProfiler;
  params->destroy_profiler_fns = DestroyProfilerFns;
  TF_SetStatus(status, TF_OK, "");
#if defined(FAULT_PROFILER_WITHOUT_DESTROY)
  /* Nothing to free, so no destroy function: TensorFlow requires both. */
  params->destroy_profiler = NULL;
#elif defined(FAULT_PROFILER_DEVICE_TYPE_INVALID)
  /* The community tutorial's spelling. */
  params->profiler->device_type = "MyDevice";
#elif defined(FAULT_PROFILER_INIT_FAILS)
  TF_SetStatus(status, TF_UNAVAILABLE, "profiler module: tracing library not found");
#elif defined(FAULT_PROFILER_FOR_ANOTHER_DEVICE)
  params->profiler->device_type = "MY_DEVICE";
#endif
}
