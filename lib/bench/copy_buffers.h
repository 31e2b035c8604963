// Host buffers for copy measurements, and the data pattern copies are
// verified with.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "base/error.h"

namespace sectl::bench {

// Ordinary (pageable) host memory, page aligned so every copy starts on the
// same footing as the plugin's own allocations.
class PageableBuffer {
 public:
  static Expected<PageableBuffer> Allocate(uint64_t bytes);

  std::byte* data() const { return data_.get(); }
  uint64_t size() const { return size_; }
  std::span<std::byte> bytes() const { return {data_.get(), size_}; }

 private:
  // The deleter that makes std::aligned_alloc's memory RAII.
  struct Free {
    void operator()(std::byte* memory) const {
      std::free(memory);  // NOLINT(cppcoreguidelines-no-malloc,cppcoreguidelines-owning-memory)
    }
  };
  PageableBuffer(std::byte* data, uint64_t size) : data_(data), size_(size) {}

  std::unique_ptr<std::byte, Free> data_;
  uint64_t size_ = 0;
};

// Fills `bytes` with a pseudo-random pattern (xorshift64*) determined by
// `seed`, so a copy that moved the wrong bytes, or none, cannot match.
void FillPattern(std::span<std::byte> bytes, uint64_t seed);

// "byte 4096 of 67108864: expected 0x3a, found 0x00", or nullopt when equal.
std::optional<std::string> FirstMismatch(std::span<const std::byte> expected,
                                         std::span<const std::byte> found);

}  // namespace sectl::bench
