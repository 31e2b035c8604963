// More of TVM's DeviceAPI contract (include/tvm/runtime/device_api.h,
// docs/arch/device_target_interactions.rst, c_runtime_api.h), profile
// tvm-device-api, on whichever route reaches the DeviceAPI (see
// lib/tvm/device_api_route.h): exact alignments, streams, workspaces held
// together, and errors reported through TVMGetLastError. Grounded in what
// TVM's runtime and its callers do, not in TensorFlow's rules.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "conform/check.h"
#include "conform/check_support.h"
#include "tvm/data_pointer_kind.h"
#include "tvm/device_api_route.h"
#include "tvm_memory_support.h"

namespace sectl::checks {
namespace {

constexpr const char* kProfile = "tvm-device-api";
constexpr size_t kMiB = size_t{1} << 20;

bool AlignedTo(const void* pointer, size_t alignment) {
  return reinterpret_cast<uintptr_t>(pointer) % alignment == 0;
}

// Skips on the adapter over a StreamExecutor plugin, where the check would
// judge sectl's adapter rather than the plugin (`why` says what covers it).
void RequireTvmRuntime(conform::CheckContext& check, tvm::DeviceApiRoute& api,
                       std::string_view why) {
  if (!api.IsTvmRuntime()) check.Skip(fmt::format("runs on a TVM runtime library: {}", why));
}

}  // namespace

SECTL_CHECK_IN_PROFILES(
    "tvm_device_api.alignment_exact", kRecommended,
    "AllocDataSpace honours every power-of-two alignment up to 256 exactly, for sizes 0, 1, "
    "odd and large, and frees what it returned; on an opaque-handle device every such request "
    "is served and round-trips through byte_offset instead",
    {kProfile},
    .severity_reason =
        "TVM asks AllocDataSpace for max(`kAllocAlignment`, element bytes x lanes), so vector "
        "dtypes ask 128 and 256; TVM's CPU backend (posix_memalign) and CUDA backend honour every "
        "power of two up to 256. Recommended: in-tree callers mostly ask 64",
    .establishes =
        "on a TVM runtime, for alignments 1, 2, 4, ..., 256 and sizes 0, 1, 777 and 64 MiB+5, "
        "`TVMDeviceAllocDataSpace` succeeds (a size of 0 may also give null or an error, and an "
        "alignment below the pointer size an error, as TVM's CPU backend's posix_memalign does) "
        "and `TVMDeviceFreeDataSpace` accepts the result; where TVM makes the data pointer a "
        "device address (cpu, cuda, cuda_host) it is aligned to the alignment asked; where it is "
        "an opaque handle (opencl, vulkan, metal, rocm, ...), which TVM's backends allocate "
        "ignoring the alignment, a pattern written through CopyDataFromTo at byte_offset 0 and "
        "at the last multiple of the alignment inside the allocation reads back instead",
    .common_mistakes =
        "honouring only the 64 bytes of `kAllocAlignment` (an allocator with a fixed alignment); "
        "crashing or returning garbage for a size of 0",
    .how_to_fix =
        "allocate with posix_memalign(alignment) or over-allocate and align; for size 0 return "
        "null, a unique pointer or an error, and accept its free",
    .proven_by =
        "`FAULT_ALIGNMENT_ONLY_64` (reference_plugins/tvm_runtime); on a handle: "
        "`FAULT_DROPS_WRITES_AT_256_MULTIPLES` (the opaque-handle reference, which "
        "tvm_device_api.alignment catches too), and field_tvm_handle_backend, whose handles are "
        "never 16-byte aligned, passes") {
  tvm::DeviceApiRoute& api = check.tvm_route();
  RequireTvmRuntime(check, api,
                    "StreamExecutor's allocate takes no alignment; tvm_device_api.alignment "
                    "reports what the plugin gives");
  const int id = check.settings().device_ordinal;
  const bool addresses = JudgesAddresses(api);
  check.details()["data_pointer"] = tvm::DescribeDataPointer(api);
  if (!addresses) {
    check.details()["checked_instead_of_addresses"] =
        "every size and alignment was served with a non-null handle and freed, and a pattern "
        "written through CopyDataFromTo at byte_offset 0 and at the last multiple of the "
        "alignment inside the allocation read back intact";
  }
  constexpr std::array<size_t, 4> kSizes = {0, 1, 777, 64 * kMiB + 5};
  for (size_t size : kSizes) {
    for (size_t alignment = 1; alignment <= 256; alignment *= 2) {
      auto pointer = api.AllocDataSpace(id, size, alignment);
      if (!pointer && size == 0) {
        check.details()["zero_size"] = "fails: " + pointer.error().message();
        continue;
      }
      if (!pointer && alignment < sizeof(void*)) {
        // TVM's CPU backend hands the alignment to posix_memalign, which
        // rejects one below sizeof(void*): a clean error is TVM's behaviour.
        check.details()["alignments_rejected"][std::to_string(alignment)] =
            pointer.error().message();
        continue;
      }
      void* allocated = check.Require(std::move(pointer), "AllocDataSpace");
      if (allocated == nullptr && size == 0) {
        check.details()["zero_size"] = "returns null";
        continue;
      }
      if (allocated == nullptr) {
        check.Fail(
            fmt::format("AllocDataSpace({} bytes, alignment {}) returned null without an "
                        "error",
                        size, alignment));
        continue;
      }
      if (size == 0) check.details()["zero_size"] = "returns a pointer";
      if (!addresses) {
        if (const auto difference =
                RoundTripAtAlignedOffsets(check, api, id, allocated, size, alignment, 47);
            !difference.empty()) {
          check.Fail(fmt::format(
              "AllocDataSpace({} bytes, alignment {}) returned a handle that loses data: {}", size,
              alignment, difference));
        }
      } else if (!AlignedTo(allocated, alignment)) {
        check.Fail(
            fmt::format("AllocDataSpace({} bytes, alignment {}) returned {}, not aligned "
                        "to {}",
                        size, alignment, allocated, alignment));
      }
      check.Require(api.FreeDataSpace(id, allocated), "FreeDataSpace");
    }
  }
}

SECTL_CHECK_IN_PROFILES(
    "tvm_device_api.streams", kRequired,
    "Streams are created, set, used for copies, synchronised and freed; the null stream is "
    "the default",
    {kProfile},
    .severity_reason =
        "TVM's VM, RPC runner and graph executor call CreateStream, SetStream and StreamSync on "
        "every backend, even ones with one queue (apache/tvm#7969 had to add them to Vulkan), and "
        "StreamSync is how every caller makes a copy's result visible",
    .establishes =
        "50 times: `TVMStreamCreate` gives a stream or null (a device with one queue), "
        "`TVMSetStream` accepts it and null, a 64 KiB host-to-device copy and its read-back "
        "with byte offsets on that stream are exact after `TVMSynchronize`, `TVMStreamFree` "
        "frees it (through tvm-ffi: the `runtime.Device_*` globals, with the round trip on the "
        "null stream, since no tvm-ffi copy takes a stream)",
    .common_mistakes =
        "SetStream rejecting streams the runtime itself created; StreamSync returning before the "
        "stream's copies have run",
    .how_to_fix =
        "make SetStream record the stream as current (or a no-op for one queue) and StreamSync "
        "wait for every copy queued so far",
    .proven_by = "`FAULT_SET_STREAM_REJECTS_STREAMS` (reference_plugins/tvm_runtime)") {
  tvm::DeviceApiRoute& api = check.tvm_route();
  const int id = check.settings().device_ordinal;
  constexpr size_t kBytes = size_t{64} * 1024;
  constexpr size_t kOffset = 40;
  constexpr int kRounds = 50;
  void* memory = check.Require(api.AllocDataSpace(id, kBytes + kOffset, 64), "AllocDataSpace");
  // Where no copy can be queued on a chosen stream (tvm-ffi), the round
  // trip goes on the null stream, and the created stream is still set,
  // synchronised and freed.
  const auto copy_limit = api.CopyStreamLimit();
  if (copy_limit) check.details()["copies_on"] = "the null stream: " + *copy_limit;
  int null_streams = 0;
  for (int round = 0; round < kRounds; ++round) {
    tvm::RouteStream stream = check.Require(api.CreateStream(id), "CreateStream");
    if (stream == nullptr) ++null_streams;
    if (auto set = api.SetStream(id, stream); !set) {
      check.Abort(fmt::format("SetStream on a stream CreateStream just made failed: {}",
                              set.error().message()));
    }
    const auto sent = conform::TestPattern(kBytes, 60 + static_cast<unsigned>(round % 7));
    conform::HostBytes received(kBytes + kOffset, 0xEE);
    const tvm::RouteStream copy_stream = copy_limit ? nullptr : stream;
    check.Require(
        api.CopyDataFromTo({tvm::Side::kHost, const_cast<unsigned char*>(sent.data()), 0},
                           {tvm::Side::kDevice, memory, kOffset}, kBytes, id, copy_stream),
        "CopyDataFromTo host to device");
    check.Require(
        api.CopyDataFromTo({tvm::Side::kDevice, memory, kOffset},
                           {tvm::Side::kHost, received.data(), kOffset}, kBytes, id, copy_stream),
        "CopyDataFromTo device to host");
    if (auto synced = api.StreamSync(id, stream); !synced) {
      check.Abort(
          fmt::format("StreamSync on a created stream failed: {}", synced.error().message()));
    }
    if (copy_stream != stream) check.Require(api.StreamSync(id, copy_stream), "StreamSync");
    if (const auto difference =
            conform::FirstDifference(sent.data(), received.data() + kOffset, kBytes);
        !difference.empty()) {
      check.Abort(
          fmt::format("round {}: a round trip on a created stream, read after "
                      "StreamSync, differs: {}",
                      round + 1, difference));
    }
    if (auto reset = api.SetStream(id, nullptr); !reset) {
      check.Abort(fmt::format("SetStream(null), back to the default stream, failed: {}",
                              reset.error().message()));
    }
    check.Require(api.FreeStream(id, stream), "FreeStream");
  }
  check.details()["null_streams"] = null_streams;
  check.Require(api.FreeDataSpace(id, memory), "FreeDataSpace");
}

SECTL_CHECK_IN_PROFILES(
    "tvm_device_api.workspace_stack", kRequired,
    "Workspaces held at the same time never share memory (shown by content, and by address "
    "ranges where pointers are addresses), and the same sizes allocated again after a release "
    "in stack order are served (reuse is reported)",
    {kProfile},
    .severity_reason =
        "generated code holds several `TVMBackendAllocWorkspace` buffers at once for one "
        "operator's intermediates and frees them in stack order; TVM's WorkspacePool serves "
        "repeats from its free list. Overlapping workspaces corrupt results silently",
    .establishes =
        "two rounds of holding workspaces of 4096, 4096, 100 and 64 KiB+1 bytes together: each "
        "is filled through CopyDataFromTo with a pattern of its own and, once all are filled, "
        "reads its own back (distinct storage, whatever the pointers are); where TVM makes the "
        "data pointer a device address (cpu, cuda, cuda_host, a StreamExecutor plugin) their "
        "address ranges do not overlap either, while opaque handles (opencl, vulkan, ...) are "
        "not compared as addresses; each is freed in reverse order, and whether round two got "
        "round one's blocks back (in any order) goes in the details",
    .common_mistakes =
        "a pool that hands out a block by size class without marking it in use, so two live "
        "buffers of one size share memory (on a handle device: two descriptors over one "
        "buffer)",
    .how_to_fix = "mark a block in use until it is freed; reuse only free blocks",
    .proven_by =
        "`FAULT_WORKSPACE_SHARED_BLOCK` (reference_plugins/tvm_runtime) by address, and "
        "`FAULT_WORKSPACE_SHARED_STORAGE` (the opaque-handle reference, C API and tvm-ffi) by "
        "content") {
  tvm::DeviceApiRoute& api = check.tvm_route();
  const int id = check.settings().device_ordinal;
  const bool addresses = JudgesAddresses(api);
  check.details()["data_pointer"] = tvm::DescribeDataPointer(api);
  check.details()["distinct_by"] =
      addresses ? "address ranges and content written through CopyDataFromTo"
                : "content written through CopyDataFromTo (handles are not address ranges)";
  constexpr std::array<size_t, 4> kSizes = {4096, 4096, 100, 64 * 1024 + 1};
  std::array<void*, kSizes.size()> first{};
  for (int round = 0; round < 2; ++round) {
    std::array<void*, kSizes.size()> held{};
    std::vector<HeldBlock> blocks;
    for (size_t i = 0; i < kSizes.size(); ++i) {
      held[i] = check.Require(api.AllocWorkspace(id, kSizes[i]), "AllocWorkspace");
      blocks.push_back({held[i], kSizes[i]});
      if (!addresses) continue;
      const auto* begin = static_cast<const char*>(held[i]);
      for (size_t j = 0; j < i; ++j) {
        const auto* other = static_cast<const char*>(held[j]);
        if (begin < other + kSizes[j] && other < begin + kSizes[i]) {
          check.Abort(
              fmt::format("AllocWorkspace({} bytes) returned {}, which overlaps the "
                          "{}-byte workspace at {} still held",
                          kSizes[i], held[i], kSizes[j], held[j]));
        }
      }
    }
    if (const auto shared = FirstBlockSharingStorage(check, api, id, blocks, "workspace");
        !shared.empty()) {
      check.Abort(fmt::format("round {}: {}", round + 1, shared));
    }
    for (size_t i = kSizes.size(); i-- > 0;) {
      check.Require(api.FreeWorkspace(id, held[i]), "FreeWorkspace");
    }
    // TVM's pool hands the same blocks back, though not in the same order:
    // it serves each size from the smallest free block that fits.
    std::sort(held.begin(), held.end());
    if (round == 0) first = held;
    if (round == 1) check.details()["reused_after_stack_release"] = held == first;
  }
}

SECTL_CHECK_IN_PROFILES(
    "tvm_device_api.errors_reported", kRequired,
    "A request the runtime cannot serve fails with -1 and a message in TVMGetLastError, never "
    "a crash or a silent null",
    {kProfile},
    .severity_reason =
        "every TVM C entry point answers 0 or -1 and the caller (Python's check_call, generated "
        "code's error paths) raises TVMGetLastError's text; an allocation that fails silently "
        "hands generated code a null buffer to write to",
    .establishes =
        "on a TVM runtime, `TVMDeviceAllocDataSpace` of 2^60 bytes returns nonzero and "
        "`TVMGetLastError` then gives a non-empty message (through tvm-ffi: "
        "`runtime.TVMTensorAllocWithScope` returns -1 and raises an Error with a message)",
    .common_mistakes =
        "returning 0 with a null pointer; returning -1 without setting the last error",
    .how_to_fix =
        "catch the allocator's failure, set the message (TVMAPISetLastError or an exception "
        "caught at the C boundary) and return -1",
    .proven_by =
        "`FAULT_SILENT_ALLOCATION_FAILURE` (reference_plugins/tvm_runtime, C API and "
        "tvm-ffi) and `FAULT_ERROR_WITHOUT_MESSAGE` (tvm-ffi)") {
  tvm::DeviceApiRoute& api = check.tvm_route();
  RequireTvmRuntime(check, api,
                    "the adapter's errors are sectl's own; memory.* checks cover the plugin's "
                    "allocation failures");
  const int id = check.settings().device_ordinal;
  // 1 EiB: no device has it, and TVM's tensor size rule (bits x elements
  // in a size_t) still holds it without wrapping, as 2^62 would not.
  constexpr size_t kImpossible = size_t{1} << 60;
  auto pointer = api.AllocDataSpace(id, kImpossible, 64);
  if (pointer) {
    if (*pointer != nullptr) (void)api.FreeDataSpace(id, *pointer);
    check.Abort(
        fmt::format("AllocDataSpace of 2^60 bytes returned 0 and {}: a failure that "
                    "reports no error",
                    *pointer));
  }
  const auto message = api.LastRuntimeError();
  check.details()["message"] = message.value_or("");
  if (!message || message->empty()) {
    check.Fail(
        "AllocDataSpace of 2^60 bytes failed, but TVMGetLastError (or the raised Error's "
        "message) is empty: the caller cannot say why");
  }
}

}  // namespace sectl::checks
