// TVM's DeviceAPI contract (include/tvm/runtime/device_api.h and
// docs/arch/device_target_interactions.rst), checked on a StreamExecutor
// plugin through lib/tvm/device_api.h: what a vendor serving TVM as well as
// TensorFlow must also meet. Profile tvm-device-api; see docs/tvm-profiles.md.
#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <optional>
#include <vector>

#include "conform/check.h"
#include "conform/check_support.h"
#include "loader/plugin_library.h"
#include "tvm/data_pointer_kind.h"
#include "tvm/device_api_route.h"
#include "tvm_memory_support.h"

namespace sectl::checks {
namespace {

using DeviceApi = tvm::DeviceApiRoute;  // a StreamExecutor plugin's or a TVM runtime's
using tvm::Side;

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
conform::HostBytes ReadBack(conform::CheckContext& check, DeviceApi& api, int id, void* pointer,
                            size_t offset, size_t bytes) {
  conform::HostBytes out(bytes);
  check.Require(api.CopyDataFromTo({Side::kDevice, pointer, offset}, {Side::kHost, out.data(), 0},
                                   bytes, id, nullptr),
                "CopyDataFromTo device to host");
  check.Require(api.StreamSync(id, nullptr), "StreamSync");
  return out;
}

// kExist on a TVM runtime, which has no device count of its own: every
// answer is an integer, never an error, the same each round; the ids from
// 0 that answer 1 can be allocated on; the first id answering 0 and the
// next answer 0 too. TVM's CPU backend answers 1 for every id, which passes.
void CheckExistOnRuntime(conform::CheckContext& check, DeviceApi& api) {
  constexpr int kMostIds = 64;
  constexpr int kIdsAllocatedOn = 8;
  auto exist = [&](int id, int round) -> int64_t {
    const auto value = api.GetAttr(id, tvm::DeviceAttrKind::kExist);
    if (!value) {
      check.Abort(
          fmt::format("GetAttr({}, kExist) failed in round {}: {}; TVM callers (the "
                      "Python Device.exist, Target's from_device) expect 0 or 1, never "
                      "an error",
                      id, round, value.error().message()));
    }
    const auto* answer = std::get_if<int64_t>(&*value);
    if (answer == nullptr || (*answer != 0 && *answer != 1)) {
      check.Abort(
          fmt::format("GetAttr({}, kExist) is {}, not the integer 0 or 1 TVM callers "
                      "cast to bool",
                      id, tvm::DescribeAttrValue(*value)));
    }
    return *answer;
  };
  int count = 0;
  while (count < kMostIds && exist(count, 1) == 1) ++count;
  check.details()["ids_answering_1_from_0"] = count;
  check.details()["kExist(-1)"] = exist(-1, 1);
  for (int round = 2; round <= 3; ++round) {
    for (int id = 0; id < std::min(count, kIdsAllocatedOn); ++id) {
      if (exist(id, round) != 1) {
        check.Abort(
            fmt::format("GetAttr({}, kExist) was 1, then 0 in round {}: not stable", id, round));
      }
    }
  }
  if (count < kMostIds) {
    for (int id : {count, count + 1}) {
      if (exist(id, 2) != 0) {
        check.Abort(
            fmt::format("GetAttr({}, kExist) is 1 where GetAttr({}, kExist) is 0: the "
                        "device ids TVM probes upwards are not contiguous",
                        id, count));
      }
    }
  }
  // A device kExist says is present must be usable.
  for (int id = 0; id < std::min(count, kIdsAllocatedOn); ++id) {
    auto pointer = api.AllocDataSpace(id, 256, tvm::kAllocAlignment);
    if (!pointer) {
      check.Fail(
          fmt::format("GetAttr({}, kExist) is 1, but AllocDataSpace on device {} "
                      "fails: {}",
                      id, id, pointer.error().message()));
      continue;
    }
    check.Require(api.FreeDataSpace(id, *pointer), "FreeDataSpace");
  }
}

}  // namespace

SECTL_CHECK_IN_PROFILES("tvm_device_api.alignment", kRequired,
                        "AllocDataSpace and AllocWorkspace results are aligned to 64 "
                        "(kAllocAlignment, kTempAllocaAlignment) for every size and alignment TVM "
                        "asks, where the pointer is a device address; on an opaque-handle device "
                        "(OpenCL, Vulkan, ...) every such request is served and round-trips "
                        "through byte_offset instead",
                        {kProfile},
                        .severity_reason =
                            "TVM places tensors in AllocDataSpace's memory aligned to "
                            "`kAllocAlignment` (64), and DLPack consumers (torch, numpy) assume "
                            "it; `TVMBackendAllocWorkspace` promises `kTempAllocaAlignment` (64)",
                        .establishes =
                            "for sizes 1, 7, 4096, 1 MiB and 1 MiB+3 and alignments 1 to 256: "
                            "where TVM makes the data pointer a device address "
                            "(SupportsDevicePointerArithmeticsOnHost: cpu, cuda, cuda_host, and "
                            "any StreamExecutor plugin), AllocDataSpace (`allocate`) returns "
                            "memory aligned to min(alignment, 64), and AllocWorkspace to 64, and "
                            "whether 128 and 256 are honoured goes in the details; where it is an "
                            "opaque handle (opencl, vulkan, metal, rocm, ...), alignment is no "
                            "property of the pointer, so each request must be served and a "
                            "pattern written through CopyDataFromTo at byte_offset 0 and at the "
                            "last multiple of the alignment inside it must read back; what a "
                            "size of 0 gives goes in the details",
                        .common_mistakes =
                            "Device memory taken from `malloc` (16-byte aligned) or carved out "
                            "of a pool at unaligned offsets.",
                        .how_to_fix = "Align every allocation to at least 64 bytes.",
                        .proven_by =
                            "`MISALIGNED_ALLOCATION`; the runtime route: "
                            "`FAULT_MISALIGNED_4096` (reference_plugins/tvm_runtime, "
                            "C API and tvm-ffi); on a handle: "
                            "`FAULT_DROPS_WRITES_AT_256_MULTIPLES` (the opaque-handle "
                            "reference, C API and tvm-ffi), and field_tvm_handle_backend, "
                            "whose handles are never 16-byte aligned, passes") {
  DeviceApi& api = check.tvm_route();
  const int id = DeviceUnderTest(check);
  const bool addresses = JudgesAddresses(api);
  check.details()["data_pointer"] = tvm::DescribeDataPointer(api);
  // On a handle, what stands in for the address: the request is served and
  // the memory holds what is written at offsets the alignment allows.
  auto expect_usable = [&](void* pointer, size_t size, size_t alignment, const char* call) {
    const auto difference = RoundTripAtAlignedOffsets(check, api, id, pointer, size, alignment, 31);
    if (!difference.empty()) {
      check.Fail(fmt::format("{}({} bytes, alignment {}) returned a handle that loses data: {}",
                             call, size, alignment, difference));
    }
  };
  nlohmann::json above_64 = nlohmann::json::object();
  for (size_t size : kSizes) {
    for (size_t alignment : kAlignments) {
      auto allocated = api.AllocDataSpace(id, size, alignment);
      if (!allocated && api.IsTvmRuntime() && alignment < sizeof(void*)) {
        // TVM's CPU backend hands the alignment to posix_memalign, which
        // rejects one below sizeof(void*); TVM itself never asks for one.
        check.details()["alignments_rejected"][std::to_string(alignment)] =
            allocated.error().message();
        continue;
      }
      void* pointer = check.Require(std::move(allocated), "AllocDataSpace");
      const size_t required = std::min(alignment, tvm::kAllocAlignment);
      if (!addresses) {
        if (pointer == nullptr) {
          check.Fail(
              fmt::format("AllocDataSpace({} bytes, alignment {}) returned null without an error",
                          size, alignment));
          continue;
        }
        expect_usable(pointer, size, alignment, "AllocDataSpace");
      } else if (!AlignedTo(pointer, required)) {
        check.Fail(
            fmt::format("AllocDataSpace({} bytes, alignment {}) returned {}, not aligned "
                        "to {}: TVM places tensors there and DLPack consumers (torch, "
                        "numpy) assume 64",
                        size, alignment, pointer, required));
      }
      if (addresses && alignment > tvm::kAllocAlignment) {
        above_64[std::to_string(alignment)] =
            above_64.value(std::to_string(alignment), true) && AlignedTo(pointer, alignment);
      }
      check.Require(api.FreeDataSpace(id, pointer), "FreeDataSpace");
    }
    void* workspace = check.Require(api.AllocWorkspace(id, size), "AllocWorkspace");
    if (!addresses) {
      expect_usable(workspace, size, tvm::kTempAllocaAlignment, "AllocWorkspace");
    } else if (!AlignedTo(workspace, tvm::kTempAllocaAlignment)) {
      check.Fail(
          fmt::format("AllocWorkspace({} bytes) returned {}, not aligned to "
                      "kTempAllocaAlignment (64), which TVMBackendAllocWorkspace promises",
                      size, workspace));
    }
    check.Require(api.FreeWorkspace(id, workspace), "FreeWorkspace");
  }
  if (addresses) {
    // A TVM backend over this plugin must over-allocate for these itself.
    check.details()["alignments_above_64_honoured"] = above_64;
  } else {
    check.details()["checked_instead_of_addresses"] =
        "every size and alignment was served with a non-null handle, and a pattern written "
        "through CopyDataFromTo at byte_offset 0 and at the last multiple of the alignment "
        "inside the allocation read back intact";
  }
  auto zero = api.AllocDataSpace(id, 0, tvm::kAllocAlignment);
  check.details()["zero_size"] = !zero              ? "fails: " + zero.error().message()
                                 : *zero == nullptr ? "returns null"
                                                    : "returns a pointer";
  if (zero && *zero != nullptr) check.Require(api.FreeDataSpace(id, *zero), "FreeDataSpace");
}

SECTL_CHECK_IN_PROFILES("tvm_device_api.copy_with_offsets", kRequired,
                        "CopyDataFromTo host to device, device to host and device to device with "
                        "non-zero byte offsets copies exactly those bytes, after StreamSync",
                        {kProfile},
                        .severity_reason =
                            "TVM copies tensors at byte offsets within larger allocations "
                            "through CopyDataFromTo: wrong bytes corrupt tensors",
                        .establishes =
                            "CopyDataFromTo host to device, device to device and device to host, "
                            "4101 bytes at byte offsets 1031 and 4099 of 12305-byte allocations, "
                            "copy exactly those bytes after StreamSync, with the bytes around "
                            "them unchanged",
                        .common_mistakes =
                            "Ignoring the offset of an interior pointer, copying from the start "
                            "of the allocation (the faulty plugin's `memcpy_dtod`).",
                        .how_to_fix =
                            "Resolve every pointer to its allocation and the offset within it; "
                            "copy exactly the bytes asked for.",
                        .proven_by =
                            "`DTOD_IGNORES_OFFSET`; the runtime route: "
                            "`FAULT_DTOD_IGNORES_TARGET_OFFSET` "
                            "(reference_plugins/tvm_runtime, C API and tvm-ffi)") {
  DeviceApi& api = check.tvm_route();
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
    conform::HostBytes expected = background;
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
  conform::HostBytes host(kBytes + 64, 0xEE);
  check.Require(api.CopyDataFromTo({Side::kDevice, second, kSourceOffset},
                                   {Side::kHost, host.data(), 32}, kBytes, id, nullptr),
                "CopyDataFromTo device to host");
  check.Require(api.StreamSync(id, nullptr), "StreamSync");
  conform::HostBytes expected(kBytes + 64, 0xEE);
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
    {kProfile},
    .severity_reason =
        "TVM's documents say a copy may not rely on the host buffer staying valid after "
        "CopyDataFromTo returns; TensorFlow keeps it alive, so this is only TVM's rule",
    .establishes =
        "a 4 MiB host-to-device copy queued behind 256 MiB of device-to-device work, with the "
        "host buffer overwritten as soon as the call returns: after StreamSync the device holds "
        "the original bytes",
    .common_mistakes =
        "Reading the host buffer later, on the stream's own thread, as an asynchronous plugin "
        "for TensorFlow may (the bundled cpu plugin does).",
    .how_to_fix =
        "Copy the host bytes before `memcpy_htod` returns (into a staging buffer or pinned "
        "memory), or have the TVM backend over the plugin synchronise before reusing the buffer.",
    .proven_by =
        "the bundled `cpu` reference plugin (its stream thread reads host buffers later); the "
        "runtime route: `FAULT_READS_HOST_BUFFER_LATE` (reference_plugins/tvm_runtime, C API "
        "and tvm-ffi)") {
  DeviceApi& api = check.tvm_route();
  const int id = DeviceUnderTest(check);
  // A long copy first, so that an asynchronous plugin is still busy when
  // the host buffer is overwritten.
  constexpr size_t kBusy = 64 * kMiB;
  constexpr size_t kBytes = 4 * kMiB;
  void* busy_a = check.Require(api.AllocDataSpace(id, kBusy, 64), "AllocDataSpace");
  void* busy_b = check.Require(api.AllocDataSpace(id, kBusy, 64), "AllocDataSpace");
  void* target = check.Require(api.AllocDataSpace(id, kBytes, 64), "AllocDataSpace");
  const auto original = conform::TestPattern(kBytes, 21);
  conform::HostBytes host = original;
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
                        {kProfile},
                        .severity_reason =
                            "TVM orders work across streams with SyncStreamFromTo "
                            "(`create_stream_dependency`): ignored, `to` reads what `from` has "
                            "not written yet",
                        .establishes =
                            "`from`, held up by a slow host callback, copies A to B; after "
                            "SyncStreamFromTo(from, to), `to` copies B to C; only `to` is "
                            "synchronised, and C must equal A (2 MiB, 3 rounds)",
                        .common_mistakes =
                            "A no-op `create_stream_dependency` on a plugin whose streams run "
                            "asynchronously.",
                        .how_to_fix =
                            "Make `to` wait for everything enqueued on `from` before the call "
                            "(see stream.dependency).",
                        .proven_by =
                            "`DEPENDENCY_IGNORED`; the runtime route: "
                            "`FAULT_IGNORES_STREAM_DEPENDENCY` "
                            "(reference_plugins/tvm_runtime, C API only: skipped "
                            "through tvm-ffi)") {
  if (check.settings().abi != loader::PluginAbi::kTvmRuntime) {
    conform::SkipUnlessProvided(
        check, {abi::PluginFunction::kCreateStream, abi::PluginFunction::kCreateStreamDependency,
                abi::PluginFunction::kHostCallback});
  }
  DeviceApi& api = check.tvm_route();
  if (const auto limit = api.CopyStreamLimit()) check.Skip(*limit);
  const int id = DeviceUnderTest(check);
  constexpr size_t kBytes = 2 * kMiB;
  constexpr int kRounds = 3;
  auto from = check.Require(api.CreateStream(id), "CreateStream");
  auto to = check.Require(api.CreateStream(id), "CreateStream");
  if (from == nullptr && to == nullptr) {
    check.Skip(
        "the device has no streams: TVMStreamCreate gives null (as on TVM's own CPU, OpenCL "
        "and Vulkan backends, where a device's work runs in one order), so no two streams can "
        "be out of order");
  }
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
    // `from` is held up (a slow host callback, or large copies), then copies a -> b.
    check.Require(api.HoldUpStream(id, from), "holding up the stream");
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
          fmt::format("round {}: after SyncStreamFromTo(from, to), "
                      "a copy on `to` read data `from` had not yet written: {}",
                      round + 1, difference));
    }
  }
}

