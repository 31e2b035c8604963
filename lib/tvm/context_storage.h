// The storage sectl provides for a device's context (tvm_device_<name>_t).
// The context is opaque to sectl, as it is to TVM: the application owns the
// memory and hands the hooks a pointer. sectl's is zeroed, and guarded: it
// ends at an inaccessible page (to within 16-byte alignment), so a hook
// writing past the size it was given crashes at the write, and the bytes
// before it are filled with a pattern, so a write before it shows.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/error.h"

namespace sectl::tvm {

// --context-bytes' default: room for a driver handle and some state. A
// plugin needing more says so in its documentation (see docs/tvm-profiles.md).
inline constexpr size_t kDefaultContextBytes = 256;

class ContextStorage {
 public:
  static Expected<ContextStorage> Create(size_t bytes);
  ContextStorage(ContextStorage&& other) noexcept;
  ContextStorage& operator=(ContextStorage&&) = delete;
  ContextStorage(const ContextStorage&) = delete;
  ContextStorage& operator=(const ContextStorage&) = delete;
  ~ContextStorage();

  void* context() const { return context_; }
  size_t size() const { return size_; }

  // False once something wrote into the pattern before the context.
  bool PrefixIntact() const;

 private:
  ContextStorage(void* mapping, size_t mapping_bytes, void* context, size_t size);

  void* mapping_;
  size_t mapping_bytes_;
  void* context_;
  size_t size_;
};

}  // namespace sectl::tvm
