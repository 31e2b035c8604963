// Memory: device memory from cudaMalloc, pinned host memory from
// cudaMallocHost, managed ("unified") memory from cudaMallocManaged, and the
// accounting TensorFlow sizes its memory pool from.

#include <cuda_runtime_api.h>

#include "../common/entry_guard.h"
#include "../common/host_struct.h"
#include "argument_checks.h"
#include "callbacks.h"
#include "device_state.h"

namespace sectl_plugin::cuda {
namespace {

// Free and total memory of the device, as the driver sees them (other
// processes' use included). False if the query fails.
bool QueryDeviceMemory(const DeviceState& state, size_t& free, size_t& total) {
  return state.Activate() == cudaSuccess && cudaMemGetInfo(&free, &total) == cudaSuccess;
}

}  // namespace

void Allocate(const SP_Device* device, uint64_t size, int64_t /*memory_space*/,
              SP_DeviceMemoryBase* memory) noexcept {
  if (memory == nullptr) return;
  HostStruct<SP_DeviceMemoryBase> out(memory, SP_DEVICE_MEMORY_BASE_STRUCT_SIZE);
  // Memory we could not hand back would be leaked.
  if (!out.Has(&SP_DeviceMemoryBase::opaque)) return;
  DeviceState* state = StateOf(device);
  void* address = state != nullptr
                      ? GuardedValue<void*>(nullptr, [&] { return state->Allocate(size); })
                      : nullptr;
  // Failure (size 0, out of memory) is a null address of size 0: allocate
  // has no status to report through.
  out.Set(&SP_DeviceMemoryBase::opaque, address);
  out.Set(&SP_DeviceMemoryBase::size, address != nullptr ? size : 0);
  out.Set(&SP_DeviceMemoryBase::payload, 0);
  out.WriteBackSize();
}

void Deallocate(const SP_Device* device, SP_DeviceMemoryBase* memory) noexcept {
  DeviceState* state = StateOf(device);
  if (state == nullptr || memory == nullptr) return;
  // Only `opaque` is used: TensorFlow frees with size and payload left 0.
  GuardedCall(nullptr, [&] { state->Deallocate(memory->opaque); });
}

// Page-locked host memory: copies from and to it run as DMA without a
// staging copy, and asynchronously with respect to the host.
void* HostMemoryAllocate(const SP_Device* device, uint64_t size) noexcept {
  const DeviceState* state = StateOf(device);
  if (state == nullptr || size == 0 || state->Activate() != cudaSuccess) return nullptr;
  void* memory = nullptr;
  return cudaMallocHost(&memory, size) == cudaSuccess ? memory : nullptr;
}

void HostMemoryDeallocate(const SP_Device* /*device*/, void* memory) noexcept {
  if (memory != nullptr) cudaFreeHost(memory);
}

// Managed memory migrates between host and device on demand, so the driver
// would hand out more than the card holds and page it in and out. The host
// asks for device memory here, so more than the card has free is refused.
void* UnifiedMemoryAllocate(const SP_Device* device, uint64_t bytes) noexcept {
  const DeviceState* state = StateOf(device);
  size_t free = 0;
  size_t total = 0;
  if (state == nullptr || bytes == 0 || !QueryDeviceMemory(*state, free, total) || bytes > free) {
    return nullptr;
  }
  void* memory = nullptr;
  return cudaMallocManaged(&memory, bytes, cudaMemAttachGlobal) == cudaSuccess ? memory : nullptr;
}

void UnifiedMemoryDeallocate(const SP_Device* device, void* location) noexcept {
  const DeviceState* state = StateOf(device);
  if (state == nullptr || location == nullptr || state->Activate() != cudaSuccess) return;
  cudaFree(location);
}

TF_Bool GetAllocatorStats(const SP_Device* device, SP_AllocatorStats* stats) noexcept {
  const DeviceState* state = StateOf(device);
  if (state == nullptr || stats == nullptr) return false;
  const MemoryStats now = state->memory_stats();
  const int64_t total = state->description().total_memory;

  HostStruct<SP_AllocatorStats> out(stats, SP_ALLOCATORSTATS_STRUCT_SIZE);
  out.Set(&SP_AllocatorStats::num_allocs, now.num_allocs);
  out.Set(&SP_AllocatorStats::bytes_in_use, now.bytes_in_use);
  out.Set(&SP_AllocatorStats::peak_bytes_in_use, now.peak_bytes_in_use);
  out.Set(&SP_AllocatorStats::largest_alloc_size, now.largest_alloc_size);
  // The card's memory is the limit; cudaMalloc enforces it.
  out.Set(&SP_AllocatorStats::has_bytes_limit, 1);
  out.Set(&SP_AllocatorStats::bytes_limit, total);
  // Every allocation goes straight to cudaMalloc: nothing is reserved ahead.
  out.Set(&SP_AllocatorStats::bytes_reserved, 0);
  out.Set(&SP_AllocatorStats::peak_bytes_reserved, 0);
  out.Set(&SP_AllocatorStats::has_bytes_reservable_limit, 0);
  out.Set(&SP_AllocatorStats::bytes_reservable_limit, 0);
  // The driver does not tell the largest free block; 0 means "not known".
  out.Set(&SP_AllocatorStats::largest_free_block_bytes, 0);
  out.WriteBackSize();
  return true;
}

TF_Bool DeviceMemoryUsage(const SP_Device* device, int64_t* free, int64_t* total) noexcept {
  const DeviceState* state = StateOf(device);
  if (state == nullptr || free == nullptr || total == nullptr) return false;
  // TensorFlow sizes its BFC pool from `free`; false fails device creation.
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  if (!QueryDeviceMemory(*state, free_bytes, total_bytes)) return false;
  *free = static_cast<int64_t>(free_bytes);
  *total = static_cast<int64_t>(total_bytes);
  return true;
}

}  // namespace sectl_plugin::cuda