SECTL_CHECK_IN_PROFILES("tvm_device_api.workspace_reuse", kRecommended,
                        "AllocWorkspace/FreeWorkspace in stack order and out of order, 100 times, "
                        "leave available memory where it was",
                        {kProfile},
                        .severity_reason =
                            "TVM's workspace pool frees out of stack order, which TensorFlow's "
                            "BFC allocator rarely does; a leak grows with time but fails nothing "
                            "at once",
                        .establishes =
                            "100 rounds of 4 workspaces (4 KiB, 64 KiB, 1000 bytes, 1 MiB), "
                            "freed alternately in stack order and out of order, leave "
                            "kAvailableGlobalMemory (a plugin's `device_memory_usage`) where it "
                            "was",
                        .common_mistakes =
                            "A stack allocator that can release only its top, dropping a free "
                            "out of stack order (the faulty plugin).",
                        .how_to_fix =
                            "Let the allocator (a plugin's `deallocate`) free any live block, "
                            "whatever order blocks are freed in.",
                        .proven_by =
                            "`OUT_OF_ORDER_FREE_LEAKS`; the runtime route: "
                            "`FAULT_WORKSPACE_NEVER_REUSED` "
                            "(reference_plugins/tvm_runtime, C API and tvm-ffi)") {
  DeviceApi& api = check.tvm_route();
  const int id = DeviceUnderTest(check);
  const auto available = [&] {
    auto value =
        check.Require(api.GetAttr(id, tvm::DeviceAttrKind::kAvailableGlobalMemory), "GetAttr");
    const auto* bytes = std::get_if<int64_t>(&value);
    return bytes == nullptr ? std::optional<int64_t>() : std::optional<int64_t>(*bytes);
  };
  const auto before = available();
  if (!before) {
    check.Skip(api.IsTvmRuntime()
                   ? "kAvailableGlobalMemory is None (as on TVM's own CPU, OpenCL, Vulkan, Metal "
                     "and ROCm backends, which answer only the total), so there is nothing to "
                     "measure reuse by"
                   : "kAvailableGlobalMemory is None (for a plugin: device_memory_usage fails, "
                     "and memory.usage reports it)");
  }
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
  const int64_t after = available().value_or(0);
  check.details()["available_before"] = *before;
  check.details()["available_after"] = after;
  if (after < *before) {
    check.Warn(
        fmt::format("available memory fell from {} to {} bytes over 100 rounds of "
                    "workspace allocation and release: freed workspaces are not returned",
                    *before, after));
  }
}

