/* Faults in a plugin's kernel module (TF_InitKernel), which probe judges
 * (probe/kernel_module_description.h): the base plugin is correct, and
 * its kernel module registers one kernel for the base's device type, with
 * one fault. */
#include <stddef.h>
#include <stdint.h>

#include "fault_hooks.h"
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_status.h"

/* The type the minimal base registers. */
#define BASE_DEVICE_TYPE "SECTL_MINIMAL"

void PlantRegistrationFault(SE_PlatformRegistrationParams* params, TF_Status* status) {
  (void)params;
  (void)status;
}

void PlantStreamExecutorFault(SP_StreamExecutor* stream_executor) { (void)stream_executor; }

static void* Create(TF_OpKernelConstruction* construction) {
  (void)construction;
  return NULL;
}

__attribute__((unused)) static void Compute(void* kernel, TF_OpKernelContext* context) {
  (void)kernel;
  (void)context;
}

static void Delete(void* kernel) { (void)kernel; }

__attribute__((unused)) static void Register(const char* op, const char* device_type,
                                             TF_DataType type,
                                             void (*compute)(void*, TF_OpKernelContext*),
                                             TF_Status* status) {
  TF_KernelBuilder* builder = TF_NewKernelBuilder(op, device_type, Create, compute, Delete);
  TF_KernelBuilder_TypeConstraint(builder, "T", type, status);
  TF_RegisterKernelBuilder(op, builder, status);
}

TF_CAPI_EXPORT void TF_InitKernel(void) {
  TF_Status* status = TF_NewStatus();
#if defined(FAULT_KERNEL_FOR_UNKNOWN_DEVICE)
  /* A device type left over from another plugin: no device has it. */
  Register("Relu", "MY_DEVICE", TF_FLOAT, Compute, status);
#elif defined(FAULT_KERNEL_REGISTERED_TWICE)
  Register("Relu", BASE_DEVICE_TYPE, TF_FLOAT, Compute, status);
  Register("Relu", BASE_DEVICE_TYPE, TF_FLOAT, Compute, status);
#elif defined(FAULT_KERNEL_WITHOUT_COMPUTE)
  Register("Relu", BASE_DEVICE_TYPE, TF_FLOAT, NULL, status);
#elif defined(FAULT_KERNEL_INIT_READS_INPUT)
  /* What only a running kernel may call, called while registering: there is
   * no kernel context yet. */
  TF_Tensor* input = NULL;
  TF_GetInput(NULL, 0, &input, status);
  Register("Relu", BASE_DEVICE_TYPE, TF_FLOAT, Compute, status);
#elif defined(FAULT_KERNEL_INIT_CRASHES)
  Register("Relu", BASE_DEVICE_TYPE, TF_FLOAT, Compute, status);
  volatile int* nowhere = NULL;
  *nowhere = 1;
#elif defined(FAULT_KERNEL_BUILDER_USED_AFTER_REGISTERING)
  TF_KernelBuilder* builder =
      TF_NewKernelBuilder("Relu", BASE_DEVICE_TYPE, Create, Compute, Delete);
  TF_RegisterKernelBuilder("Relu", builder, status);
  /* TensorFlow owns the builder once it is registered. */
  TF_DeleteKernelBuilder(builder);
#endif
  TF_DeleteStatus(status);
}
