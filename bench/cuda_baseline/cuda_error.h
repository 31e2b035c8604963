// CUDA runtime results as sectl errors.
#pragma once

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <string_view>

#include "base/error.h"

namespace sectl::cuda_baseline {

// Success, or an error naming the call and CUDA's words for what went wrong:
// "cudaMallocHost: cudaErrorMemoryAllocation (out of memory)".
inline Expected<void> Check(cudaError_t error, std::string_view call) {
  if (error == cudaSuccess) return {};
  return Fail(ErrorCode::kPluginError,
              fmt::format("{}: {} ({})", call, cudaGetErrorName(error), cudaGetErrorString(error)));
}

}  // namespace sectl::cuda_baseline
