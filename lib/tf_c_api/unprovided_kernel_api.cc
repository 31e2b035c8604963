// Stand-ins for what a running kernel asks of its host (kernels.h after the
// builder functions, and kernels_experimental.h). sectl records kernel
// registrations but never instantiates or computes a kernel, so no plugin can
// reach these with a context sectl made; they exist so that a plugin
// referencing them loads with RTLD_NOW.
//
// Each one records the call (UnprovidedCalls), sets TF_UNIMPLEMENTED naming
// itself when it has a TF_Status* to report through, clears single-value
// out-parameters (so a plugin that ignores the status reads NULL or 0 rather
// than garbage), and returns a zero value. None dereferences a context,
// tensor or builder pointer.

#include <cstddef>

#include "tensorflow/c/kernels.h"
#include "tensorflow/c/kernels_experimental.h"
#include "tf_c_api/recorded_registrations.h"

// Layouts the facts give for LP64 (docs/tf-module-c-api-facts.md §2, §3.1).
#if defined(__LP64__)
static_assert(TF_InputRange_Args_STRUCT_SIZE == 32);
static_assert(offsetof(TF_InputRange_Args, start) == 16);
static_assert(offsetof(TF_InputRange_Args, status) == 24);
static_assert(sizeof(TF_RendezvousThunk) == 32);
static_assert(sizeof(TF_StringView) == 16);
#endif

namespace {

using sectl::tf_c_api::ClearOutParameter;
// Every function here takes a kernel's construction or context, which only
// exist while TensorFlow creates or computes a kernel: a call while
// registering is the plugin's defect, whatever sectl provides.
void NoteUnprovided(const char* function, TF_Status* status) noexcept {
  sectl::tf_c_api::NoteUnprovided(function, status, /*needs_running_kernel=*/true);
}

// Views of strings the host would own; empty, but never NULL, for callers
// that build a std::string from them without checking.
TF_StringView EmptyView() { return TF_StringView{.data = "", .len = 0}; }

// A TF_DataType of 0: DT_INVALID in TensorFlow, no enumerator here.
TF_DataType NoDataType() { return static_cast<TF_DataType>(0); }

}  // namespace

