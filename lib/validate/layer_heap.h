// Where the layer keeps what it knows (its object tables and its findings):
// memory of its own, away from the heap the plugin and the host write. A
// plugin that overruns a heap block, or a host that copies through a stale
// pointer, scribbles over the malloc heap; the layer's tables there would
// be corrupted with it, and its report would then lie or be lost. So the
// layer's containers take their memory from mappings of their own, each
// fenced by inaccessible guard pages: a linear overrun into one faults at
// the fence (and the layer's crash handler writes the report) instead of
// rewriting the layer's state. A wild write to an arbitrary address can
// still land anywhere; no user-space layer can prevent that.
#pragma once

#include <cstddef>
#include <memory_resource>
#include <mutex>

namespace sectl::validate {

// An upstream resource of whole mappings with a guard page before and
// after each; a deallocation unmaps its mapping.
class GuardedMappingResource : public std::pmr::memory_resource {
 public:
  GuardedMappingResource() = default;
  ~GuardedMappingResource() override = default;
  GuardedMappingResource(const GuardedMappingResource&) = delete;
  GuardedMappingResource& operator=(const GuardedMappingResource&) = delete;
  GuardedMappingResource(GuardedMappingResource&&) = delete;
  GuardedMappingResource& operator=(GuardedMappingResource&&) = delete;

  // Bytes mapped so far, guard pages excluded.
  size_t mapped_bytes() const;

 private:
  void* do_allocate(size_t bytes, size_t alignment) override;
  void do_deallocate(void* pointer, size_t bytes, size_t alignment) override;
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override;

  mutable std::mutex mutex_;
  size_t mapped_bytes_ = 0;
};

// The resource every layer container allocates from: pools over guarded
// mappings, safe from several threads. Never destroyed (the host's threads
// may call the layer while the process exits).
std::pmr::memory_resource* LayerHeap();

}  // namespace sectl::validate
