/* The few functions of TensorFlow's c_api.h, c_api_experimental.h and
 * tf_shape.h that PluggableDevice plugins call (Intel's ITEX calls the c_api
 * ones), with TensorFlow's names and signatures.
 *
 * This header is sectl's own and has no TensorFlow counterpart: c_api.h
 * declares hundreds of session and graph functions that no plugin needs, so
 * sectl reproduces only these. Plugin source that includes c_api.h itself
 * compiles against TensorFlow's header, not this one; the exported symbols
 * are the same. */
#ifndef TENSORFLOW_C_C_API_FOR_PLUGINS_H_
#define TENSORFLOW_C_C_API_FOR_PLUGINS_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/tf_buffer.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* From c_api.h. */

/* A string the callee owns; not NUL-terminated. 16 bytes on LP64. */
typedef struct TF_StringView {
  const char* data;
  size_t len;
} TF_StringView;

/* The host's TensorFlow version, "major.minor.patch" with an optional
 * suffix. */
TF_CAPI_EXPORT extern const char* TF_Version(void);

/* Parses a serialized TensorProto into `to`. */
TF_CAPI_EXPORT extern void TF_TensorFromProto(const TF_Buffer* from, TF_Tensor* to,
                                              TF_Status* status);

/* A serialized OpList of every op registered in the process. The caller owns
 * the buffer (TF_DeleteBuffer). */
TF_CAPI_EXPORT extern TF_Buffer* TF_GetAllOpList(void);

/* A serialized KernelList of the kernels registered for op `name`. The caller
 * owns the buffer. */
TF_CAPI_EXPORT extern TF_Buffer* TF_GetRegisteredKernelsForOp(const char* name, TF_Status* status);

/* From c_api_experimental.h. */

/* 1 if the op is stateful, else 0; meaningless unless status is OK. */
TF_CAPI_EXPORT extern int TF_OpIsStateful(const char* op_type, TF_Status* status);

/* Nonzero when XLA auto-clustering is switched on for the process. */
TF_CAPI_EXPORT extern unsigned char TF_GetXlaAutoJitEnabled(void);

#ifdef __cplusplus
} /* end extern "C" */
#endif

/* All of tf_shape.h, under its own include guard, so that TensorFlow's
 * tf_shape.h and this part never both apply. */
#ifndef TENSORFLOW_C_TF_SHAPE_H_
#define TENSORFLOW_C_TF_SHAPE_H_

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TF_Shape TF_Shape;

TF_CAPI_EXPORT extern TF_Shape* TF_NewShape(void);

/* The rank, or -1 when it is unknown. */
TF_CAPI_EXPORT extern int TF_ShapeDims(const TF_Shape* shape);

/* The size of dimension d, or -1 when it is unknown. */
TF_CAPI_EXPORT extern int64_t TF_ShapeDimSize(const TF_Shape* shape, int d);

TF_CAPI_EXPORT extern void TF_DeleteShape(TF_Shape* shape);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* TENSORFLOW_C_TF_SHAPE_H_ */

#endif /* TENSORFLOW_C_C_API_FOR_PLUGINS_H_ */
