#include "cuda_devices.h"

#include <cuda_runtime_api.h>

#include <string>

#include "../common/entry_guard.h"
#include "cuda_status.h"

namespace sectl_plugin::cuda {
namespace {

// "13.0" for 13000.
std::string CudaVersionText(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// Why cudaGetDeviceCount failed with `error`, in the words a user needs. The
// runtime is linked statically, so the plugin loads without a driver and
// can tell "no driver" apart from "driver too old" and "no device".
std::string ExplainNoDevices(cudaError_t error) {
  const std::string failure = "cudaGetDeviceCount failed with " + DescribeCudaError(error);
  if (error == cudaErrorInsufficientDriver) {
    int driver_version = 0;
    if (cudaDriverGetVersion(&driver_version) == cudaSuccess && driver_version == 0) {
      return "sectl_cuda: no CUDA driver: " + failure +
             "; libcuda.so.1 (the NVIDIA driver) was not found";
    }
    return "sectl_cuda: no CUDA driver: " + failure + "; the driver supports CUDA " +
           CudaVersionText(driver_version) + ", this plugin was built for CUDA " +
           CudaVersionText(CUDART_VERSION);
  }
  return "sectl_cuda: no CUDA device: " + failure;
}

}  // namespace

bool CountDevices(int* count, TF_Status* status) {
  int found = 0;
  const cudaError_t error = cudaGetDeviceCount(&found);
  if (error != cudaSuccess) {
    SetError(status, TF_UNAVAILABLE, ExplainNoDevices(error));
    return false;
  }
  if (found <= 0) {
    SetError(status, TF_UNAVAILABLE,
             "sectl_cuda: no CUDA device: cudaGetDeviceCount found none (is CUDA_VISIBLE_DEVICES "
             "empty?)");
    return false;
  }
  *count = found;
  SetOk(status);
  return true;
}

bool AllSupportManagedMemory(int count) {
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    int managed = 0;
    if (cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, ordinal) != cudaSuccess ||
        managed == 0) {
      return false;
    }
  }
  return true;
}

}  // namespace sectl_plugin::cuda