SECTL_CHECK_IN_PROFILES(
    "tvm_device_api.exist", kRequired,
    "GetAttr(kExist) answers 1 for every ordinal below the device count and 0 "
    "for count, count+1 and -1, without error, the same each time",
    {kProfile},
    .severity_reason =
        "TVM callers expect GetAttr(kExist) to answer 0 or 1, never an "
        "error, and find devices by it",
    .establishes =
        "GetAttr(kExist) answers 0 or 1, never an error, the same in 3 rounds: on a plugin, 1 "
        "for ids 0 and count-1 (`get_device_count`) and 0 for -1, count and count+1; on a TVM "
        "runtime, the ids answering 1 run from 0 without a gap and can be allocated on",
    .common_mistakes = "A device count that changes from call to call (see device.count).",
    .how_to_fix = "Enumerate devices once and report the same count from then on.",
    .proven_by =
        "`UNSTABLE_DEVICE_COUNT`; the runtime route: `FAULT_EXIST_BEYOND_COUNT` "
        "(reference_plugins/tvm_runtime, C API and tvm-ffi)") {
  DeviceApi& api = check.tvm_route();
  if (api.IsTvmRuntime()) {
    CheckExistOnRuntime(check, api);
    return;
  }
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
                        {kProfile},
                        .severity_reason =
                            "TVM's memory tests (test_memory_usage) expect it; nothing fails at "
                            "once",
                        .establishes =
                            "kTotalGlobalMemory and kAvailableGlobalMemory (a plugin's "
                            "`device_memory_usage`) are present, available <= total, and "
                            "available drops by at least 16 MiB while 16 MiB are held",
                        .common_mistakes =
                            "Reporting all memory as free whatever is allocated (see "
                            "memory.usage_tracks_allocations).",
                        .how_to_fix =
                            "Report free memory as the device or the allocator sees it at the "
                            "time of the call.",
                        .proven_by =
                            "`FREE_NEVER_DROPS`; the runtime route: "
                            "`FAULT_AVAILABLE_NEVER_CHANGES` "
                            "(reference_plugins/tvm_runtime, C API and tvm-ffi)") {
  DeviceApi& api = check.tvm_route();
  const int id = DeviceUnderTest(check);
  auto total = check.Require(api.GetAttr(id, tvm::DeviceAttrKind::kTotalGlobalMemory), "GetAttr");
  auto available =
      check.Require(api.GetAttr(id, tvm::DeviceAttrKind::kAvailableGlobalMemory), "GetAttr");
  const auto* total_bytes = std::get_if<int64_t>(&total);
  const auto* available_bytes = std::get_if<int64_t>(&available);
  if (total_bytes == nullptr || available_bytes == nullptr) {
    check.Skip(
        api.IsTvmRuntime()
            ? fmt::format("kTotalGlobalMemory is {} and kAvailableGlobalMemory is {}: "
                          "nothing to compare (as on TVM's own CPU, OpenCL, Vulkan, Metal and "
                          "ROCm backends, which answer only the total)",
                          tvm::DescribeAttrValue(total), tvm::DescribeAttrValue(available))
            : "device_memory_usage fails, so both attributes are None (memory.usage "
              "reports it)");
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
