/* The kernel C API of TensorFlow: how a plugin registers kernels for its
 * device (TF_InitKernel, TF_NewKernelBuilder, TF_RegisterKernelBuilder) and
 * what a running kernel asks of its host (inputs, outputs, attributes,
 * allocations, the device stream).
 *
 * The plugin defines TF_InitKernel; the host defines everything else. A
 * registered builder belongs to the host: the plugin does not delete it. */
#ifndef TENSORFLOW_C_KERNELS_H_
#define TENSORFLOW_C_KERNELS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api_for_plugins.h"
#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"
#include "tensorflow/c/tf_buffer.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TF_KernelBuilder TF_KernelBuilder;
typedef struct TF_OpKernelConstruction TF_OpKernelConstruction;
typedef struct TF_OpKernelContext TF_OpKernelContext;
typedef struct TF_AsyncOpKernelDoneCallback TF_AsyncOpKernelDoneCallback;

/* The arguments of TF_InputRange: the kernel sets struct_size, the host fills
 * the rest. */
typedef struct {
  size_t struct_size;
  void* priv;
  int start;
  int stop;
  TF_Status* status;
} TF_InputRange_Args;

/* 32 on LP64. TensorFlow defines this in the header as an object with
 * external linkage in C, so a C plugin with two files that include kernels.h
 * defines it twice and fails to link. Here it is static: the same value, and
 * it links everywhere. */
static const size_t TF_InputRange_Args_STRUCT_SIZE = TF_OFFSET_OF_END(TF_InputRange_Args, status);

/* TensorFlow's rendezvous thunk (tf_rendezvous_c_api.h), which TF_GetRendezvous
 * returns by value: four pointers, 32 bytes on LP64. The parameter structs of
 * the three functions are left incomplete here; sectl never builds them. */
#ifndef TENSORFLOW_CORE_COMMON_RUNTIME_NEXT_PLUGGABLE_DEVICE_C_TF_RENDEZVOUS_C_API_H_
typedef struct TF_RendezvousSend_Params TF_RendezvousSend_Params;
typedef struct TF_RendezvousAsyncRecv_Params TF_RendezvousAsyncRecv_Params;
typedef void (*TF_RendezvousSend_Function)(void*, TF_RendezvousSend_Params*);
typedef void (*TF_RendezvousAsyncRecv_Function)(void*, TF_RendezvousAsyncRecv_Params*);
typedef void (*TF_RendezvousStartAbort_Function)(void* context, const TF_Status*);
typedef struct TF_RendezvousThunk {
  void* rendezvous;
  TF_RendezvousSend_Function send_func;
  TF_RendezvousAsyncRecv_Function async_recv_func;
  TF_RendezvousStartAbort_Function start_abort_func;
} TF_RendezvousThunk;
#endif

/* Runs the completion callback an asynchronous kernel was given. */
TF_CAPI_EXPORT extern void TF_RunAsyncOpKernelDoneCallback(TF_AsyncOpKernelDoneCallback*);

/* Defined by the plugin, which registers its kernels here; the host calls it
 * once after loading the plugin. Not exported by the host. */
void TF_InitKernel(void);

/* Registration. A kernel is created with create_func (optional), computed with
 * compute_func and destroyed with delete_func (optional). */
TF_CAPI_EXPORT extern TF_KernelBuilder* TF_NewKernelBuilder(
    const char* op_name, const char* device_name, void* (*create_func)(TF_OpKernelConstruction*),
    void (*compute_func)(void*, TF_OpKernelContext*), void (*delete_func)(void*));

TF_CAPI_EXPORT extern TF_KernelBuilder* TF_NewAsyncKernelBuilder(
    const char* op_name, const char* device_name, void* (*create_func)(TF_OpKernelConstruction*),
    void (*compute_async_func)(void*, TF_OpKernelContext*, TF_AsyncOpKernelDoneCallback* done),
    void (*delete_func)(void*));

TF_CAPI_EXPORT extern void TF_KernelBuilder_TypeConstraint(TF_KernelBuilder* kernel_builder,
                                                           const char* attr_name, TF_DataType type,
                                                           TF_Status* status);

TF_CAPI_EXPORT extern void TF_KernelBuilder_HostMemory(TF_KernelBuilder* kernel_builder,
                                                       const char* arg_name);

TF_CAPI_EXPORT extern void TF_KernelBuilder_Priority(TF_KernelBuilder* kernel_builder,
                                                     int32_t priority_number);

TF_CAPI_EXPORT extern void TF_KernelBuilder_Label(TF_KernelBuilder* kernel_builder,
                                                  const char* label);

