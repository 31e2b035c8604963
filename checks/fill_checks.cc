// Fills: mem_zero, memset and memset32 on a stream write exactly their range,
// with the right pattern, at an interior offset of a larger allocation, and
// nothing else. The allocation is set and read back through copies (see
// copy_support.h), so a broken fill fails only its own check.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "conform/check.h"
#include "copy_support.h"

namespace sectl::checks {
namespace {

using copies::CopyBench;
using copies::FencedAllocation;
using copies::FenceLayout;

// Nothing, one byte, an odd size, a range crossing page boundaries, 1 MiB.
constexpr std::array<uint64_t, 5> kByteFillSizes = {0, 1, 13, 8193, (uint64_t{1} << 20) + 5};
// The same for memset32, whose size is in bytes and a multiple of 4.
constexpr std::array<uint64_t, 5> kWordFillSizes = {0, 4, 12, 8196, (uint64_t{1} << 20) + 4};

constexpr uint8_t kBytePattern = 0xA7;
// Four different bytes, none of them 0: a pattern stored in the wrong byte
// order, or only in part, shows.
constexpr uint32_t kWordPattern = 0x9E3779B9;

// One fill under test: how to enqueue it, and what it must leave in its range.
struct Fill {
  abi::PluginFunction function;
  std::span<const uint64_t> sizes;
  std::function<Expected<void>(host::Stream&, SP_DeviceMemoryBase range, uint64_t size)> enqueue;
  std::function<void(std::span<unsigned char> range)> paint;
  // Sentinel bytes after the range per byte of it, besides the usual ones:
  // room for a fill that writes a multiple of its size to land in sentinels
  // rather than in someone else's memory.
  uint64_t extra_tail_per_byte = 0;
  // Why any problem with this fill matters to TensorFlow.
  std::string_view consequence;
  // Words for what went wrong in `actual`, when there is a likely cause to
  // name ("" otherwise); it may explain the cause once in `problems`.
  std::function<std::string(const FenceLayout&, std::span<const unsigned char> actual,
                            copies::Problems& problems)>
      diagnose = nullptr;
  // Problems fail the check; for a fill TensorFlow never calls, they warn.
  bool required = true;
};

// Adds to `problems` what is wrong after one fill of `size` bytes.
void FillOnce(conform::CheckContext& check, CopyBench& bench, const Fill& fill, uint64_t size,
              copies::Problems& problems) {
  const FenceLayout layout{.size = size,
                           .tail = copies::kSentinelBytes + fill.extra_tail_per_byte * size};
  FencedAllocation target = bench.Fence(layout, copies::kBackgroundSeed);
  const std::string operation =
      fmt::format("{} of {} at byte {} of a {}-byte allocation", copies::MemberOf(fill.function),
                  copies::CountOfBytes(size), layout.offset, layout.total());
  const SP_DeviceMemoryBase range = target.range();
  if (auto filled = bench.engine().OnStream(
          [&](host::Stream& stream) { return fill.enqueue(stream, range, size); });
      !filled) {
    copies::BlockIfOnlyUsed(check, operation, filled.error());
    problems.Add(fmt::format("{} failed: {}", operation, filled.error().message()));
    return;
  }
  fill.paint(target.expected_range());
  auto actual = bench.ReadBack(target);
  if (!actual) {
    copies::BlockIfOnlyUsed(check, "reading the allocation back after " + operation,
                            actual.error());
    problems.Add(fmt::format("after {}, reading the allocation back through {} failed: {}",
                             operation, copies::MemberOf(target.path().reader),
                             actual.error().message()));
    return;
  }
  copies::Damage damage = copies::FindDamage(layout, target.expected(), *actual);
  if (damage.none()) return;
  if (fill.diagnose) {
    if (std::string cause = fill.diagnose(layout, *actual, problems); !cause.empty()) {
      damage.description += "; " + cause;
    }
  }
  if (fill.required) {
    problems.Add(operation, damage);
  } else {
    // Only a fill TensorFlow calls corrupts TensorFlow's tensors.
    problems.Add(fmt::format("{}: {}", operation, damage.description));
  }
}

void CheckFill(conform::CheckContext& check, const Fill& fill) {
  copies::SkipUnlessProvided(check, fill.function);
  CopyBench bench(check, std::nullopt);
  copies::Problems problems;
  for (const uint64_t size : fill.sizes) FillOnce(check, bench, fill, size, problems);
  check.details() = {{"sizes", fill.sizes},
                     {"offset_in_allocation", copies::kSentinelBytes},
                     {"verified_through", bench.PathsUsed()}};
  if (problems.empty()) return;
  problems.Explain(fill.consequence);
  if (fill.required) {
    check.Fail(problems.Describe());
  } else {
    check.Warn(problems.Describe());
  }
}

// The bytes of kWordPattern as the device stores them (the host's order:
// a PluggableDevice shares the host's endianness).
std::array<unsigned char, 4> WordPatternBytes() {
  std::array<unsigned char, 4> bytes{};
  std::memcpy(bytes.data(), &kWordPattern, bytes.size());
  return bytes;
}

// Names the classic memset32 mistake when `actual` shows it: the pattern
// over 4 × size bytes, size taken as a count of 32-bit words.
std::string DiagnoseWordCountAsSize(const FenceLayout& layout,
                                    std::span<const unsigned char> actual,
                                    copies::Problems& problems) {
  const uint64_t written = 4 * layout.size;
  if (layout.size == 0 || layout.offset + written > actual.size()) return {};
  const auto pattern = WordPatternBytes();
  for (uint64_t i = 0; i < written; ++i) {
    if (actual[layout.offset + i] != pattern[i % 4]) return {};
  }
  problems.Explain(
      "memset32 takes size as a count of 32-bit words, but TensorFlow passes a count of bytes (a "
      "multiple of 4), as its own test of memset32 does");
  return fmt::format("it filled {} bytes, 4 × the size", written);
}

}  // namespace

SECTL_CHECK("fill.mem_zero", kRequired,
            "mem_zero on a stream zeroes exactly the bytes asked for in an interior range, and "
            "nothing else",
            .tests = {kMemZero},
            .severity_reason =
                "TensorFlow 2.7 and later validate mem_zero and zero-initialise "
                "device tensors with it (e.g. TensorList, zeros_like): a fill "
                "that does nothing leaves garbage where zeros belong",
            .establishes =
                "`mem_zero` on a stream of 0, 1, 13, 8193 and 1 MiB+5 bytes at byte 256 of a "
                "larger allocation: exactly that range reads back as zeros, and the sentinels "
                "around it are unchanged",
            .common_mistakes =
                "Zeroing only part of the range (the faulty plugin zeroes the first half); a "
                "fill that does nothing (the field-style faulty plugin's, beside a broken "
                "`host_callback`); `mem_zero` left unset (the community sample, written for "
                "TensorFlow 2.6 and older, sets none of the fill functions).",
            .how_to_fix = "Zero exactly `size` bytes at `location->opaque` in stream order.",
            .proven_by = "`MEM_ZERO_PARTIAL`, `MEM_ZERO_NOOP` (with a broken host_callback)") {
  CheckFill(
      check,
      {.function = abi::PluginFunction::kMemZero,
       .sizes = kByteFillSizes,
       .enqueue = [](host::Stream& stream, SP_DeviceMemoryBase range,
                     uint64_t size) { return stream.MemZero(range, size); },
       .paint = [](std::span<unsigned char> range) { std::fill(range.begin(), range.end(), 0); },
       .consequence = "TensorFlow zero-initialises device tensors through mem_zero"});
}

SECTL_CHECK("fill.memset", kRecommended,
            "memset on a stream writes its byte to exactly the bytes asked for in an interior "
            "range, and nothing else",
            .tests = {kMemset},
            .severity_reason =
                "TensorFlow 2.7 and later validate that memset is set, but no "
                "released TensorFlow calls the 8-bit memset itself",
            .establishes =
                "`memset` on a stream writes the byte 0xA7 to exactly 0, 1, 13, 8193 and 1 MiB+5 "
                "bytes at byte 256 of a larger allocation, and nothing around them (a problem "
                "warns: TensorFlow never calls it)",
            .common_mistakes =
                "Implementing the 8-bit fill with a 32-bit fill without replicating the byte, so "
                "the pattern lands in every fourth byte (the faulty plugin); a fill that does "
                "nothing.",
            .how_to_fix =
                "Write `pattern` to each of the `size` bytes; to use a 32-bit fill, replicate "
                "the byte into all four (`pattern * 0x01010101u`) and handle a tail that is not "
                "a multiple of 4.",
            .proven_by = "`MEMSET_WRONG_PATTERN`, `MEMSET_NOOP`") {
  CheckFill(check,
            {.function = abi::PluginFunction::kMemset,
             .sizes = kByteFillSizes,
             .enqueue = [](host::Stream& stream, SP_DeviceMemoryBase range,
                           uint64_t size) { return stream.Memset8(range, kBytePattern, size); },
             .paint =
                 [](std::span<unsigned char> range) {
                   std::fill(range.begin(), range.end(), kBytePattern);
                 },
             .consequence = "TensorFlow requires memset to be set but never calls it itself, so "
                            "only other callers of the plugin would see this",
             .required = false});
}

SECTL_CHECK("fill.memset32", kRequired,
            "memset32 on a stream writes its 32-bit pattern over exactly the size in bytes asked "
            "for in an interior range, and nothing else",
            .tests = {kMemset32},
            .severity_reason =
                "TensorFlow 2.7 and later validate memset32 and fill 32-bit "
                "tensors with it (size in bytes): a wrong fill corrupts those "
                "tensors or their neighbours",
            .establishes =
                "`memset32` on a stream with the pattern 0x9E3779B9 and sizes of 0, 4, 12, 8196 "
                "and 1 MiB+4 bytes: exactly `size` bytes (size/4 words) at byte 256 of a larger "
                "allocation hold the pattern, and nothing after them (room is left for a fill 4 "
                "times too long to be seen and named)",
            .common_mistakes =
                "Taking `size` as a count of 32-bit words and filling 4 times as many bytes: the "
                "VEDA plugin passes `size` straight to `vedaMemsetD32Async`, which looks like "
                "element-count semantics.",
            .how_to_fix =
                "`size` is in bytes and a multiple of 4: fill `size / 4` words (pass `size / 4` "
                "to a driver call that counts elements).",
            .proven_by = "`MEMSET32_ELEMENT_COUNT`") {
  CheckFill(check,
            {.function = abi::PluginFunction::kMemset32,
             .sizes = kWordFillSizes,
             .enqueue = [](host::Stream& stream, SP_DeviceMemoryBase range,
                           uint64_t size) { return stream.Memset32(range, kWordPattern, size); },
             .paint =
                 [](std::span<unsigned char> range) {
                   const auto pattern = WordPatternBytes();
                   for (size_t i = 0; i < range.size(); ++i) range[i] = pattern[i % 4];
                 },
             // Room for the classic mistake, 4 × the size, to land in sentinels.
             .extra_tail_per_byte = 3,
             .consequence = "TensorFlow fills 32-bit tensors through memset32",
             .diagnose = DiagnoseWordCountAsSize});
}

}  // namespace sectl::checks
