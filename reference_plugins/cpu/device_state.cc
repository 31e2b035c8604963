#include "device_state.h"

#include <unistd.h>

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "fence.h"

namespace sectl_plugin::cpu {
namespace {

int64_t HalfOfPhysicalMemory() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return std::numeric_limits<int64_t>::max() / 2;
  return static_cast<int64_t>(pages) * page_size / 2;
}

}  // namespace

DeviceState::DeviceState(int ordinal)
    : ordinal_(ordinal),
      hardware_name_("sectl reference CPU device " + std::to_string(ordinal)),
      memory_budget_(HalfOfPhysicalMemory()) {}

DeviceState::~DeviceState() = default;  // `allocations_` frees what is left.

void* DeviceState::Allocate(uint64_t size) {
  if (size == 0) return nullptr;
  const auto signed_size = static_cast<int64_t>(std::min<uint64_t>(size, INT64_MAX));
  {
    std::lock_guard lock(memory_mutex_);
    if (signed_size > memory_budget_ - stats_.bytes_in_use) return nullptr;
  }
  // Allocate outside the lock: it can take long for large sizes. The budget is
  // checked again below, as another thread may have allocated meanwhile.
  AlignedBuffer memory = AllocateAligned(size);
  if (memory == nullptr) return nullptr;

  std::lock_guard lock(memory_mutex_);
  if (signed_size > memory_budget_ - stats_.bytes_in_use) return nullptr;
  void* address = memory.get();
  allocations_.emplace(address, Allocation{std::move(memory), size});
  stats_.num_allocs += 1;
  stats_.bytes_in_use += signed_size;
  stats_.peak_bytes_in_use = std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
  stats_.largest_alloc_size = std::max(stats_.largest_alloc_size, signed_size);
  return address;
}

void DeviceState::Deallocate(void* memory) {
  if (memory == nullptr) return;
  Allocation released;
  {
    std::lock_guard lock(memory_mutex_);
    auto it = allocations_.find(memory);
    if (it == allocations_.end()) return;  // Not ours, or already freed.
    stats_.bytes_in_use -= static_cast<int64_t>(it->second.size);
    released = std::move(it->second);
    allocations_.erase(it);
  }
  // `released` frees the memory here, outside the lock.
}

MemoryStats DeviceState::memory_stats() const {
  std::lock_guard lock(memory_mutex_);
  return stats_;
}

void DeviceState::AddStream(StreamWorker* stream) {
  std::lock_guard lock(streams_mutex_);
  streams_.push_back(stream);
}

void DeviceState::RemoveStream(StreamWorker* stream) {
  std::lock_guard lock(streams_mutex_);
  std::erase(streams_, stream);
}

void DeviceState::SynchronizeAllStreams() {
  // Put a fence on every stream, then wait for them all, so the streams drain
  // in parallel. Holding streams_mutex_ only while enqueueing lets a stream be
  // destroyed meanwhile: destroying a stream runs its queue, fence included.
  std::vector<Fence> fences;
  size_t enqueued = 0;
  try {
    std::lock_guard lock(streams_mutex_);
    fences = std::vector<Fence>(streams_.size());
    for (StreamWorker* stream : streams_) {
      stream->Enqueue(SignalFenceOp{&fences[enqueued]});
      ++enqueued;
    }
  } catch (...) {
    // Fences already enqueued will be signalled: wait for them before they
    // go out of scope.
    for (size_t i = 0; i < enqueued; ++i) fences[i].Wait();
    throw;
  }
  for (Fence& fence : fences) fence.Wait();
}

}  // namespace sectl_plugin::cpu