/* Takes ownership of the builder. */
TF_CAPI_EXPORT extern void TF_RegisterKernelBuilder(const char* kernel_name,
                                                    TF_KernelBuilder* builder, TF_Status* status);

/* As TF_RegisterKernelBuilder, with the KernelDef given as a serialized proto
 * instead of being built from the builder; NULL means build it. */
TF_CAPI_EXPORT extern void TF_RegisterKernelBuilderWithKernelDef(const char* serialized_kernel_def,
                                                                 const char* name,
                                                                 TF_KernelBuilder* builder,
                                                                 TF_Status* status);

/* For a builder that was never registered. Accepts NULL. */
TF_CAPI_EXPORT extern void TF_DeleteKernelBuilder(TF_KernelBuilder* builder);

/* What a running kernel asks of its context. */
TF_CAPI_EXPORT extern SP_Stream TF_GetStream(TF_OpKernelContext* ctx, TF_Status* status);

TF_CAPI_EXPORT extern int TF_NumInputs(TF_OpKernelContext* ctx);

TF_CAPI_EXPORT extern int TF_NumOutputs(TF_OpKernelContext* ctx);

/* The caller owns *tensor and releases it with TF_DeleteTensor. */
TF_CAPI_EXPORT extern void TF_GetInput(TF_OpKernelContext* ctx, int i, TF_Tensor** tensor,
                                       TF_Status* status);

TF_CAPI_EXPORT extern void TF_InputRange(TF_OpKernelContext* ctx, const char* name,
                                         TF_InputRange_Args* args);

TF_CAPI_EXPORT extern TF_DataType TF_InputDatatype(TF_OpKernelContext* ctx, int index);

TF_CAPI_EXPORT extern void TF_SetOutput(TF_OpKernelContext* ctx, int i, const TF_Tensor* tensor,
                                        TF_Status* status);

TF_CAPI_EXPORT extern TF_Tensor* TF_GetMutableOutput(TF_OpKernelContext* ctx, int i,
                                                     TF_Status* status);

TF_CAPI_EXPORT extern void TF_GetSerializedFunctionDefLibrary(
    TF_OpKernelContext* ctx, TF_Buffer* serialized_function_def_library, TF_Status* status);

TF_CAPI_EXPORT extern void TF_GetSerializedConfigProto(TF_OpKernelContext* ctx,
                                                       TF_Buffer* serialized_config_proto,
                                                       TF_Status* status);

TF_CAPI_EXPORT extern void TF_GetSerializedResourceHandleProto(
    TF_OpKernelContext* ctx, int i, TF_Buffer* serialized_resource_handle_proto, TF_Status* status);

TF_CAPI_EXPORT extern void TF_OpKernelConstruction_Failure(TF_OpKernelConstruction* ctx,
                                                           TF_Status* status);

TF_CAPI_EXPORT extern void TF_OpKernelContext_Failure(TF_OpKernelContext* ctx, TF_Status* status);

TF_CAPI_EXPORT extern TF_DataType TF_ExpectedOutputDataType(TF_OpKernelContext* ctx, int i);

TF_CAPI_EXPORT extern bool TF_IsHostMemoryInput(TF_OpKernelContext* ctx, int i, TF_Status* status);

TF_CAPI_EXPORT extern bool TF_IsHostMemoryOutput(TF_OpKernelContext* ctx, int i, TF_Status* status);

TF_CAPI_EXPORT extern int64_t TF_StepId(TF_OpKernelContext* ctx);

TF_CAPI_EXPORT extern TF_Buffer* TF_OpKernelConstruction_GetNodeDef(TF_OpKernelConstruction* ctx,
                                                                    TF_Status* status);

TF_CAPI_EXPORT extern uint64_t TF_GetFrameId(TF_OpKernelContext* ctx);

TF_CAPI_EXPORT extern int64_t TF_GetIterId(TF_OpKernelContext* ctx);

TF_CAPI_EXPORT extern int64_t TF_GetStepId(TF_OpKernelContext* ctx);

TF_CAPI_EXPORT extern int TF_GetDeviceId(TF_OpKernelContext* ctx);

/* The string views returned below point into host-owned strings. */
TF_CAPI_EXPORT extern TF_StringView TF_GetDeviceName(TF_OpKernelContext* ctx);

TF_CAPI_EXPORT extern TF_RendezvousThunk TF_GetRendezvous(TF_OpKernelContext* ctx);

TF_CAPI_EXPORT extern int TF_GetGraphDefVersion(TF_OpKernelContext* ctx);

TF_CAPI_EXPORT extern TF_StringView TF_GetOpKernelName(TF_OpKernelContext* ctx);

TF_CAPI_EXPORT extern TF_StringView TF_GetResourceMgrDefaultContainerName(TF_OpKernelContext* ctx);

