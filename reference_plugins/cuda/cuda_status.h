// CUDA runtime results, turned into TF_Status errors a person can act on.

#ifndef SECTL_REFERENCE_PLUGINS_CUDA_CUDA_STATUS_H_
#define SECTL_REFERENCE_PLUGINS_CUDA_CUDA_STATUS_H_

#include <cuda_runtime_api.h>

#include <string>

#include "tensorflow/c/tf_status.h"

namespace sectl_plugin::cuda {

// "cudaErrorMemoryAllocation (out of memory)".
std::string DescribeCudaError(cudaError_t error);

// The TF_Code that tells the host what kind of failure `error` is.
TF_Code TfCodeFor(cudaError_t error);

// For a call that returned `error`: sets `status` to OK on cudaSuccess and to
// "sectl_cuda: <call> failed: <description>" otherwise. Returns whether the
// call succeeded.
bool CudaSucceeded(cudaError_t error, const char* call, TF_Status* status);

}  // namespace sectl_plugin::cuda

#endif  // SECTL_REFERENCE_PLUGINS_CUDA_CUDA_STATUS_H_
