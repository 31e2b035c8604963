// TVM's DeviceAPI contract (include/tvm/runtime/device_api.h and
// docs/arch/device_target_interactions.rst), checked on a StreamExecutor
// plugin through lib/tvm/device_api.h: what a vendor serving TVM as well as
// TensorFlow must also meet. Profile tvm-device-api; see docs/tvm-profiles.md.
#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "conform/check.h"
#include "conform/check_support.h"
#include "tvm/device_api.h"

namespace sectl::checks {
namespace {

using tvm::DeviceApi;
using Side = tvm::DeviceApi::Side;

constexpr const char* kProfile = "tvm-device-api";
constexpr size_t kMiB = size_t{1} << 20;

// The alignments TVM asks AllocDataSpace for: max(64, element size) for
// tensors, and the powers of two up to the 256 CUDA's backend accepts.
constexpr std::array<size_t, 9> kAlignments = {1, 2, 4, 8, 16, 32, 64, 128, 256};
constexpr std::array<size_t, 5> kSizes = {1, 7, 4096, kMiB, kMiB + 3};

int DeviceUnderTest(conform::CheckContext& check) { return check.settings().device_ordinal; }

bool AlignedTo(const void* pointer, size_t alignment) {
  return reinterpret_cast<uintptr_t>(pointer) % alignment == 0;
}

// Reads `bytes` of device memory at `pointer` + `offset`, after a sync.
std::vector<unsigned char> ReadBack(conform::CheckContext& check, DeviceApi& api, int id,
                                    void* pointer, size_t offset, size_t bytes) {
  std::vector<unsigned char> out(bytes);
  check.Require(api.CopyDataFromTo({Side::kDevice, pointer, offset}, {Side::kHost, out.data(), 0},
                                   bytes, id, nullptr),
                "CopyDataFromTo device to host");
  check.Require(api.StreamSync(id, nullptr), "StreamSync");
  return out;
}

}  // namespace

SECTL_CHECK_IN_PROFILES("tvm_device_api.alignment", kRequired,
                        "AllocDataSpace and AllocWorkspace results are aligned to 64 "
                        "(kAllocAlignment, kTempAllocaAlignment) for every size and alignment TVM "
                        "asks; alignments above 64 and the zero-size policy are reported",
                        {kProfile}) {
  DeviceApi api(check.platform());
  const int id = DeviceUnderTest(check);
  nlohmann::json above_64 = nlohmann::json::object();
  for (size_t size : kSizes) {
    for (size_t alignment : kAlignments) {
      void* pointer = check.Require(api.AllocDataSpace(id, size, alignment), "AllocDataSpace");
      const size_t required = std::min(alignment, tvm::kAllocAlignment);
      if (!AlignedTo(pointer, required)) {
        check.Fail(
            fmt::format("AllocDataSpace({} bytes, alignment {}) returned {}, not aligned "
                        "to {}: TVM places tensors there and DLPack consumers (torch, "
                        "numpy) assume 64",
                        size, alignment, pointer, required));
      }
      if (alignment > tvm::kAllocAlignment) {
        above_64[std::to_string(alignment)] =
            above_64.value(std::to_string(alignment), true) && AlignedTo(pointer, alignment);
      }
      check.Require(api.FreeDataSpace(id, pointer), "FreeDataSpace");
    }
    void* workspace = check.Require(api.AllocWorkspace(id, size), "AllocWorkspace");
    if (!AlignedTo(workspace, tvm::kTempAllocaAlignment)) {
      check.Fail(
          fmt::format("AllocWorkspace({} bytes) returned {}, not aligned to "
                      "kTempAllocaAlignment (64), which TVMBackendAllocWorkspace promises",
                      size, workspace));
    }
    check.Require(api.FreeWorkspace(id, workspace), "FreeWorkspace");
  }
  // A TVM backend over this plugin must over-allocate for these itself.
  check.details()["alignments_above_64_honoured"] = above_64;
  auto zero = api.AllocDataSpace(id, 0, tvm::kAllocAlignment);
  check.details()["zero_size"] = !zero              ? "fails: " + zero.error().message()
                                 : *zero == nullptr ? "returns null"
                                                    : "returns a pointer";
  if (zero && *zero != nullptr) check.Require(api.FreeDataSpace(id, *zero), "FreeDataSpace");
}

SECTL_CHECK_IN_PROFILES("tvm_device_api.copy_with_offsets", kRequired,
                        "CopyDataFromTo host to device, device to host and device to device with "
                        "non-zero byte offsets copies exactly those bytes, after StreamSync",
                        {kProfile}) {
  DeviceApi api(check.platform());
  const int id = DeviceUnderTest(check);
  constexpr size_t kAllocation = 3 * 4096 + 17;
  constexpr size_t kBytes = 4096 + 5;
  constexpr size_t kSourceOffset = 1031;
  constexpr size_t kTargetOffset = 4099;
  void* first = check.Require(api.AllocDataSpace(id, kAllocation, 64), "AllocDataSpace");
  void* second = check.Require(api.AllocDataSpace(id, kAllocation, 64), "AllocDataSpace");
  const auto background = conform::TestPattern(kAllocation, 11);
  const auto payload = conform::TestPattern(kBytes + kSourceOffset, 12);
  // Known contents everywhere, then the copies under test.
  for (void* target : {first, second}) {
    check.Require(
        api.CopyDataFromTo({Side::kHost, const_cast<unsigned char*>(background.data()), 0},
                           {Side::kDevice, target, 0}, kAllocation, id, nullptr),
        "CopyDataFromTo host to device");
  }
  check.Require(
      api.CopyDataFromTo({Side::kHost, const_cast<unsigned char*>(payload.data()), kSourceOffset},
                         {Side::kDevice, first, kTargetOffset}, kBytes, id, nullptr),
      "CopyDataFromTo host to device");
  check.Require(api.CopyDataFromTo({Side::kDevice, first, kTargetOffset},
                                   {Side::kDevice, second, kSourceOffset}, kBytes, id, nullptr),
                "CopyDataFromTo device to device");
  check.Require(api.StreamSync(id, nullptr), "StreamSync");

  auto expect_region = [&](void* pointer, size_t offset, const char* what) {
    const auto whole = ReadBack(check, api, id, pointer, 0, kAllocation);
    std::vector<unsigned char> expected = background;
    std::memcpy(expected.data() + offset, payload.data() + kSourceOffset, kBytes);
    const std::string difference =
        conform::FirstDifference(expected.data(), whole.data(), kAllocation);
    if (!difference.empty()) {
      check.Fail(
          fmt::format("{} ({} bytes at byte offset {}): {}", what, kBytes, offset, difference));
    }
  };
  expect_region(first, kTargetOffset, "host to device with offsets");
  expect_region(second, kSourceOffset, "device to device with offsets");
  // Device to host into an interior of a host buffer.
  std::vector<unsigned char> host(kBytes + 64, 0xEE);
  check.Require(api.CopyDataFromTo({Side::kDevice, second, kSourceOffset},
                                   {Side::kHost, host.data(), 32}, kBytes, id, nullptr),
                "CopyDataFromTo device to host");
  check.Require(api.StreamSync(id, nullptr), "StreamSync");
  std::vector<unsigned char> expected(kBytes + 64, 0xEE);
  std::memcpy(expected.data() + 32, payload.data() + kSourceOffset, kBytes);
  const std::string difference =
      conform::FirstDifference(expected.data(), host.data(), host.size());
  if (!difference.empty()) {
    check.Fail(
        fmt::format("device to host at byte offsets {} and 32: {}", kSourceOffset, difference));
  }
  check.Require(api.FreeDataSpace(id, first), "FreeDataSpace");
  check.Require(api.FreeDataSpace(id, second), "FreeDataSpace");
}

SECTL_CHECK_IN_PROFILES(
    "tvm_device_api.host_buffer_reuse", kRecommended,
    "A host-to-device copy does not rely on the host buffer after "
    "CopyDataFromTo returns (TVM's documented rule; TensorFlow does not ask it)",
    {kProfile}) {
  DeviceApi api(check.platform());
  const int id = DeviceUnderTest(check);
  // A long copy first, so that an asynchronous plugin is still busy when
  // the host buffer is overwritten.
  constexpr size_t kBusy = 64 * kMiB;
  constexpr size_t kBytes = 4 * kMiB;
  void* busy_a = check.Require(api.AllocDataSpace(id, kBusy, 64), "AllocDataSpace");
  void* busy_b = check.Require(api.AllocDataSpace(id, kBusy, 64), "AllocDataSpace");
  void* target = check.Require(api.AllocDataSpace(id, kBytes, 64), "AllocDataSpace");
  const auto original = conform::TestPattern(kBytes, 21);
  std::vector<unsigned char> host = original;
  for (int i = 0; i < 4; ++i) {
    check.Require(api.CopyDataFromTo({Side::kDevice, busy_a, 0}, {Side::kDevice, busy_b, 0}, kBusy,
                                     id, nullptr),
                  "CopyDataFromTo device to device");
  }
  check.Require(api.CopyDataFromTo({Side::kHost, host.data(), 0}, {Side::kDevice, target, 0},
                                   kBytes, id, nullptr),
                "CopyDataFromTo host to device");
  std::memset(host.data(), 0, host.size());  // the caller reuses its buffer at once
  check.Require(api.StreamSync(id, nullptr), "StreamSync");
  const auto received = ReadBack(check, api, id, target, 0, kBytes);
  const std::string difference = conform::FirstDifference(original.data(), received.data(), kBytes);
  if (!difference.empty()) {
    check.Warn(fmt::format(
        "the host buffer was overwritten right after CopyDataFromTo (memcpy_htod) returned, "
        "and the device received the new bytes: {}. TVM's documents say a copy may not rely on "
        "the host buffer staying valid after the call; TensorFlow keeps it alive, so this is "
        "only TVM's rule. A TVM backend over this plugin must stage the bytes or synchronise",
        difference));
  }
  for (void* pointer : {busy_a, busy_b, target}) {
    check.Require(api.FreeDataSpace(id, pointer), "FreeDataSpace");
  }
}

SECTL_CHECK_IN_PROFILES("tvm_device_api.sync_stream_from_to", kRequired,
                        "SyncStreamFromTo(from, to) makes `to` wait for the work queued on `from`: "
                        "a copy on `to` reads what `from` wrote",
                        {kProfile}) {
  conform::SkipUnlessProvided(
      check, {abi::PluginFunction::kCreateStream, abi::PluginFunction::kCreateStreamDependency,
              abi::PluginFunction::kHostCallback});
  DeviceApi api(check.platform());
  const int id = DeviceUnderTest(check);
  constexpr size_t kBytes = 2 * kMiB;
  constexpr int kRounds = 3;
  auto from = check.Require(api.CreateStream(id), "CreateStream");
  auto to = check.Require(api.CreateStream(id), "CreateStream");
  void* a = check.Require(api.AllocDataSpace(id, kBytes, 64), "AllocDataSpace");
  void* b = check.Require(api.AllocDataSpace(id, kBytes, 64), "AllocDataSpace");
  void* c = check.Require(api.AllocDataSpace(id, kBytes, 64), "AllocDataSpace");
  for (int round = 0; round < kRounds; ++round) {
    const auto fresh = conform::TestPattern(kBytes, 40 + static_cast<unsigned>(round));
    const auto stale = conform::TestPattern(kBytes, 80 + static_cast<unsigned>(round));
    for (auto [pointer, bytes] :
         {std::pair{a, &fresh}, std::pair{b, &stale}, std::pair{c, &stale}}) {
      check.Require(api.CopyDataFromTo({Side::kHost, const_cast<unsigned char*>(bytes->data()), 0},
                                       {Side::kDevice, pointer, 0}, kBytes, id, nullptr),
                    "CopyDataFromTo host to device");
    }
    check.Require(api.StreamSync(id, nullptr), "StreamSync");
    // `from` is held up by a slow host callback, then copies a -> b.
    check.Require(from->EnqueueHostCallback([](TF_Status*) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }),
                  "host_callback");
    check.Require(
        api.CopyDataFromTo({Side::kDevice, a, 0}, {Side::kDevice, b, 0}, kBytes, id, from),
        "CopyDataFromTo device to device");
    check.Require(api.SyncStreamFromTo(id, from, to), "SyncStreamFromTo");
    check.Require(api.CopyDataFromTo({Side::kDevice, b, 0}, {Side::kDevice, c, 0}, kBytes, id, to),
                  "CopyDataFromTo device to device");
    check.Require(api.StreamSync(id, to), "StreamSync");  // only `to`
    const auto result = ReadBack(check, api, id, c, 0, kBytes);
    check.Require(api.StreamSync(id, from), "StreamSync");
    if (const auto difference = conform::FirstDifference(fresh.data(), result.data(), kBytes);
        !difference.empty()) {
      check.Abort(
          fmt::format("round {}: after SyncStreamFromTo(from, to) (create_stream_dependency), "
                      "a copy on `to` read data `from` had not yet written: {}",
                      round + 1, difference));
    }
  }
}

