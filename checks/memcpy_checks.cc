// Copies: every form moves exactly the bytes asked for, between interior
// ranges of larger allocations and host buffers that end at an inaccessible
// page, and touches nothing else. One check per form; each sets and reads the
// device through a verification path (see copy_support.h), so that a broken
// form fails its own check and no other. The paths tried first:
//   memcpy.sync_htod, memcpy.sync_dtoh: memcpy_htod and memcpy_dtoh (stream);
//   every other copy and fill check: sync_memcpy_htod and sync_memcpy_dtoh.
// When those do not round-trip, the next pair that does is used, the form
// under test last; a check's details name the paths it used.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "conform/check.h"
#include "conform/check_support.h"
#include "copy_support.h"

namespace sectl::checks {
namespace {

using copies::CopyBench;
using copies::CopyForm;
using copies::CountOfBytes;
using copies::FencedAllocation;
using copies::FencedHostBuffer;

// One byte, an odd size, a range crossing page boundaries, and 2 MiB (more
// than one chunk for plugins that split large copies).
constexpr std::array<uint64_t, 4> kCopySizes = {1, 13, 8193, (uint64_t{2} << 20) + 5};

// A device-to-device source starts at another offset than its destination,
// so that a copy from the wrong place reads other bytes.
constexpr uint64_t kSourceOffset = 2 * copies::kSentinelBytes;

// "memcpy_htod of 13 bytes to byte 256 of a 525-byte allocation"
std::string DescribeCopy(CopyForm form, uint64_t size, std::string_view direction,
                         const FencedAllocation& device_side) {
  return fmt::format("{} of {} {} byte {} of a {}-byte allocation", copies::MemberOf(form),
                     CountOfBytes(size), direction, device_side.layout().offset,
                     device_side.layout().total());
}

// What TensorFlow makes of a copy that reports an error.
constexpr std::string_view kFailedCopyConsequence =
    "TensorFlow fails the operation that asked for the copy (and, on a stream, the stream)";

void Report(conform::CheckContext& check, const CopyBench& bench,
            const copies::Problems& problems) {
  check.details() = {{"sizes", kCopySizes},
                     {"offset_in_allocation", copies::kSentinelBytes},
                     {"verified_through", bench.PathsUsed()}};
  if (!problems.empty()) check.Fail(problems.Describe());
}

void AddFailedCopy(conform::CheckContext& check, copies::Problems& problems,
                   std::string_view operation, const Error& error) {
  copies::BlockIfOnlyUsed(check, operation, error);
  problems.Add(fmt::format("{} failed: {}", operation, error.message()));
  problems.Explain(kFailedCopyConsequence);
}

// htod and sync_htod: from a host buffer ending at a guard page into an
// interior range; the whole allocation must then read back as it was, with
// exactly the range replaced.
void CheckCopyToDevice(conform::CheckContext& check, CopyForm form) {
  copies::SkipUnlessProvided(check, copies::FunctionOf(form));
  CopyBench bench(check, form);
  copies::Problems problems;
  for (const uint64_t size : kCopySizes) {
    FencedAllocation destination = bench.Fence({.size = size}, copies::kBackgroundSeed);
    const conform::HostBytes payload = conform::TestPattern(size, copies::kPayloadSeed);
    FencedHostBuffer source(size);
    std::copy(payload.begin(), payload.end(), source.data());
    const std::string operation = DescribeCopy(form, size, "to", destination);
    if (auto copied = bench.engine().ToDevice(form, destination.range(), source.data(), size);
        !copied) {
      AddFailedCopy(check, problems, operation, copied.error());
      continue;
    }
    std::copy(payload.begin(), payload.end(), destination.expected_range().begin());
    bench.CheckIntact(destination, operation, problems);
  }
  Report(check, bench, problems);
}

// Adds to `problems` what a copy to the host left wrong in `destination`,
// compared with `payload` (and with `previous`, what the range held before,
// to name a stale copy as such). Returns whether anything was wrong.
bool CheckHostCopy(copies::Problems& problems, std::string_view operation,
                   const FencedHostBuffer& destination, const conform::HostBytes& payload,
                   const conform::HostBytes& previous) {
  if (std::string in_front = destination.DamageInFront(); !in_front.empty()) {
    problems.Add(fmt::format("{}: {}", operation, in_front));
    problems.Explain("in TensorFlow the bytes in front of a host buffer belong to something else");
    return true;
  }
  const std::span<const unsigned char> actual = destination.bytes();
  if (std::equal(actual.begin(), actual.end(), payload.begin())) return false;
  if (!previous.empty() && std::equal(actual.begin(), actual.end(), previous.begin())) {
    problems.Add(fmt::format(
        "{}: it delivered what the range held before its contents changed (a stale copy)",
        operation));
    problems.Explain("TensorFlow would read outdated tensor values");
    return true;
  }
  const auto wrong = std::mismatch(actual.begin(), actual.end(), payload.begin());
  problems.Add(
      fmt::format("{}: byte {} of the host buffer reads 0x{:02x} where the device holds "
                  "0x{:02x}",
                  operation, wrong.first - actual.begin(), *wrong.first, *wrong.second));
  problems.Explain("TensorFlow would read a corrupted tensor");
  return true;
}

// dtoh and sync_dtoh: from an interior range into a host buffer ending at a
// guard page, twice, with the range's contents changed in between.
void CheckCopyToHost(conform::CheckContext& check, CopyForm form) {
  copies::SkipUnlessProvided(check, copies::FunctionOf(form));
  CopyBench bench(check, form);
  copies::Problems problems;
  for (const uint64_t size : kCopySizes) {
    FencedAllocation source = bench.Fence({.size = size}, copies::kBackgroundSeed);
    conform::HostBytes previous;
    for (const unsigned seed : {copies::kPayloadSeed, copies::kSecondPayloadSeed}) {
      const conform::HostBytes payload = conform::TestPattern(size, seed);
      std::copy(payload.begin(), payload.end(), source.expected_range().begin());
      bench.Store(source);
      FencedHostBuffer destination(size);
      const std::string operation =
          DescribeCopy(form, size, "from", source) +
          (previous.empty() ? "" : ", repeated after the range's contents changed");
      if (auto copied = bench.engine().ToHost(form, destination.data(), source.range(), size);
          !copied) {
        AddFailedCopy(check, problems, operation, copied.error());
        break;
      }
      if (CheckHostCopy(problems, operation, destination, payload, previous)) break;
      previous = payload;
    }
  }
  Report(check, bench, problems);
}

// dtod and sync_dtod: from an interior range of one allocation to an
// interior range, at another offset, of a second one. The destination
// must change in exactly its range and the source not at all.
void CheckCopyWithinDevice(conform::CheckContext& check, CopyForm form) {
  copies::SkipUnlessProvided(check, copies::FunctionOf(form));
  CopyBench bench(check, form);
  copies::Problems problems;
  for (const uint64_t size : kCopySizes) {
    FencedAllocation source =
        bench.Fence({.offset = kSourceOffset, .size = size}, copies::kSourceBackgroundSeed);
    const conform::HostBytes payload = conform::TestPattern(size, copies::kPayloadSeed);
    std::copy(payload.begin(), payload.end(), source.expected_range().begin());
    bench.Store(source);
    FencedAllocation destination = bench.Fence({.size = size}, copies::kBackgroundSeed);
    if (source.Overlaps(destination)) {
      check.Blocked(abi::PluginFunction::kAllocate,
                    "allocate returned overlapping memory for two live allocations, so a copy "
                    "between them cannot be judged");
    }
    const std::string operation = fmt::format(
        "{} of {} from byte {} of one allocation to byte {} of another", copies::MemberOf(form),
        CountOfBytes(size), kSourceOffset, destination.layout().offset);
    if (auto copied = bench.engine().WithinDevice(form, destination.range(), source.range(), size);
        !copied) {
      AddFailedCopy(check, problems, operation, copied.error());
      continue;
    }
    std::copy(payload.begin(), payload.end(), destination.expected_range().begin());
    bench.CheckIntact(destination, operation, problems);
    bench.CheckIntact(source, operation + ", in its source (which must not change)", problems);
  }
  Report(check, bench, problems);
}

// A copy of 0 bytes in `form`: to `destination` or from `source` on the
// device side, from or to `host` on the host side.
Expected<void> CopyNothing(copies::CopyEngine& engine, CopyForm form,
                           SP_DeviceMemoryBase destination, SP_DeviceMemoryBase source,
                           unsigned char* host) {
  switch (form) {
    case CopyForm::kHtoD:
    case CopyForm::kSyncHtoD:
      return engine.ToDevice(form, destination, host, 0);
    case CopyForm::kDtoH:
    case CopyForm::kSyncDtoH:
      return engine.ToHost(form, host, source, 0);
    case CopyForm::kDtoD:
    case CopyForm::kSyncDtoD:
      return engine.WithinDevice(form, destination, source, 0);
  }
  throw std::logic_error("unknown copy form");
}

}  // namespace

SECTL_CHECK("memcpy.htod", kRequired,
            "memcpy_htod copies exactly the bytes asked for into an interior range, and nothing "
            "else",
            .tests = {kMemcpyHtoD},
            .severity_reason =
                "TensorFlow 2.5 and later copy every non-empty tensor that goes to the device, "
                "constants included, with memcpy_htod (CopyCPUTensorToPluggableDevice in "
                "pluggable_device_util.cc), into BFC regions at interior offsets: wrong bytes "
                "corrupt the model's inputs or their neighbours",
            .establishes =
                "`memcpy_htod` of 1, 13, 8193 and 2 MiB+5 bytes, from a host buffer that ends at "
                "an inaccessible page into byte 256 of a larger allocation: the allocation reads "
                "back with exactly that range replaced, and the 256 sentinel bytes on both sides "
                "unchanged",
            .common_mistakes =
                "An off-by-one in the length (the faulty plugin drops the last byte); copying to "
                "the start of the allocation rather than to `opaque`, which TensorFlow's BFC "
                "allocator points into the middle of a region; reading past the end of the host "
                "buffer.",
            .how_to_fix =
                "Copy exactly `size` bytes from `host_src` to `device_dst->opaque`, which may be "
                "an interior pointer; test sizes that are odd, 1 byte, and larger than any chunk "
                "the driver splits copies into.",
            .proven_by =
                "`HTOD_DROPS_LAST_BYTE`, `SYNC_HTOD_CRASH` (memcpy.htod still fails through the "
                "fallback route while sync_memcpy_htod crashes)") {
  CheckCopyToDevice(check, CopyForm::kHtoD);
}

SECTL_CHECK("memcpy.dtoh", kRequired,
            "memcpy_dtoh copies exactly the bytes asked for from an interior range, current each "
            "time, and nothing else",
            .tests = {kMemcpyDtoH},
            .severity_reason =
                "TensorFlow 2.5 and later read every non-empty tensor back to the host "
                "(results, CPU kernels' inputs) with memcpy_dtoh "
                "(CopyPluggableDeviceTensorToCPU in pluggable_device_util.cc): wrong or stale "
                "bytes are wrong results",
            .establishes =
                "`memcpy_dtoh` of 1, 13, 8193 and 2 MiB+5 bytes from byte 256 of a larger "
                "allocation into a host buffer that ends at an inaccessible page, twice, with "
                "the range's contents changed in between: the host buffer gets exactly the "
                "device's current bytes, and nothing around it is written",
            .common_mistakes =
                "Corrupting the bytes on their way (the faulty plugin flips the first one); "
                "writing one byte more than asked, past the end of the host buffer; returning a "
                "cached, stale copy of a range read before.",
            .how_to_fix =
                "Copy exactly `size` bytes from `device_src->opaque` to `host_dst`, from the "
                "device's current contents each time; never write outside `host_dst[0, size)`.",
            .proven_by = "`CORRUPT_DTOH`, `DTOH_READS_PAST_END` (crash)") {
  CheckCopyToHost(check, CopyForm::kDtoH);
}

SECTL_CHECK("memcpy.dtod", kRequired,
            "memcpy_dtod copies exactly the bytes asked for between interior ranges, and leaves "
            "everything else as it was",
            .tests = {kMemcpyDtoD},
            .severity_reason =
                "TensorFlow 2.5 and later copy every non-empty tensor within a device and "
                "between the plugin's devices with memcpy_dtod "
                "(CopyPluggableDeviceTensorToSameDevice and DeviceToDeviceCopy in "
                "pluggable_device_util.cc), without checking that the plugin set it: wrong "
                "bytes corrupt the copied tensor or its neighbours. This check skips a plugin "
                "without it",
            .establishes =
                "`memcpy_dtod` of 1, 13, 8193 and 2 MiB+5 bytes from byte 512 of one allocation "
                "to byte 256 of another: the destination changes in exactly that range and the "
                "source not at all",
            .common_mistakes =
                "Ignoring the offset of an interior pointer: a plugin that keeps a handle per "
                "allocation and copies from the start of the allocation, not from `opaque` (the "
                "faulty plugin does); swapping source and destination.",
            .how_to_fix =
                "Resolve `opaque` to the allocation and the offset within it, for the source and "
                "the destination alike; copy exactly `size` bytes.",
            .proven_by = "`DTOD_IGNORES_OFFSET`") {
  CheckCopyWithinDevice(check, CopyForm::kDtoD);
}

SECTL_CHECK("memcpy.sync_htod", kRequired,
            "sync_memcpy_htod copies exactly the bytes asked for into an interior range, and "
            "nothing else",
            .tests = {kSyncMemcpyHtoD},
            .severity_reason =
                "TensorFlow 2.5 and later refuse a plugin without sync_memcpy_htod and call it "
                "for every synchronous copy to the device (CStreamExecutor::SynchronousMemcpy "
                "in stream_executor.cc): wrong bytes corrupt what is copied. TensorFlow's own "
                "tensor copies, constants included, go through memcpy_htod instead",
            .establishes =
                "`sync_memcpy_htod` of 1, 13, 8193 and 2 MiB+5 bytes into byte 256 of a larger "
                "allocation: exactly that range is replaced, and the sentinels on both sides are "
                "unchanged",
            .common_mistakes =
                "Copying in whole words and losing the tail of a size that is not a multiple of "
                "the word (the faulty plugin moves 8-byte words only); crashing or exiting "
                "inside the call (`exit()` in `sync_memcpy_htod` is one of the field corpus's "
                "defects).",
            .how_to_fix =
                "Copy exactly `size` bytes, tail included, and return only once they are on the "
                "device; report failure through the status, never by exiting.",
            .proven_by = "`SYNC_HTOD_TRUNCATES`, `SYNC_HTOD_CRASH` (crash)") {
  CheckCopyToDevice(check, CopyForm::kSyncHtoD);
}

SECTL_CHECK("memcpy.sync_dtoh", kRequired,
            "sync_memcpy_dtoh copies exactly the bytes asked for from an interior range, current "
            "each time, and nothing else",
            .tests = {kSyncMemcpyDtoH},
            .severity_reason =
                "TensorFlow 2.5 and later refuse a plugin without sync_memcpy_dtoh and call it "
                "for every synchronous copy from the device (CStreamExecutor::SynchronousMemcpy "
                "in stream_executor.cc): wrong or stale bytes are wrong values. TensorFlow's own "
                "tensor copies go through memcpy_dtoh instead",
            .establishes =
                "`sync_memcpy_dtoh` of 1, 13, 8193 and 2 MiB+5 bytes from byte 256 of a larger "
                "allocation, twice, with the range's contents changed in between: the host "
                "buffer gets exactly the device's current bytes each time, and nothing around it "
                "is written",
            .common_mistakes =
                "A read cache that returns what an earlier read of the same range got, however "
                "the device changed since (the faulty plugin's stale copy).",
            .how_to_fix =
                "Read from the device every time, after the work enqueued before has written it; "
                "if you cache, invalidate on every write to the range.",
            .proven_by = "`SYNC_DTOH_STALE`") {
  CheckCopyToHost(check, CopyForm::kSyncDtoH);
}

SECTL_CHECK("memcpy.sync_dtod", kRequired,
            "sync_memcpy_dtod, where provided, copies exactly the bytes asked for between "
            "interior ranges, and leaves everything else as it was",
            .tests = {kSyncMemcpyDtoD},
            .severity_reason =
                "TensorFlow 2.5 to 2.15 copy synchronously within the device with "
                "`stream_executor_->sync_memcpy_dtod(&device_, &device_mem_dst, "
                "&device_mem_src, size, c_status.get())` in "
                "CStreamExecutor::SynchronousMemcpyDeviceToDevice (stream_executor.cc), "
                "without a null check: wrong bytes corrupt tensors. The newest "
                "stream_executor.cc has no such method and never calls sync_memcpy_dtod, so "
                "under newer generations the check is recommended "
                "(docs/tensorflow-source-notes.md)",
            .required_through = "2.10",
            .establishes =
                "where provided, `sync_memcpy_dtod` of 1, 13, 8193 and 2 MiB+5 bytes from byte "
                "512 of one allocation to byte 256 of another: the destination changes in "
                "exactly that range and the source not at all (skipped where the plugin has "
                "none)",
            .common_mistakes =
                "Source and destination swapped, so the destination's bytes overwrite the source "
                "(the faulty plugin); the same interior-offset mistakes as `memcpy_dtod`.",
            .how_to_fix =
                "Copy from `device_src` to `device_dst`, in that order, exactly `size` bytes at "
                "their interior offsets; or leave `sync_memcpy_dtod` null if you do not support "
                "TensorFlow 2.15 or older (which call it without a null check).",
            .proven_by = "`SYNC_DTOD_WRONG`") {
  CheckCopyWithinDevice(check, CopyForm::kSyncDtoD);
}

SECTL_CHECK("memcpy.zero_size", kRecommended,
            "A copy of 0 bytes succeeds and touches nothing, in every form the plugin provides",
            .tests = {kMemcpyHtoD, kMemcpyDtoH, kMemcpyDtoD, kSyncMemcpyHtoD, kSyncMemcpyDtoH,
                      kSyncMemcpyDtoD},
            .severity_reason =
                "No released TensorFlow copies 0 bytes through the plugin: every tensor copy in "
                "pluggable_device_util.cc (to and from the host, within a device and between "
                "devices, TensorFlow 2.5 to the newest) runs only `if (total_bytes > 0)`, since "
                "\"0-size tensors have no backing buffer\". Other hosts and direct users of the "
                "C API may copy nothing, where an error fails the operation and a crash ends "
                "the process (docs/tensorflow-source-notes.md)",
            .establishes =
                "every copy form the plugin provides (`memcpy_htod`, `memcpy_dtoh`, "
                "`memcpy_dtod` and their `sync_` forms) succeeds on 0 bytes, with a host pointer "
                "at the first byte of an inaccessible page, and leaves the allocation around the "
                "empty range unchanged",
            .common_mistakes =
                "Touching a buffer that only exists for non-empty copies (a staging buffer, a "
                "driver handle) when the size is 0, or passing 0 to a driver call that refuses "
                "it. The DirectML plugin short-circuits zero-size copies to OK, which is right.",
            .how_to_fix =
                "Return OK at once when `size` is 0, before touching any pointer, in every copy "
                "function.",
            .proven_by = "`ZERO_SIZE_CRASH` (crash)",
            .unusual_use =
                "TensorFlow never copies an empty tensor: pluggable_device_util.cc guards every "
                "copy with total_bytes > 0") {
  copies::SkipUnlessProvided(check, abi::PluginFunction::kAllocate);
  // Seeded through the stream copies first: the synchronous ones are those
  // seen crashing on real copies in the field, which memcpy.sync_* report;
  // this check is about copies of nothing.
  CopyBench bench(check, CopyForm::kSyncHtoD);
  const FencedAllocation fenced = bench.Fence({.size = 0}, copies::kBackgroundSeed);
  // The host side is the first byte of an inaccessible page: a plugin that
  // touches it anyway crashes in its own call.
  const conform::GuardedHostBuffer nothing(0);
  if (!nothing.ok()) throw std::runtime_error("sectl could not map a guarded host buffer");
  const SP_DeviceMemoryBase destination = fenced.range();
  // Another empty range in the same allocation, for the forms that read
  // from the device.
  const SP_DeviceMemoryBase source = fenced.Slice(copies::kSentinelBytes / 2, 0);
  copies::CopyEngine& engine = bench.engine();

  copies::Problems problems;
  nlohmann::json tried = nlohmann::json::array();
  for (const CopyForm form : copies::kAllCopyForms) {
    if (!check.platform().Provides(copies::FunctionOf(form))) continue;
    tried.push_back(copies::MemberOf(form));
    const Expected<void> copied = CopyNothing(engine, form, destination, source, nothing.data());
    if (!copied) {
      AddFailedCopy(check, problems, fmt::format("{} of 0 bytes", copies::MemberOf(form)),
                    copied.error());
    }
  }
  bench.CheckIntact(
      fenced,
      fmt::format("copies of 0 bytes to and from byte {} of an allocation", fenced.layout().offset),
      problems);
  check.details() = {{"forms", tried}, {"verified_through", bench.PathsUsed()}};
  if (!problems.empty()) check.Fail(problems.Describe());
}

}  // namespace sectl::checks
