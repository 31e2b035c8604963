// Owning handles for CUDA streams and events: each is destroyed exactly once,
// by its owner, however the owner goes away.

#ifndef SECTL_REFERENCE_PLUGINS_CUDA_CUDA_RESOURCES_H_
#define SECTL_REFERENCE_PLUGINS_CUDA_CUDA_RESOURCES_H_

#include <cuda_runtime_api.h>

#include <memory>
#include <type_traits>

namespace sectl_plugin::cuda {

struct StreamDestroyer {
  void operator()(cudaStream_t stream) const noexcept { cudaStreamDestroy(stream); }
};
struct EventDestroyer {
  void operator()(cudaEvent_t event) const noexcept { cudaEventDestroy(event); }
};

// cudaStream_t and cudaEvent_t are pointers to opaque structs, which is what
// std::unique_ptr needs.
using CudaStream = std::unique_ptr<std::remove_pointer_t<cudaStream_t>, StreamDestroyer>;
using CudaEvent = std::unique_ptr<std::remove_pointer_t<cudaEvent_t>, EventDestroyer>;

// A stream that does not synchronise with the legacy default stream: the
// plugin's streams order work among themselves only where the host asks.
inline cudaError_t NewCudaStream(CudaStream& stream) {
  cudaStream_t created = nullptr;
  const cudaError_t error = cudaStreamCreateWithFlags(&created, cudaStreamNonBlocking);
  if (error == cudaSuccess) stream.reset(created);
  return error;
}

// An event that marks a point in a stream; `timing` makes it usable with
// cudaEventElapsedTime, which costs a little on every record.
inline cudaError_t NewCudaEvent(CudaEvent& event, bool timing) {
  cudaEvent_t created = nullptr;
  const cudaError_t error =
      cudaEventCreateWithFlags(&created, timing ? cudaEventDefault : cudaEventDisableTiming);
  if (error == cudaSuccess) event.reset(created);
  return error;
}

}  // namespace sectl_plugin::cuda

#endif  // SECTL_REFERENCE_PLUGINS_CUDA_CUDA_RESOURCES_H_
