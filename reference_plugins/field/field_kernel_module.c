/* A plugin's kernel module, as real plugins write one: TF_InitKernel
 * registers kernels for the plugin's device type through TensorFlow's kernel
 * C API (tensorflow/c/kernels.h), which the host process provides. The
 * community sample leaves those functions undefined for the host to supply;
 * vendor plugins also name libtensorflow_framework.so.2 as needed
 * (field_framework_linked). Either way the plugin loads with RTLD_NOW only
 * in a host that exports the API: TensorFlow, or sectl.
 *
 * The compute function is what a kernel does in TensorFlow. sectl never
 * runs it; it is here so that the plugin references the functions a real
 * kernel references. */
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/kernels.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"

/* The device type field_cxx_whole_struct.cc registers. */
#define FIELD_DEVICE_TYPE "WHOLE_STRUCT"

static void* CreateAdd(TF_OpKernelConstruction* construction) {
  (void)construction;
  return NULL;
}

static void ComputeAdd(void* kernel, TF_OpKernelContext* context) {
  (void)kernel;
  TF_Status* status = TF_NewStatus();
  TF_Tensor* x = NULL;
  TF_Tensor* y = NULL;
  TF_GetInput(context, 0, &x, status);
  if (TF_GetCode(status) == TF_OK) TF_GetInput(context, 1, &y, status);
  if (TF_GetCode(status) == TF_OK && x != NULL) {
    const int64_t dims[1] = {TF_Dim(x, 0)};
    TF_Tensor* sum =
        TF_AllocateOutput(context, 0, TF_FLOAT, dims, 1, (size_t)dims[0] * sizeof(float), status);
    TF_DeleteTensor(sum);
  }
  if (TF_GetCode(status) != TF_OK) TF_OpKernelContext_Failure(context, status);
  TF_DeleteTensor(x);
  TF_DeleteTensor(y);
  TF_DeleteStatus(status);
}

static void DeleteAdd(void* kernel) { (void)kernel; }

static void Register(const char* op, TF_DataType type, TF_Status* status) {
  TF_KernelBuilder* builder =
      TF_NewKernelBuilder(op, FIELD_DEVICE_TYPE, CreateAdd, ComputeAdd, DeleteAdd);
  TF_KernelBuilder_TypeConstraint(builder, "T", type, status);
  if (TF_GetCode(status) != TF_OK) {
    TF_DeleteKernelBuilder(builder);
    return;
  }
  /* TensorFlow takes the builder over, whether registration succeeds. */
  TF_RegisterKernelBuilder(op, builder, status);
}

TF_CAPI_EXPORT void TF_InitKernel(void) {
  TF_Status* status = TF_NewStatus();
  Register("AddV2", TF_FLOAT, status);
  Register("AddV2", TF_HALF, status);
  TF_DeleteStatus(status);
}
