/* A plugin's profiler module, as the community sample writes one: the
 * platform's device type, the three profiler functions, and destroy
 * functions that have nothing to free. The trace it hands over is the
 * smallest XSpace with a plane in it. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tensorflow/c/experimental/pluggable_profiler/pluggable_profiler.h"

/* The device type field_cxx_whole_struct.cc registers. */
#define FIELD_DEVICE_TYPE "WHOLE_STRUCT"

static void StartTracing(const TP_Profiler* profiler, TF_Status* status) {
  (void)profiler;
  TF_SetStatus(status, TF_OK, "");
}

static void StopTracing(const TP_Profiler* profiler, TF_Status* status) {
  (void)profiler;
  TF_SetStatus(status, TF_OK, "");
}

/* The trace: an XSpace holding one empty XPlane (field 1, length 0). */
static const uint8_t kTrace[] = {0x0a, 0x00};

/* The size first (buffer NULL), then the bytes, as TensorFlow asks. */
static void CollectXSpace(const TP_Profiler* profiler, uint8_t* buffer, size_t* size_in_bytes,
                          TF_Status* status) {
  (void)profiler;
  if (buffer != NULL) memcpy(buffer, kTrace, sizeof(kTrace));
  *size_in_bytes = sizeof(kTrace);
  TF_SetStatus(status, TF_OK, "");
}

static void DestroyProfiler(TP_Profiler* profiler) { (void)profiler; }
static void DestroyProfilerFns(TP_ProfilerFns* profiler_fns) { (void)profiler_fns; }

void TF_InitProfiler(TF_ProfilerRegistrationParams* params, TF_Status* status);

__attribute__((visibility("default"))) void TF_InitProfiler(TF_ProfilerRegistrationParams* params,
                                                            TF_Status* status) {
  params->profiler->device_type = FIELD_DEVICE_TYPE;
  params->profiler_fns->start = StartTracing;
  params->profiler_fns->stop = StopTracing;
  params->profiler_fns->collect_data_xspace = CollectXSpace;
  params->destroy_profiler = DestroyProfiler;
  params->destroy_profiler_fns = DestroyProfilerFns;
  TF_SetStatus(status, TF_OK, "");
}