TF_CAPI_EXPORT extern TF_StringView TF_GetOpKernelRequestedInput(TF_OpKernelContext* ctx,
                                                                 size_t index);

/* Attributes, read while the kernel is constructed. */
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrSize(TF_OpKernelConstruction* ctx,
                                                               const char* attr_name,
                                                               int32_t* list_size,
                                                               int32_t* total_size,
                                                               TF_Status* status);

TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrType(TF_OpKernelConstruction* ctx,
                                                               const char* attr_name,
                                                               TF_DataType* val, TF_Status* status);

TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrInt32(TF_OpKernelConstruction* ctx,
                                                                const char* attr_name, int32_t* val,
                                                                TF_Status* status);

TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrInt64(TF_OpKernelConstruction* ctx,
                                                                const char* attr_name, int64_t* val,
                                                                TF_Status* status);

TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrFloat(TF_OpKernelConstruction* ctx,
                                                                const char* attr_name, float* val,
                                                                TF_Status* status);

TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrBool(TF_OpKernelConstruction* ctx,
                                                               const char* attr_name, TF_Bool* val,
                                                               TF_Status* status);

TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrString(TF_OpKernelConstruction* ctx,
                                                                 const char* attr_name, char* val,
                                                                 size_t max_length,
                                                                 TF_Status* status);

TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrTensor(TF_OpKernelConstruction* ctx,
                                                                 const char* attr_name,
                                                                 TF_Tensor** val,
                                                                 TF_Status* status);

TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrTypeList(TF_OpKernelConstruction* ctx,
                                                                   const char* attr_name,
                                                                   TF_DataType* vals, int max_vals,
                                                                   TF_Status* status);

TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrInt32List(TF_OpKernelConstruction* ctx,
                                                                    const char* attr_name,
                                                                    int32_t* vals, int max_vals,
                                                                    TF_Status* status);

TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrInt64List(TF_OpKernelConstruction* ctx,
                                                                    const char* attr_name,
                                                                    int64_t* vals, int max_vals,
                                                                    TF_Status* status);

TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrFloatList(TF_OpKernelConstruction* ctx,
                                                                    const char* attr_name,
                                                                    float* vals, int max_vals,
                                                                    TF_Status* status);

TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrBoolList(TF_OpKernelConstruction* ctx,
                                                                   const char* attr_name,
                                                                   TF_Bool* vals, int max_vals,
                                                                   TF_Status* status);

TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrStringList(
    TF_OpKernelConstruction* ctx, const char* attr_name, char** values, size_t* lengths,
    int max_values, void* storage, size_t storage_size, TF_Status* status);

TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrTensorList(TF_OpKernelConstruction* ctx,
                                                                     const char* attr_name,
                                                                     TF_Tensor** vals,
                                                                     int max_values,
                                                                     TF_Status* status);

TF_CAPI_EXPORT extern TF_Buffer* TF_OpKernelConstruction_GetAttrFunction(
    TF_OpKernelConstruction* ctx, const char* attr_name, TF_Status* status);

TF_CAPI_EXPORT extern bool TF_OpKernelConstruction_HasAttr(TF_OpKernelConstruction* ctx,
                                                           const char* attr_name,
                                                           TF_Status* status);

TF_CAPI_EXPORT extern TF_StringView TF_OpKernelConstruction_GetName(TF_OpKernelConstruction* ctx);

/* Allocation. TensorFlow ignores `len` in TF_AllocateOutput: the shape comes
 * from dims. */
TF_CAPI_EXPORT extern TF_Tensor* TF_AllocateOutput(TF_OpKernelContext* context, int index,
                                                   TF_DataType dtype, const int64_t* dims,
                                                   int num_dims, size_t len, TF_Status* status);

TF_CAPI_EXPORT extern TF_Tensor* TF_ForwardInputOrAllocateOutput(
    TF_OpKernelContext* context, const int* candidate_input_indices,
    int num_candidate_input_indices, int output_index, const int64_t* output_dims,
    int output_num_dims, int* forwarded_input, TF_Status* status);

TF_CAPI_EXPORT extern TF_Tensor* TF_AllocateTemp(TF_OpKernelContext* context, TF_DataType dtype,
                                                 const int64_t* dims, int num_dims,
                                                 TF_AllocatorAttributes* alloc_attrs,
                                                 TF_Status* status);

TF_CAPI_EXPORT extern void TF_IncNumDeferredOps(TF_OpKernelContext* context);

TF_CAPI_EXPORT extern void TF_DecNumDeferredOps(TF_OpKernelContext* context);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* TENSORFLOW_C_KERNELS_H_ */
