#include "cuda_status.h"

#include "../common/entry_guard.h"

namespace sectl_plugin::cuda {

std::string DescribeCudaError(cudaError_t error) {
  return std::string(cudaGetErrorName(error)) + " (" + cudaGetErrorString(error) + ")";
}

TF_Code TfCodeFor(cudaError_t error) {
  switch (error) {
    case cudaSuccess:
      return TF_OK;
    case cudaErrorMemoryAllocation:
      return TF_RESOURCE_EXHAUSTED;
    case cudaErrorInvalidValue:
    case cudaErrorInvalidDevicePointer:
    case cudaErrorInvalidResourceHandle:
    case cudaErrorInvalidMemcpyDirection:
      return TF_INVALID_ARGUMENT;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemDriverMismatch:
      return TF_UNAVAILABLE;
    case cudaErrorNotSupported:
      return TF_UNIMPLEMENTED;
    default:
      return TF_INTERNAL;
  }
}

bool CudaSucceeded(cudaError_t error, const char* call, TF_Status* status) {
  if (error == cudaSuccess) {
    SetOk(status);
    return true;
  }
  SetError(status, TfCodeFor(error),
           std::string("sectl_cuda: ") + call + " failed: " + DescribeCudaError(error));
  return false;
}

}  // namespace sectl_plugin::cuda
