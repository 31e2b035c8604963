/* The status object a plugin reports errors through.
 *
 * The functions are implemented by the host (TensorFlow, or sectl's embedded
 * runtime) and resolved by the plugin at load time. The codes have the same
 * values as TensorFlow's error_codes.proto. */
#ifndef TENSORFLOW_C_TF_STATUS_H_
#define TENSORFLOW_C_TF_STATUS_H_

#include "tensorflow/c/c_api_macros.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TF_Status TF_Status;

typedef enum TF_Code {
  TF_OK = 0,
  TF_CANCELLED = 1,
  TF_UNKNOWN = 2,
  TF_INVALID_ARGUMENT = 3,
  TF_DEADLINE_EXCEEDED = 4,
  TF_NOT_FOUND = 5,
  TF_ALREADY_EXISTS = 6,
  TF_PERMISSION_DENIED = 7,
  TF_UNAUTHENTICATED = 16,
  TF_RESOURCE_EXHAUSTED = 8,
  TF_FAILED_PRECONDITION = 9,
  TF_ABORTED = 10,
  TF_OUT_OF_RANGE = 11,
  TF_UNIMPLEMENTED = 12,
  TF_INTERNAL = 13,
  TF_UNAVAILABLE = 14,
  TF_DATA_LOSS = 15,
} TF_Code;

/* A new status is OK with an empty message. */
TF_CAPI_EXPORT extern TF_Status* TF_NewStatus(void);

TF_CAPI_EXPORT extern void TF_DeleteStatus(TF_Status* s);

/* Sets code and message. With TF_OK the message is dropped. */
TF_CAPI_EXPORT extern void TF_SetStatus(TF_Status* s, TF_Code code, const char* msg);

/* Attaches a key/value payload; ignored while the status is OK. */
TF_CAPI_EXPORT extern void TF_SetPayload(TF_Status* s, const char* key, const char* value);

typedef void (*TF_PayloadVisitor)(const char* key, const char* value, void* capture);

/* Calls visitor once per payload (newer TensorFlow releases only). */
TF_CAPI_EXPORT extern void TF_ForEachPayload(const TF_Status* s, TF_PayloadVisitor visitor,
                                             void* capture);

/* Sets the status from an errno value, with context in the message. */
TF_CAPI_EXPORT extern void TF_SetStatusFromIOError(TF_Status* s, int error_code,
                                                   const char* context);

TF_CAPI_EXPORT extern TF_Code TF_GetCode(const TF_Status* s);

/* The message; the empty string when OK. Valid until the status next changes. */
TF_CAPI_EXPORT extern const char* TF_Message(const TF_Status* s);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* TENSORFLOW_C_TF_STATUS_H_ */