SECTL_CHECK_IN_PROFILES("tvm_device_api.workspace_reuse", kRecommended,
                        "AllocWorkspace/FreeWorkspace in stack order and out of order, 100 times, "
                        "leave available memory where it was",
                        {kProfile}) {
  DeviceApi api(check.platform());
  const int id = DeviceUnderTest(check);
  const auto* device = check.Require(api.DeviceOf(id), "creating the device");
  auto before = device->QueryMemoryUsage();
  if (!before) check.Skip("device_memory_usage fails (memory.usage reports it)");
  constexpr std::array<size_t, 4> kWorkspaces = {4096, size_t{64} * 1024, 1000, kMiB};
  for (int round = 0; round < 100; ++round) {
    std::array<void*, kWorkspaces.size()> held{};
    for (size_t i = 0; i < kWorkspaces.size(); ++i) {
      held[i] = check.Require(api.AllocWorkspace(id, kWorkspaces[i]), "AllocWorkspace");
    }
    // Even rounds free in stack order, odd ones out of order.
    const std::array<size_t, 4> order =
        round % 2 == 0 ? std::array<size_t, 4>{3, 2, 1, 0} : std::array<size_t, 4>{1, 3, 0, 2};
    for (size_t i : order) check.Require(api.FreeWorkspace(id, held[i]), "FreeWorkspace");
  }
  auto after = check.Require(device->QueryMemoryUsage(), "device_memory_usage");
  check.details()["available_before"] = before->free_bytes;
  check.details()["available_after"] = after.free_bytes;
  if (after.free_bytes < before->free_bytes) {
    check.Warn(
        fmt::format("available memory fell from {} to {} bytes over 100 rounds of "
                    "workspace allocation and release: freed workspaces are not returned",
                    before->free_bytes, after.free_bytes));
  }
}

