/* TensorFlow's experimental kernel C API: resource and reference variables,
 * temporary variables, and the variant ops AddN and ZerosLike.
 *
 * Not part of the documented PluggableDevice interface, but DirectML, ITEX
 * and Vulten call it, so a host that loads them must define it. copyFunc and
 * the other callbacks are the plugin's: the host calls them to copy or update
 * tensors on the device. */
#ifndef TENSORFLOW_C_KERNELS_EXPERIMENTAL_H_
#define TENSORFLOW_C_KERNELS_EXPERIMENTAL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TF_VariableInputLockHolder TF_VariableInputLockHolder;

TF_CAPI_EXPORT extern void TF_AssignVariable(TF_OpKernelContext* ctx, int input_index,
                                             int value_index, bool validate_shape,
                                             void (*copyFunc)(TF_OpKernelContext* ctx,
                                                              TF_Tensor* source, TF_Tensor* dest),
                                             TF_Status* status);

TF_CAPI_EXPORT extern void TF_AssignRefVariable(
    TF_OpKernelContext* ctx, int input_ref_index, int output_ref_index, int value_index,
    bool use_locking, bool validate_shape,
    void (*copyFunc)(TF_OpKernelContext* ctx, TF_Tensor* source, TF_Tensor* dest),
    TF_Status* status);

TF_CAPI_EXPORT extern void TF_AssignUpdateVariable(
    TF_OpKernelContext* ctx, int input_index, int value_index, int Op, int isVariantType,
    void (*copyFunc)(TF_OpKernelContext* ctx, TF_Tensor* source, TF_Tensor* dest),
    void (*updateFunc)(TF_OpKernelContext* ctx, TF_Tensor* tensor, TF_Tensor* value, int Op),
    TF_Status* status);

TF_CAPI_EXPORT extern void TF_TemporaryVariable(
    TF_OpKernelContext* ctx, TF_DataType dtype, const int64_t* dims, int num_dims,
    TF_StringView* var_name,
    void (*plugin_allocator)(TF_OpKernelContext*, TF_Tensor*, TF_DataType, const int64_t*, int,
                             TF_Status*),
    TF_Status* tf_status);

TF_CAPI_EXPORT extern void TF_DestroyTemporaryVariable(TF_OpKernelContext* ctx, const int index,
                                                       TF_StringView* var_name,
                                                       TF_Status* tf_status);

TF_CAPI_EXPORT extern void TF_MaybeLockVariableInputMutexesInOrder(
    TF_OpKernelContext* ctx, bool do_lock, bool sparse, const int* const inputs, size_t len,
    void (*copyFunc)(TF_OpKernelContext* ctx, TF_Tensor* source, TF_Tensor* dest),
    TF_VariableInputLockHolder** lockHolder, TF_Status* status);

TF_CAPI_EXPORT extern void TF_GetInputTensorFromVariable(
    TF_OpKernelContext* ctx, int input, bool lock_held, bool isVariantType, bool sparse,
    void (*copyFunc)(TF_OpKernelContext* ctx, TF_Tensor* source, TF_Tensor* dest), TF_Tensor** out,
    TF_Status* status);

TF_CAPI_EXPORT extern void TF_OpKernelContext_ForwardRefInputToRefOutput(TF_OpKernelContext* ctx,
                                                                         int32_t input_index,
                                                                         int32_t output_index);

TF_CAPI_EXPORT extern void TF_ReleaseVariableInputLockHolder(
    TF_VariableInputLockHolder* lockHolder);

TF_CAPI_EXPORT extern void TF_GetInputByName(TF_OpKernelContext* ctx, const char* inputName,
                                             TF_Tensor** tensor, TF_Status* status);

TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrTensorShape(TF_OpKernelConstruction* ctx,
                                                                      const char* attr_name,
                                                                      int64_t* dims,
                                                                      size_t num_dims,
                                                                      TF_Status* status);

TF_CAPI_EXPORT extern bool TF_IsRefInput(TF_OpKernelContext* ctx, int i, TF_Status* status);

TF_CAPI_EXPORT extern void TF_AddNVariant(TF_OpKernelContext* ctx,
                                          void (*binary_add_func)(TF_OpKernelContext* ctx,
                                                                  TF_Tensor* a, TF_Tensor* b,
                                                                  TF_Tensor* out),
                                          TF_Status* status);

TF_CAPI_EXPORT extern void TF_ZerosLikeVariant(TF_OpKernelContext* ctx,
                                               void (*zeros_like_func)(TF_OpKernelContext* ctx,
                                                                       TF_Tensor* input,
                                                                       TF_Tensor* out),
                                               TF_Status* status);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* TENSORFLOW_C_KERNELS_EXPERIMENTAL_H_ */