extern "C" {

// kernels.h

void TF_RunAsyncOpKernelDoneCallback(TF_AsyncOpKernelDoneCallback* /*done*/) {
  NoteUnprovided(__func__, nullptr);
}

SP_Stream TF_GetStream(TF_OpKernelContext* /*ctx*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
  return nullptr;
}

int TF_NumInputs(TF_OpKernelContext* /*ctx*/) {
  NoteUnprovided(__func__, nullptr);
  return 0;
}

int TF_NumOutputs(TF_OpKernelContext* /*ctx*/) {
  NoteUnprovided(__func__, nullptr);
  return 0;
}

void TF_GetInput(TF_OpKernelContext* /*ctx*/, int /*i*/, TF_Tensor** tensor, TF_Status* status) {
  ClearOutParameter(tensor);
  NoteUnprovided(__func__, status);
}

void TF_InputRange(TF_OpKernelContext* /*ctx*/, const char* /*name*/, TF_InputRange_Args* args) {
  // The status travels inside args.
  TF_Status* status = nullptr;
  if (args != nullptr) {
    args->start = 0;
    args->stop = 0;
    status = args->status;
  }
  NoteUnprovided(__func__, status);
}

TF_DataType TF_InputDatatype(TF_OpKernelContext* /*ctx*/, int /*index*/) {
  NoteUnprovided(__func__, nullptr);
  return NoDataType();
}

void TF_SetOutput(TF_OpKernelContext* /*ctx*/, int /*i*/, const TF_Tensor* /*tensor*/,
                  TF_Status* status) {
  NoteUnprovided(__func__, status);
}

TF_Tensor* TF_GetMutableOutput(TF_OpKernelContext* /*ctx*/, int /*i*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
  return nullptr;
}

void TF_GetSerializedFunctionDefLibrary(TF_OpKernelContext* /*ctx*/,
                                        TF_Buffer* /*serialized_function_def_library*/,
                                        TF_Status* status) {
  NoteUnprovided(__func__, status);
}

void TF_GetSerializedConfigProto(TF_OpKernelContext* /*ctx*/,
                                 TF_Buffer* /*serialized_config_proto*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
}

void TF_GetSerializedResourceHandleProto(TF_OpKernelContext* /*ctx*/, int /*i*/,
                                         TF_Buffer* /*serialized_resource_handle_proto*/,
                                         TF_Status* status) {
  NoteUnprovided(__func__, status);
}

// The status of the two Failure functions is the plugin's error, an input:
// overwriting it would lose what the plugin reported.
void TF_OpKernelConstruction_Failure(TF_OpKernelConstruction* /*ctx*/, TF_Status* /*status*/) {
  NoteUnprovided(__func__, nullptr);
}

void TF_OpKernelContext_Failure(TF_OpKernelContext* /*ctx*/, TF_Status* /*status*/) {
  NoteUnprovided(__func__, nullptr);
}

TF_DataType TF_ExpectedOutputDataType(TF_OpKernelContext* /*ctx*/, int /*i*/) {
  NoteUnprovided(__func__, nullptr);
  return NoDataType();
}

bool TF_IsHostMemoryInput(TF_OpKernelContext* /*ctx*/, int /*i*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
  return false;
}

bool TF_IsHostMemoryOutput(TF_OpKernelContext* /*ctx*/, int /*i*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
  return false;
}

int64_t TF_StepId(TF_OpKernelContext* /*ctx*/) {
  NoteUnprovided(__func__, nullptr);
  return 0;
}

TF_Buffer* TF_OpKernelConstruction_GetNodeDef(TF_OpKernelConstruction* /*ctx*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
  return nullptr;
}

uint64_t TF_GetFrameId(TF_OpKernelContext* /*ctx*/) {
  NoteUnprovided(__func__, nullptr);
  return 0;
}

int64_t TF_GetIterId(TF_OpKernelContext* /*ctx*/) {
  NoteUnprovided(__func__, nullptr);
  return 0;
}

int64_t TF_GetStepId(TF_OpKernelContext* /*ctx*/) {
  NoteUnprovided(__func__, nullptr);
  return 0;
}

int TF_GetDeviceId(TF_OpKernelContext* /*ctx*/) {
  NoteUnprovided(__func__, nullptr);
  return 0;
}

TF_StringView TF_GetDeviceName(TF_OpKernelContext* /*ctx*/) {
  NoteUnprovided(__func__, nullptr);
  return EmptyView();
}

TF_RendezvousThunk TF_GetRendezvous(TF_OpKernelContext* /*ctx*/) {
  NoteUnprovided(__func__, nullptr);
  return TF_RendezvousThunk{};
}

int TF_GetGraphDefVersion(TF_OpKernelContext* /*ctx*/) {
  NoteUnprovided(__func__, nullptr);
  return 0;
}

TF_StringView TF_GetOpKernelName(TF_OpKernelContext* /*ctx*/) {
  NoteUnprovided(__func__, nullptr);
  return EmptyView();
}

TF_StringView TF_GetResourceMgrDefaultContainerName(TF_OpKernelContext* /*ctx*/) {
  NoteUnprovided(__func__, nullptr);
  return EmptyView();
}

TF_StringView TF_GetOpKernelRequestedInput(TF_OpKernelContext* /*ctx*/, size_t /*index*/) {
  NoteUnprovided(__func__, nullptr);
  return EmptyView();
}

void TF_OpKernelConstruction_GetAttrSize(TF_OpKernelConstruction* /*ctx*/,
                                         const char* /*attr_name*/, int32_t* list_size,
                                         int32_t* total_size, TF_Status* status) {
  ClearOutParameter(list_size);
  ClearOutParameter(total_size);
  NoteUnprovided(__func__, status);
}

void TF_OpKernelConstruction_GetAttrType(TF_OpKernelConstruction* /*ctx*/,
                                         const char* /*attr_name*/, TF_DataType* /*val*/,
                                         TF_Status* status) {
  NoteUnprovided(__func__, status);
}

void TF_OpKernelConstruction_GetAttrInt32(TF_OpKernelConstruction* /*ctx*/,
                                          const char* /*attr_name*/, int32_t* /*val*/,
                                          TF_Status* status) {
  NoteUnprovided(__func__, status);
}

void TF_OpKernelConstruction_GetAttrInt64(TF_OpKernelConstruction* /*ctx*/,
                                          const char* /*attr_name*/, int64_t* /*val*/,
                                          TF_Status* status) {
  NoteUnprovided(__func__, status);
}

void TF_OpKernelConstruction_GetAttrFloat(TF_OpKernelConstruction* /*ctx*/,
                                          const char* /*attr_name*/, float* /*val*/,
                                          TF_Status* status) {
  NoteUnprovided(__func__, status);
}

void TF_OpKernelConstruction_GetAttrBool(TF_OpKernelConstruction* /*ctx*/,
                                         const char* /*attr_name*/, TF_Bool* /*val*/,
                                         TF_Status* status) {
  NoteUnprovided(__func__, status);
}

void TF_OpKernelConstruction_GetAttrString(TF_OpKernelConstruction* /*ctx*/,
                                           const char* /*attr_name*/, char* /*val*/,
                                           size_t /*max_length*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
}

void TF_OpKernelConstruction_GetAttrTensor(TF_OpKernelConstruction* /*ctx*/,
                                           const char* /*attr_name*/, TF_Tensor** val,
                                           TF_Status* status) {
  ClearOutParameter(val);
  NoteUnprovided(__func__, status);
}

void TF_OpKernelConstruction_GetAttrTypeList(TF_OpKernelConstruction* /*ctx*/,
                                             const char* /*attr_name*/, TF_DataType* /*vals*/,
                                             int /*max_vals*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
}

void TF_OpKernelConstruction_GetAttrInt32List(TF_OpKernelConstruction* /*ctx*/,
                                              const char* /*attr_name*/, int32_t* /*vals*/,
                                              int /*max_vals*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
}

void TF_OpKernelConstruction_GetAttrInt64List(TF_OpKernelConstruction* /*ctx*/,
                                              const char* /*attr_name*/, int64_t* /*vals*/,
                                              int /*max_vals*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
}

void TF_OpKernelConstruction_GetAttrFloatList(TF_OpKernelConstruction* /*ctx*/,
                                              const char* /*attr_name*/, float* /*vals*/,
                                              int /*max_vals*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
}

void TF_OpKernelConstruction_GetAttrBoolList(TF_OpKernelConstruction* /*ctx*/,
                                             const char* /*attr_name*/, TF_Bool* /*vals*/,
                                             int /*max_vals*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
}

void TF_OpKernelConstruction_GetAttrStringList(TF_OpKernelConstruction* /*ctx*/,
                                               const char* /*attr_name*/, char** /*values*/,
                                               size_t* /*lengths*/, int /*max_values*/,
                                               void* /*storage*/, size_t /*storage_size*/,
                                               TF_Status* status) {
  NoteUnprovided(__func__, status);
}

void TF_OpKernelConstruction_GetAttrTensorList(TF_OpKernelConstruction* /*ctx*/,
                                               const char* /*attr_name*/, TF_Tensor** /*vals*/,
                                               int /*max_values*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
}

TF_Buffer* TF_OpKernelConstruction_GetAttrFunction(TF_OpKernelConstruction* /*ctx*/,
                                                   const char* /*attr_name*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
  return nullptr;
}

bool TF_OpKernelConstruction_HasAttr(TF_OpKernelConstruction* /*ctx*/, const char* /*attr_name*/,
                                     TF_Status* status) {
  NoteUnprovided(__func__, status);
  return false;
}

TF_StringView TF_OpKernelConstruction_GetName(TF_OpKernelConstruction* /*ctx*/) {
  NoteUnprovided(__func__, nullptr);
  return EmptyView();
}

TF_Tensor* TF_AllocateOutput(TF_OpKernelContext* /*context*/, int /*index*/, TF_DataType /*dtype*/,
                             const int64_t* /*dims*/, int /*num_dims*/, size_t /*len*/,
                             TF_Status* status) {
  NoteUnprovided(__func__, status);
  return nullptr;
}

TF_Tensor* TF_ForwardInputOrAllocateOutput(TF_OpKernelContext* /*context*/,
                                           const int* /*candidate_input_indices*/,
                                           int /*num_candidate_input_indices*/,
                                           int /*output_index*/, const int64_t* /*output_dims*/,
                                           int /*output_num_dims*/, int* forwarded_input,
                                           TF_Status* status) {
  // TensorFlow's "no input was forwarded".
  if (forwarded_input != nullptr) {
    *forwarded_input = -1;
  }
  NoteUnprovided(__func__, status);
  return nullptr;
}

TF_Tensor* TF_AllocateTemp(TF_OpKernelContext* /*context*/, TF_DataType /*dtype*/,
                           const int64_t* /*dims*/, int /*num_dims*/,
                           TF_AllocatorAttributes* /*alloc_attrs*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
  return nullptr;
}

void TF_IncNumDeferredOps(TF_OpKernelContext* /*context*/) { NoteUnprovided(__func__, nullptr); }

void TF_DecNumDeferredOps(TF_OpKernelContext* /*context*/) { NoteUnprovided(__func__, nullptr); }

// kernels_experimental.h. The plugin callbacks (copyFunc, updateFunc, ...)
// are never called.

void TF_AssignVariable(TF_OpKernelContext* /*ctx*/, int /*input_index*/, int /*value_index*/,
                       bool /*validate_shape*/,
                       void (* /*copyFunc*/)(TF_OpKernelContext*, TF_Tensor*, TF_Tensor*),
                       TF_Status* status) {
  NoteUnprovided(__func__, status);
}

void TF_AssignRefVariable(TF_OpKernelContext* /*ctx*/, int /*input_ref_index*/,
                          int /*output_ref_index*/, int /*value_index*/, bool /*use_locking*/,
                          bool /*validate_shape*/,
                          void (* /*copyFunc*/)(TF_OpKernelContext*, TF_Tensor*, TF_Tensor*),
                          TF_Status* status) {
  NoteUnprovided(__func__, status);
}

void TF_AssignUpdateVariable(
    TF_OpKernelContext* /*ctx*/, int /*input_index*/, int /*value_index*/, int /*Op*/,
    int /*isVariantType*/, void (* /*copyFunc*/)(TF_OpKernelContext*, TF_Tensor*, TF_Tensor*),
    void (* /*updateFunc*/)(TF_OpKernelContext*, TF_Tensor*, TF_Tensor*, int), TF_Status* status) {
  NoteUnprovided(__func__, status);
}

void TF_TemporaryVariable(TF_OpKernelContext* /*ctx*/, TF_DataType /*dtype*/,
                          const int64_t* /*dims*/, int /*num_dims*/, TF_StringView* /*var_name*/,
                          void (* /*plugin_allocator*/)(TF_OpKernelContext*, TF_Tensor*,
                                                        TF_DataType, const int64_t*, int,
                                                        TF_Status*),
                          TF_Status* tf_status) {
  NoteUnprovided(__func__, tf_status);
}

void TF_DestroyTemporaryVariable(TF_OpKernelContext* /*ctx*/, const int /*index*/,
                                 TF_StringView* /*var_name*/, TF_Status* tf_status) {
  NoteUnprovided(__func__, tf_status);
}

void TF_MaybeLockVariableInputMutexesInOrder(
    TF_OpKernelContext* /*ctx*/, bool /*do_lock*/, bool /*sparse*/, const int* const /*inputs*/,
    size_t /*len*/, void (* /*copyFunc*/)(TF_OpKernelContext*, TF_Tensor*, TF_Tensor*),
    TF_VariableInputLockHolder** lockHolder, TF_Status* status) {
  ClearOutParameter(lockHolder);
  NoteUnprovided(__func__, status);
}

void TF_GetInputTensorFromVariable(TF_OpKernelContext* /*ctx*/, int /*input*/, bool /*lock_held*/,
                                   bool /*isVariantType*/, bool /*sparse*/,
                                   void (* /*copyFunc*/)(TF_OpKernelContext*, TF_Tensor*,
                                                         TF_Tensor*),
                                   TF_Tensor** out, TF_Status* status) {
  ClearOutParameter(out);
  NoteUnprovided(__func__, status);
}

void TF_OpKernelContext_ForwardRefInputToRefOutput(TF_OpKernelContext* /*ctx*/,
                                                   int32_t /*input_index*/,
                                                   int32_t /*output_index*/) {
  NoteUnprovided(__func__, nullptr);
}

void TF_ReleaseVariableInputLockHolder(TF_VariableInputLockHolder* /*lockHolder*/) {
  NoteUnprovided(__func__, nullptr);
}

void TF_GetInputByName(TF_OpKernelContext* /*ctx*/, const char* /*inputName*/, TF_Tensor** tensor,
                       TF_Status* status) {
  ClearOutParameter(tensor);
  NoteUnprovided(__func__, status);
}

void TF_OpKernelConstruction_GetAttrTensorShape(TF_OpKernelConstruction* /*ctx*/,
                                                const char* /*attr_name*/, int64_t* /*dims*/,
                                                size_t /*num_dims*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
}

bool TF_IsRefInput(TF_OpKernelContext* /*ctx*/, int /*i*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
  return false;
}

void TF_AddNVariant(TF_OpKernelContext* /*ctx*/,
                    void (* /*binary_add_func*/)(TF_OpKernelContext*, TF_Tensor*, TF_Tensor*,
                                                 TF_Tensor*),
                    TF_Status* status) {
  NoteUnprovided(__func__, status);
}

void TF_ZerosLikeVariant(TF_OpKernelContext* /*ctx*/,
                         void (* /*zeros_like_func*/)(TF_OpKernelContext*, TF_Tensor*, TF_Tensor*),
                         TF_Status* status) {
  NoteUnprovided(__func__, status);
}

}  // extern "C"