SECTL_CHECK_IN_PROFILES("tvm_device_api.exist", kRequired,
                        "GetAttr(kExist) answers 1 for every ordinal below the device count and 0 "
                        "for count, count+1 and -1, without error, the same each time",
                        {kProfile}) {
  DeviceApi api(check.platform());
  const int count = check.Require(check.platform().DeviceCount(), "get_device_count");
  for (int round = 0; round < 3; ++round) {
    for (int id : {-1, 0, count - 1, count, count + 1}) {
      const auto value = api.GetAttr(id, tvm::DeviceAttrKind::kExist);
      if (!value) {
        check.Abort(
            fmt::format("GetAttr({}, kExist) failed: {}; TVM callers expect 0 or 1, "
                        "never an error",
                        id, value.error().message()));
      }
      const int64_t expected = id >= 0 && id < count ? 1 : 0;
      const auto* answer = std::get_if<int64_t>(&*value);
      if (answer == nullptr || *answer != expected) {
        check.Abort(
            fmt::format("GetAttr({}, kExist) is {} in round {}, where the first device "
                        "count was {}: the device count is not stable",
                        id, tvm::DescribeAttrValue(*value), round + 1, count));
      }
    }
  }
}

SECTL_CHECK_IN_PROFILES("tvm_device_api.memory_attributes", kRecommended,
                        "kTotalGlobalMemory and kAvailableGlobalMemory are present, available <= "
                        "total, and available drops by at least N while N bytes are held (TVM's "
                        "test_memory_usage)",
                        {kProfile}) {
  DeviceApi api(check.platform());
  const int id = DeviceUnderTest(check);
  auto total = check.Require(api.GetAttr(id, tvm::DeviceAttrKind::kTotalGlobalMemory), "GetAttr");
  auto available =
      check.Require(api.GetAttr(id, tvm::DeviceAttrKind::kAvailableGlobalMemory), "GetAttr");
  const auto* total_bytes = std::get_if<int64_t>(&total);
  const auto* available_bytes = std::get_if<int64_t>(&available);
  if (total_bytes == nullptr || available_bytes == nullptr) {
    check.Skip("device_memory_usage fails, so both attributes are None (memory.usage reports it)");
  }
  check.Expect(*available_bytes <= *total_bytes,
               fmt::format("kAvailableGlobalMemory {} exceeds kTotalGlobalMemory {}",
                           *available_bytes, *total_bytes));
  constexpr size_t kHeld = 16 * kMiB;
  void* held = check.Require(api.AllocDataSpace(id, kHeld, 64), "AllocDataSpace");
  auto during =
      check.Require(api.GetAttr(id, tvm::DeviceAttrKind::kAvailableGlobalMemory), "GetAttr");
  check.Require(api.FreeDataSpace(id, held), "FreeDataSpace");
  const auto* during_bytes = std::get_if<int64_t>(&during);
  if (during_bytes == nullptr || *available_bytes - *during_bytes < static_cast<int64_t>(kHeld)) {
    check.Warn(
        fmt::format("kAvailableGlobalMemory went from {} to {} while {} bytes were held: "
                    "TVM's memory tests expect a drop of at least the allocation",
                    *available_bytes, tvm::DescribeAttrValue(during), kHeld));
  }
}

}  // namespace sectl::checks
