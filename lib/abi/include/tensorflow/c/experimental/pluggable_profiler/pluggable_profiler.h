/* TensorFlow's profiler C API (PluggableDevice profilers).
 *
 * The plugin defines TF_InitProfiler, which fills a TP_Profiler (its device
 * type), a TP_ProfilerFns (start, stop, collect_data_xspace) and two destroy
 * callbacks. The host declares no functions here. TensorFlow keeps copies of
 * both structs and calls the destroy callbacks on those copies, possibly more
 * than once.
 *
 * collect_data_xspace is called twice per session: first with a NULL buffer,
 * when the plugin stores the size it needs in *size_in_bytes, then with a
 * buffer of that size to fill with a serialized XSpace. */
#ifndef TENSORFLOW_C_EXPERIMENTAL_PLUGGABLE_PROFILER_PLUGGABLE_PROFILER_H_
#define TENSORFLOW_C_EXPERIMENTAL_PLUGGABLE_PROFILER_PLUGGABLE_PROFILER_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/tf_status.h"

#define TP_MAJOR 0
#define TP_MINOR 0
#define TP_PATCH 1

#ifdef __cplusplus
extern "C" {
#endif

/* device_type must match [A-Z][A-Z_]*. (Early versions named it `type`, at the
 * same offset.) */
typedef struct TP_Profiler {
  size_t struct_size;
  void* ext;
  const char* device_type;
} TP_Profiler;

#define TP_PROFILER_STRUCT_SIZE TF_OFFSET_OF_END(TP_Profiler, device_type)

typedef struct TP_ProfilerFns {
  size_t struct_size;
  void* ext;
  void (*start)(const TP_Profiler* profiler, TF_Status* status);
  void (*stop)(const TP_Profiler* profiler, TF_Status* status);
  void (*collect_data_xspace)(const TP_Profiler* profiler, uint8_t* buffer, size_t* size_in_bytes,
                              TF_Status* status);
} TP_ProfilerFns;

#define TP_PROFILER_FNS_STRUCT_SIZE TF_OFFSET_OF_END(TP_ProfilerFns, collect_data_xspace)

typedef struct TF_ProfilerRegistrationParams {
  size_t struct_size;
  void* ext;
  int32_t major_version;
  int32_t minor_version;
  int32_t patch_version;
  TP_Profiler* profiler;
  TP_ProfilerFns* profiler_fns;
  void (*destroy_profiler)(TP_Profiler* profiler);
  void (*destroy_profiler_fns)(TP_ProfilerFns* profiler_fns);
} TF_ProfilerRegistrationParams;

#define TF_PROFILER_REGISTRATION_PARAMS_STRUCT_SIZE \
  TF_OFFSET_OF_END(TF_ProfilerRegistrationParams, destroy_profiler_fns)

/* Defined by the plugin; the host calls it once after loading the plugin. */
void TF_InitProfiler(TF_ProfilerRegistrationParams* params, TF_Status* status);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* TENSORFLOW_C_EXPERIMENTAL_PLUGGABLE_PROFILER_PLUGGABLE_PROFILER_H_ */
