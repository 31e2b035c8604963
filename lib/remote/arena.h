// The memory a judge hands a plugin server's plugin (docs/plugin-server.md):
// one shared mapping at the same address in both processes, so that a
// pointer into it means the same bytes on either side. Host-owned structs
// and buffers passed to plugin calls live here; the judge reads what the
// plugin wrote as it reads any answer of the plugin's, defensively.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

#include "base/error.h"

namespace sectl::remote {

class Arena {
 public:
  // A new arena of `bytes` (rounded up to pages), mapped in this process at
  // an address chosen to be free in a freshly started server too.
  static Expected<Arena> Create(size_t bytes);
  // In the server: maps the judge's arena from `descriptor` at `base`.
  static Expected<Arena> Adopt(int descriptor, uintptr_t base, size_t bytes);

  Arena(Arena&& other) noexcept;
  Arena& operator=(Arena&&) = delete;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena();

  int descriptor() const { return descriptor_; }
  uintptr_t base() const { return base_; }
  size_t size() const { return size_; }

  // Whether [address, address + bytes) lies inside the arena.
  bool Contains(const void* address, size_t bytes) const;

  // `bytes` of zeroed memory aligned to 64 bytes, or nullptr when full.
  // Thread-safe.
  void* Allocate(size_t bytes);
  void Free(void* address);

 private:
  Arena(int descriptor, uintptr_t base, size_t size);

  int descriptor_ = -1;
  uintptr_t base_ = 0;
  size_t size_ = 0;
  std::mutex mutex_;
  // Free ranges by start, coalesced on Free; used ranges by start.
  std::map<uintptr_t, size_t> free_;
  std::map<uintptr_t, size_t> used_;
};

}  // namespace sectl::remote
