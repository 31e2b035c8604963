// Content-based judgements of TVM DeviceAPI memory: see tvm_memory_support.h.
#include "tvm_memory_support.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "conform/check_support.h"
#include "tvm/data_pointer_kind.h"

namespace sectl::checks {
namespace {

using tvm::Side;

// The most bytes written at each offset: enough to show a lost or misplaced
// copy without moving a whole 64 MiB data space.
constexpr size_t kWindow = 4096;

void Write(conform::CheckContext& check, tvm::DeviceApiRoute& api, int id, void* pointer,
           size_t offset, const conform::HostBytes& bytes) {
  check.Require(api.CopyDataFromTo({Side::kHost, const_cast<unsigned char*>(bytes.data()), 0},
                                   {Side::kDevice, pointer, offset}, bytes.size(), id, nullptr),
                "CopyDataFromTo host to device");
}

conform::HostBytes Read(conform::CheckContext& check, tvm::DeviceApiRoute& api, int id,
                        void* pointer, size_t offset, size_t bytes) {
  conform::HostBytes out(bytes);
  check.Require(api.CopyDataFromTo({Side::kDevice, pointer, offset}, {Side::kHost, out.data(), 0},
                                   bytes, id, nullptr),
                "CopyDataFromTo device to host");
  return out;
}

}  // namespace

bool JudgesAddresses(const tvm::DeviceApiRoute& api) {
  return tvm::DataPointerKindOn(api) == tvm::DataPointerKind::kAddress;
}

std::string RoundTripAtAlignedOffsets(conform::CheckContext& check, tvm::DeviceApiRoute& api,
                                      int device_id, void* pointer, size_t bytes, size_t alignment,
                                      unsigned seed) {
  if (bytes == 0) return {};
  // The last multiple of the alignment inside the data space, and what
  // comes before it: two windows that never overlap.
  const size_t last = (bytes - 1) / alignment * alignment;
  std::vector<std::pair<size_t, size_t>> windows;  // (byte_offset, bytes)
  if (last > 0) windows.emplace_back(0, std::min(last, kWindow));
  windows.emplace_back(last, std::min(bytes - last, kWindow));
  std::vector<conform::HostBytes> written;
  for (size_t i = 0; i < windows.size(); ++i) {
    written.push_back(conform::TestPattern(windows[i].second, seed + static_cast<unsigned>(i)));
    Write(check, api, device_id, pointer, windows[i].first, written.back());
  }
  check.Require(api.StreamSync(device_id, nullptr), "StreamSync");
  for (size_t i = 0; i < windows.size(); ++i) {
    const auto [offset, length] = windows[i];
    const auto read = Read(check, api, device_id, pointer, offset, length);
    check.Require(api.StreamSync(device_id, nullptr), "StreamSync");
    if (auto difference = conform::FirstDifference(written[i].data(), read.data(), length);
        !difference.empty()) {
      return fmt::format("{} bytes written at byte_offset {} and read back: {}", length, offset,
                         difference);
    }
  }
  return {};
}

std::string FirstBlockSharingStorage(conform::CheckContext& check, tvm::DeviceApiRoute& api,
                                     int device_id, const std::vector<HeldBlock>& blocks,
                                     const std::string& what) {
  constexpr unsigned kSeed = 90;
  std::vector<conform::HostBytes> patterns;
  for (size_t i = 0; i < blocks.size(); ++i) {
    patterns.push_back(conform::TestPattern(blocks[i].bytes, kSeed + static_cast<unsigned>(i)));
    Write(check, api, device_id, blocks[i].pointer, 0, patterns.back());
  }
  check.Require(api.StreamSync(device_id, nullptr), "StreamSync");
  for (size_t i = 0; i < blocks.size(); ++i) {
    const auto read = Read(check, api, device_id, blocks[i].pointer, 0, blocks[i].bytes);
    check.Require(api.StreamSync(device_id, nullptr), "StreamSync");
    const auto difference =
        conform::FirstDifference(patterns[i].data(), read.data(), blocks[i].bytes);
    if (difference.empty()) continue;
    std::string culprit;
    for (size_t j = i + 1; j < blocks.size() && culprit.empty(); ++j) {
      const size_t common = std::min(blocks[i].bytes, blocks[j].bytes);
      if (std::equal(read.begin(), read.begin() + static_cast<std::ptrdiff_t>(common),
                     patterns[j].begin())) {
        culprit = fmt::format(
            ": it holds the pattern written to {} {} ({} bytes, {}), so the two "
            "share storage though their pointers differ",
            what, j + 1, blocks[j].bytes, blocks[j].pointer);
      }
    }
    return fmt::format(
        "{} {} ({} bytes, {}) does not read back what was written to it once all {} "
        "held together were filled{}{}",
        what, i + 1, blocks[i].bytes, blocks[i].pointer, blocks.size(), culprit.empty() ? ": " : "",
        culprit.empty() ? difference : culprit);
  }
  return {};
}

}  // namespace sectl::checks
