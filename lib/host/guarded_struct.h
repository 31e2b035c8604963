// A host-owned struct handed to a plugin, with canary bytes right after the
// storage the host really has, so a plugin writing past the end of the
// host's struct (memory corruption inside TensorFlow) is seen.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <memory>

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
  // struct, which is smaller for an older host).
  GuardedStruct(size_t host_struct_size, size_t host_bytes) : host_bytes_(host_bytes) {
    static_assert(sizeof(T) + kCanaryBytes <= kStorageBytes);
    std::fill(storage_.begin(), storage_.end(), kCanaryValue);
    std::memset(storage_.data(), 0, std::max(sizeof(T), host_bytes_));
    std::fill(storage_.begin() + host_bytes_, storage_.begin() + host_bytes_ + kCanaryBytes,
              kCanaryValue);
    value_ = std::construct_at(reinterpret_cast<T*>(storage_.data()));
    if (host_bytes_ < sizeof(T)) {
      // The tail of T beyond the older host's struct is canary, not struct.
      std::fill(storage_.begin() + host_bytes_, storage_.begin() + sizeof(T), kCanaryValue);
    }
    value_->struct_size = host_struct_size;
  }
  explicit GuardedStruct(size_t host_struct_size) : GuardedStruct(host_struct_size, sizeof(T)) {}
  ~GuardedStruct() = default;
  GuardedStruct(const GuardedStruct&) = delete;
  GuardedStruct& operator=(const GuardedStruct&) = delete;

  T* get() { return value_; }
  const T* get() const { return value_; }
  T* operator->() { return value_; }
  const unsigned char* bytes() const { return storage_.data(); }
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
  alignas(std::max_align_t) std::array<unsigned char, kStorageBytes> storage_{};
  size_t host_bytes_ = 0;
  T* value_ = nullptr;
};

}  // namespace sectl::host
