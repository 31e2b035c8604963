// A std::pmr memory resource over a plugin server's arena
// (remote/arena.h): containers allocated from it hold bytes both the judge
// and the plugin's process see at the same address. A check's process
// makes it the default resource, so that the host buffers checks hand the
// plugin for copies (host::HostBytes) are memory the plugin can reach,
// while everything else of the judge's stays out of its sight.
#pragma once

#include <cstddef>
#include <memory_resource>

#include "remote/arena.h"

namespace sectl::remote {

class ArenaResource final : public std::pmr::memory_resource {
 public:
  explicit ArenaResource(Arena& arena) : arena_(arena) {}

 private:
  // Throws std::bad_alloc when the arena is full, or for an alignment
  // beyond the arena's 64 bytes (no check asks for one).
  void* do_allocate(size_t bytes, size_t alignment) override;
  void do_deallocate(void* address, size_t bytes, size_t alignment) override;
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }

  Arena& arena_;
};

}  // namespace sectl::remote
