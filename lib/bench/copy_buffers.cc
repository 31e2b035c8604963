#include "bench/copy_buffers.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace sectl::bench {

Expected<PageableBuffer> PageableBuffer::Allocate(uint64_t bytes) {
  const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t rounded = (bytes + page - 1) / page * page;
  PageableBuffer buffer(static_cast<std::byte*>(std::aligned_alloc(page, rounded)), bytes);
  if (buffer.data() == nullptr) {
    return Fail(ErrorCode::kFailedPrecondition,
                fmt::format("cannot allocate {} bytes of host memory", bytes));
  }
  return buffer;
}

void FillPattern(std::span<std::byte> bytes, uint64_t seed) {
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  size_t i = 0;
  for (; i + sizeof(uint64_t) <= bytes.size(); i += sizeof(uint64_t)) {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    const uint64_t word = state * 0x2545F4914F6CDD1Dull;
    std::memcpy(bytes.data() + i, &word, sizeof(word));
  }
  for (; i < bytes.size(); ++i) bytes[i] = static_cast<std::byte>(i * 131 + seed);
}

std::optional<std::string> FirstMismatch(std::span<const std::byte> expected,
                                         std::span<const std::byte> found) {
  const size_t length = std::min(expected.size(), found.size());
  if (std::memcmp(expected.data(), found.data(), length) == 0) return std::nullopt;
  // memcmp found a difference. `found` may be changing under us (a copy a
  // plugin said was done, still arriving: completion_probe.cc), so each
  // byte is read once and the search stays within the buffers.
  for (size_t index = 0; index < length; ++index) {
    const std::byte want = expected[index];
    const std::byte got = found[index];
    if (want != got) {
      return fmt::format("byte {} of {}: expected 0x{:02x}, found 0x{:02x}", index, expected.size(),
                         static_cast<unsigned>(want), static_cast<unsigned>(got));
    }
  }
  return std::nullopt;  // the difference arrived at the right bytes meanwhile
}

}  // namespace sectl::bench
