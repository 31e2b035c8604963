// A host-owned struct handed to a plugin, with canary bytes right after the
// storage the host really has, so a plugin writing past the end of the
// host's struct (memory corruption inside TensorFlow) is seen.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "remote/arena.h"

namespace sectl::host {

inline constexpr size_t kCanaryBytes = 64;
inline constexpr unsigned char kCanaryValue = 0xA5;

// The bytes a plugin changed past the end of a host's struct: from `first`
// to `end` (exclusive), as offsets from the start of the struct.
struct WritePastEnd {
  size_t first = 0;
  size_t end = 0;
  bool empty() const { return end == first; }
  size_t bytes() const { return end - first; }
};

template <typename T>
class GuardedStruct {
 public:
  // `host_struct_size` is what the host pre-fills in struct_size;
  // `host_bytes` is how much storage that host really has (sizeof of its
  // struct, which is smaller for an older host). With an `arena`, the
  // storage is there, where a plugin server's plugin can reach it
  // (remote/arena.h); canaries and all, so nothing changes for the checks.
  GuardedStruct(size_t host_struct_size, size_t host_bytes, remote::Arena* arena = nullptr)
      : host_bytes_(host_bytes), arena_(arena) {
    static_assert(sizeof(T) + kCanaryBytes <= kStorageBytes);
    if (arena_ != nullptr) {
      storage_ = static_cast<unsigned char*>(arena_->Allocate(kStorageBytes));
      if (storage_ == nullptr) arena_ = nullptr;  // full: the call will fault in the server
    }
    if (storage_ == nullptr) storage_ = inline_storage_.data();
    std::fill(storage_, storage_ + kStorageBytes, kCanaryValue);
    std::memset(storage_, 0, std::max(sizeof(T), host_bytes_));
    std::fill(storage_ + host_bytes_, storage_ + host_bytes_ + kCanaryBytes, kCanaryValue);
    value_ = std::construct_at(reinterpret_cast<T*>(storage_));
    if (host_bytes_ < sizeof(T)) {
      // The tail of T beyond the older host's struct is canary, not struct.
      std::fill(storage_ + host_bytes_, storage_ + sizeof(T), kCanaryValue);
    }
    value_->struct_size = host_struct_size;
  }
  explicit GuardedStruct(size_t host_struct_size) : GuardedStruct(host_struct_size, sizeof(T)) {}
  ~GuardedStruct() {
    if (arena_ != nullptr) arena_->Free(storage_);
  }
  GuardedStruct(const GuardedStruct&) = delete;
  GuardedStruct& operator=(const GuardedStruct&) = delete;

  T* get() { return value_; }
  const T* get() const { return value_; }
  T* operator->() { return value_; }
  const unsigned char* bytes() const { return storage_; }
  size_t host_bytes() const { return host_bytes_; }

  // The bytes the plugin changed past the host's storage; empty when the
  // canary is intact.
  WritePastEnd WrittenPastEnd() const {
    WritePastEnd written;
    for (size_t i = 0; i < kCanaryBytes; ++i) {
      if (storage_[host_bytes_ + i] == kCanaryValue) continue;
      if (written.empty()) written.first = host_bytes_ + i;
      written.end = host_bytes_ + i + 1;
    }
    return written;
  }

 private:
  static constexpr size_t kStorageBytes = 512;
  alignas(std::max_align_t) std::array<unsigned char, kStorageBytes> inline_storage_{};
  unsigned char* storage_ = nullptr;  // inline_storage_, or a block of the arena's
  size_t host_bytes_ = 0;
  remote::Arena* arena_ = nullptr;
  T* value_ = nullptr;
};

// What the plugin wrote past the end of `guarded`, named `name`, in a
// phrase ("TP_Optimizer: 4 bytes written past the end of the host's
// 40-byte struct"); empty when it wrote nothing there.
template <typename T>
std::string DescribeWritePastEnd(const GuardedStruct<T>& guarded, std::string_view name) {
  const WritePastEnd written = guarded.WrittenPastEnd();
  if (written.empty()) return {};
  return fmt::format("{}: {} byte{} written past the end of the host's {}-byte struct", name,
                     written.bytes(), written.bytes() == 1 ? "" : "s", guarded.host_bytes());
}

}  // namespace sectl::host
