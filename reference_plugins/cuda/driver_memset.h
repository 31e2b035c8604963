// memset32 through the CUDA driver's cuMemsetD32Async.
//
// The runtime API can only fill bytes (cudaMemsetAsync). For 32-bit words
// this plugin asks the runtime for the driver's own entry point
// (cudaGetDriverEntryPointByVersion) instead of writing a fill kernel: the
// plugin stays ordinary C++ built by the host compiler, with no device code
// to compile for a list of GPU architectures, and it still links no libcuda,
// so it loads on machines without the driver.

#ifndef SECTL_REFERENCE_PLUGINS_CUDA_DRIVER_MEMSET_H_
#define SECTL_REFERENCE_PLUGINS_CUDA_DRIVER_MEMSET_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace sectl_plugin::cuda {

// Enqueues on `stream` a fill of `words` 32-bit words with `pattern` at
// `destination` (4-byte aligned device memory). Returns "" on success, or
// what failed.
std::string EnqueueMemsetWords(void* destination, uint32_t pattern, size_t words,
                               cudaStream_t stream);

}  // namespace sectl_plugin::cuda

#endif  // SECTL_REFERENCE_PLUGINS_CUDA_DRIVER_MEMSET_H_
