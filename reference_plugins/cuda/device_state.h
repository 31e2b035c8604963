// The state behind one CUDA device: what create_device puts in
// SP_Device::device_handle. The host copies SP_Device structs around, so the
// handle, not the SP_Device's address, is the device's identity.

#ifndef SECTL_REFERENCE_PLUGINS_CUDA_DEVICE_STATE_H_
#define SECTL_REFERENCE_PLUGINS_CUDA_DEVICE_STATE_H_

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "cuda_resources.h"
#include "device_description.h"
#include "tensorflow/c/tf_status.h"

namespace sectl_plugin::cuda {

struct MemoryStats {
  int64_t num_allocs = 0;
  int64_t bytes_in_use = 0;
  int64_t peak_bytes_in_use = 0;
  int64_t largest_alloc_size = 0;
};

class DeviceState {
 public:
  // Makes device `ordinal` current on the calling thread (creating its
  // primary context) and describes it. On failure sets `status` and returns null.
  static std::unique_ptr<DeviceState> Create(int ordinal, TF_Status* status);

  DeviceState(int ordinal, DeviceDescription description, CudaStream sync_stream);
  // Frees device memory the host never deallocated. Streams of this device
  // must have been destroyed first (TensorFlow does so).
  ~DeviceState();

  DeviceState(const DeviceState&) = delete;
  DeviceState& operator=(const DeviceState&) = delete;

  int ordinal() const { return ordinal_; }
  const DeviceDescription& description() const { return description_; }

  // Makes this device current on the calling thread. The current device is
  // per thread, and the host may call from any thread, so every entry point
  // that creates or enqueues something calls this first.
  cudaError_t Activate() const { return cudaSetDevice(ordinal_); }

  // --- Device memory (cudaMalloc). Thread-safe. ---

  // Device memory of `size` bytes (256-byte aligned, as cudaMalloc gives);
  // null for size 0 and when the device is out of memory.
  void* Allocate(uint64_t size);
  // Needs only the pointer, because TensorFlow passes nothing else. Null
  // and unknown pointers are ignored.
  void Deallocate(void* memory);
  MemoryStats memory_stats() const;

  // A stream of the plugin's own for the synchronous copies: each is
  // enqueued there and waited for, which keeps them off the legacy default
  // stream (and so from waiting for, or holding up, the host's streams).
  cudaStream_t sync_stream() const { return sync_stream_.get(); }

 private:
  const int ordinal_;
  const DeviceDescription description_;
  const CudaStream sync_stream_;

  // The sizes of live allocations, for bytes_in_use when they are freed by
  // address alone. The statistics sit under the same lock as the map, so a
  // snapshot of them is always consistent with it.
  mutable std::mutex memory_mutex_;
  std::unordered_map<void*, uint64_t> allocation_sizes_;  // Guarded by memory_mutex_.
  MemoryStats stats_;                                     // Guarded by memory_mutex_.
};

}  // namespace sectl_plugin::cuda

#endif  // SECTL_REFERENCE_PLUGINS_CUDA_DEVICE_STATE_H_
