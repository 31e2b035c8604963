#include "device_state.h"

#include <algorithm>
#include <climits>
#include <utility>

#include "../common/entry_guard.h"
#include "cuda_status.h"

namespace sectl_plugin::cuda {

std::unique_ptr<DeviceState> DeviceState::Create(int ordinal, TF_Status* status) {
  // cudaSetDevice creates the device's primary context (CUDA 12 and newer),
  // so a device that cannot be used fails here rather than at first use.
  if (!CudaSucceeded(cudaSetDevice(ordinal), "cudaSetDevice", status)) return nullptr;
  DeviceDescription description;
  if (!CudaSucceeded(DescribeDevice(ordinal, description), "describing the device", status)) {
    return nullptr;
  }
  CudaStream sync_stream;
  if (!CudaSucceeded(NewCudaStream(sync_stream), "cudaStreamCreateWithFlags", status)) {
    return nullptr;
  }
  return std::make_unique<DeviceState>(ordinal, std::move(description), std::move(sync_stream));
}

DeviceState::DeviceState(int ordinal, DeviceDescription description, CudaStream sync_stream)
    : ordinal_(ordinal),
      description_(std::move(description)),
      sync_stream_(std::move(sync_stream)) {}

DeviceState::~DeviceState() {
  // The runtime may already be gone if the process is exiting; then these
  // calls fail harmlessly and the driver reclaims the memory with the process.
  if (Activate() != cudaSuccess) return;
  for (const auto& [memory, size] : allocation_sizes_) cudaFree(memory);
}

void* DeviceState::Allocate(uint64_t size) {
  if (size == 0 || size > INT64_MAX || Activate() != cudaSuccess) return nullptr;
  void* memory = nullptr;
  if (cudaMalloc(&memory, size) != cudaSuccess) return nullptr;

  const auto signed_size = static_cast<int64_t>(size);
  std::lock_guard lock(memory_mutex_);
  allocation_sizes_.emplace(memory, size);
  stats_.num_allocs += 1;
  stats_.bytes_in_use += signed_size;
  stats_.peak_bytes_in_use = std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
  stats_.largest_alloc_size = std::max(stats_.largest_alloc_size, signed_size);
  return memory;
}

void DeviceState::Deallocate(void* memory) {
  if (memory == nullptr) return;
  {
    std::lock_guard lock(memory_mutex_);
    auto it = allocation_sizes_.find(memory);
    if (it == allocation_sizes_.end()) return;  // Not ours, or already freed.
    stats_.bytes_in_use -= static_cast<int64_t>(it->second);
    allocation_sizes_.erase(it);
  }
  // cudaFree waits for the device to finish its work first, so memory that
  // queued work still uses is never handed out again under it.
  if (Activate() == cudaSuccess) cudaFree(memory);
}

MemoryStats DeviceState::memory_stats() const {
  std::lock_guard lock(memory_mutex_);
  return stats_;
}

}  // namespace sectl_plugin::cuda
