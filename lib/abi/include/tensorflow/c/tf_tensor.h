/* TensorFlow's tensor handle, as kernels and graph optimizers see it.
 *
 * TF_Tensor is opaque: only the host knows its layout. A tensor a function
 * hands to the caller (TF_AllocateTensor, TF_GetInput in kernels.h) belongs to
 * the caller, who releases it with TF_DeleteTensor. */
#ifndef TENSORFLOW_C_TF_TENSOR_H_
#define TENSORFLOW_C_TF_TENSOR_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a temporary tensor should live (TF_AllocateTemp in kernels.h). The
 * caller sets struct_size to TF_ALLOCATOR_ATTRIBUTES_STRUCT_SIZE. */
typedef struct TF_AllocatorAttributes {
  size_t struct_size;
  TF_Bool on_host; /* host memory rather than device memory */
} TF_AllocatorAttributes;

/* 9 on LP64; sizeof is 16. */
#define TF_ALLOCATOR_ATTRIBUTES_STRUCT_SIZE TF_OFFSET_OF_END(TF_AllocatorAttributes, on_host)

typedef struct TF_Tensor TF_Tensor;

/* A tensor over caller-owned memory; deallocator(data, len, deallocator_arg)
 * runs when the host is done with it. */
TF_CAPI_EXPORT extern TF_Tensor* TF_NewTensor(
    TF_DataType, const int64_t* dims, int num_dims, void* data, size_t len,
    void (*deallocator)(void* data, size_t len, void* arg), void* deallocator_arg);

/* The alignment, in bytes, of the memory the host allocates for tensors. */
TF_CAPI_EXPORT extern size_t TF_TensorDefaultAlignment(void);

TF_CAPI_EXPORT extern TF_Tensor* TF_AllocateTensor(TF_DataType, const int64_t* dims, int num_dims,
                                                   size_t len);

/* The same tensor if nothing else refers to its memory, else NULL. */
TF_CAPI_EXPORT extern TF_Tensor* TF_TensorMaybeMove(TF_Tensor* tensor);

TF_CAPI_EXPORT extern void TF_DeleteTensor(TF_Tensor*);

TF_CAPI_EXPORT extern TF_DataType TF_TensorType(const TF_Tensor*);

TF_CAPI_EXPORT extern void TF_SetShape(TF_Tensor* tensor, const int64_t* dims, int num_dims);

TF_CAPI_EXPORT extern int TF_NumDims(const TF_Tensor*);

TF_CAPI_EXPORT extern int64_t TF_Dim(const TF_Tensor* tensor, int dim_index);

TF_CAPI_EXPORT extern size_t TF_TensorByteSize(const TF_Tensor*);

TF_CAPI_EXPORT extern void* TF_TensorData(const TF_Tensor*);

TF_CAPI_EXPORT extern int64_t TF_TensorElementCount(const TF_Tensor* tensor);

/* Makes `to` share `from`'s memory, reinterpreted as `type` with new_dims. */
TF_CAPI_EXPORT extern void TF_TensorBitcastFrom(const TF_Tensor* from, TF_DataType type,
                                                TF_Tensor* to, const int64_t* new_dims,
                                                int num_new_dims, TF_Status* status);

TF_CAPI_EXPORT extern bool TF_TensorIsAligned(const TF_Tensor*);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* TENSORFLOW_C_TF_TENSOR_H_ */
