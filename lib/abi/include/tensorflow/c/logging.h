/* TensorFlow's logging C API: printf-style messages a plugin writes to its
 * host's log. TF_Log takes a severity; TF_VLog and TF_DVLog take a verbosity
 * level (TF_DVLog only in debug builds of TensorFlow). In TensorFlow a
 * TF_FATAL message ends the process. */
#ifndef TENSORFLOW_C_LOGGING_H_
#define TENSORFLOW_C_LOGGING_H_

#include "tensorflow/c/c_api_macros.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum TF_LogLevel {
  TF_INFO = 0,
  TF_WARNING = 1,
  TF_ERROR = 2,
  TF_FATAL = 3,
} TF_LogLevel;

TF_CAPI_EXPORT extern void TF_Log(TF_LogLevel level, const char* fmt, ...);
TF_CAPI_EXPORT extern void TF_VLog(int level, const char* fmt, ...);
TF_CAPI_EXPORT extern void TF_DVLog(int level, const char* fmt, ...);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* TENSORFLOW_C_LOGGING_H_ */
