// Owning handles for what a raw copy measurement allocates from CUDA: each
// is released exactly once, however the measurement ends.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>

#include "base/error.h"
#include "cuda_error.h"

namespace sectl::cuda_baseline {

struct FreeDevice {
  void operator()(std::byte* memory) const noexcept { cudaFree(memory); }
};
struct FreePinned {
  void operator()(std::byte* memory) const noexcept { cudaFreeHost(memory); }
};
struct DestroyStream {
  void operator()(cudaStream_t stream) const noexcept { cudaStreamDestroy(stream); }
};
struct DestroyEvent {
  void operator()(cudaEvent_t event) const noexcept { cudaEventDestroy(event); }
};

using DeviceMemory = std::unique_ptr<std::byte, FreeDevice>;  // cudaMalloc
using PinnedMemory = std::unique_ptr<std::byte, FreePinned>;  // cudaMallocHost
using Stream = std::unique_ptr<std::remove_pointer_t<cudaStream_t>, DestroyStream>;
using Event = std::unique_ptr<std::remove_pointer_t<cudaEvent_t>, DestroyEvent>;

inline Expected<DeviceMemory> AllocateDevice(uint64_t bytes) {
  void* memory = nullptr;
  if (auto done = Check(cudaMalloc(&memory, bytes), "cudaMalloc"); !done) {
    return tl::unexpected(done.error());
  }
  return DeviceMemory(static_cast<std::byte*>(memory));
}

inline Expected<PinnedMemory> AllocatePinned(uint64_t bytes) {
  void* memory = nullptr;
  if (auto done = Check(cudaMallocHost(&memory, bytes), "cudaMallocHost"); !done) {
    return tl::unexpected(done.error());
  }
  return PinnedMemory(static_cast<std::byte*>(memory));
}

// A stream that does not synchronise with the legacy default stream, as the
// sectl_cuda plugin's streams.
inline Expected<Stream> CreateStream() {
  cudaStream_t stream = nullptr;
  if (auto done =
          Check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
      !done) {
    return tl::unexpected(done.error());
  }
  return Stream(stream);
}

// An event usable with cudaEventElapsedTime.
inline Expected<Event> CreateTimingEvent() {
  cudaEvent_t event = nullptr;
  if (auto done = Check(cudaEventCreate(&event), "cudaEventCreate"); !done) {
    return tl::unexpected(done.error());
  }
  return Event(event);
}

// An event for ordering and polling only, as the sectl_cuda plugin's events
// (create_event): no timestamps, so recording and querying cost less.
inline Expected<Event> CreateSyncEvent() {
  cudaEvent_t event = nullptr;
  if (auto done = Check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming),
                        "cudaEventCreateWithFlags");
      !done) {
    return tl::unexpected(done.error());
  }
  return Event(event);
}

}  // namespace sectl::cuda_baseline
