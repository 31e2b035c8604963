// Owned, 64-byte aligned blocks of host memory: what every allocation of
// this plugin (device, host-pinned and unified memory alike) hands out.

#ifndef SECTL_REFERENCE_PLUGINS_CPU_ALIGNED_BUFFER_H_
#define SECTL_REFERENCE_PLUGINS_CPU_ALIGNED_BUFFER_H_

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>

namespace sectl_plugin::cpu {

// TensorFlow CHECKs that tensor buffers are aligned to its
// Allocator::kAllocatorAlignment, which is 64.
inline constexpr uint64_t kAllocationAlignment = 64;

struct FreeDeleter {
  void operator()(void* memory) const { std::free(memory); }
};

using AlignedBuffer = std::unique_ptr<void, FreeDeleter>;

// `size` bytes aligned to kAllocationAlignment; null for size 0, for sizes
// too large to round up, and when the system is out of memory.
inline AlignedBuffer AllocateAligned(uint64_t size) {
  if (size == 0 || size > std::numeric_limits<size_t>::max() - kAllocationAlignment) {
    return nullptr;
  }
  // aligned_alloc wants a multiple of the alignment.
  const size_t rounded = (size + kAllocationAlignment - 1) & ~(kAllocationAlignment - 1);
  return AlignedBuffer(std::aligned_alloc(kAllocationAlignment, rounded));
}

}  // namespace sectl_plugin::cpu

#endif  // SECTL_REFERENCE_PLUGINS_CPU_ALIGNED_BUFFER_H_
