// struct_size: the one field through which a plugin and its host learn each
// other's layout. TensorFlow only checks that it is non-zero; these checks
// also ask whether the value names a real layout, and whether the plugin
// stays inside the structs of hosts older and newer than its header.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "abi/struct_layouts.h"
#include "conform/check.h"
#include "conform/check_support.h"

namespace sectl::checks {
namespace {

using abi::StructKind;

// Small enough to cost nothing, large enough that no plugin refuses it.
constexpr uint64_t kSmallAllocation = 4096;

// The struct_size the plugin wrote into the structs the host runtime reads
// but does not record, because they come back with every call: the
// SP_DeviceMemoryBase of an allocation and SP_AllocatorStats.
struct PerCallStructSizes {
  std::optional<size_t> device_memory_base;
  std::optional<size_t> allocator_stats;
};

// A function that fails here leaves its struct unread (allocate and
// get_allocator_stats are memory.*'s to judge), except one that crashed or
// hung before and was not called: that blocks the check, as calling it
// would have.
PerCallStructSizes ReadPerCallStructSizes(conform::CheckContext& check,
                                          const host::Device& device) {
  const auto block_if_avoided = [&](const Error& error) {
    const auto culprit = error.culprit();
    if (culprit && check.Avoids(*culprit) && !check.Tests(*culprit)) {
      check.Blocked(*culprit, error.message());
    }
  };
  PerCallStructSizes sizes;
  auto memory = device.Allocate(kSmallAllocation);
  if (!memory) block_if_avoided(memory.error());
  if (memory && memory->opaque() != nullptr) sizes.device_memory_base = memory->base().struct_size;
  auto stats = device.QueryAllocatorStats();
  if (!stats) block_if_avoided(stats.error());
  if (stats && stats->has_value()) sizes.allocator_stats = (*stats)->struct_size;
  return sizes;
}

// The device under test, created from `platform` rather than through
// check.device(): a device that cannot be created is the devices checks'
// failure, not these checks', which then judge the platform's structs alone.
std::unique_ptr<host::Device> TryCreateDevice(conform::CheckContext& check,
                                              host::Platform& platform) {
  auto device = platform.CreateDevice(check.settings().device_ordinal);
  if (!device) {
    check.details()["device"] = fmt::format("not created: {}", device.error().message());
    return nullptr;
  }
  return std::move(*device);
}

// ---- Hosts older and newer than the plugin's header ----------------------

// One host that hands the plugin structs of other sizes than sectl's header.
struct EmulatedHost {
  std::string description;
  host::PlatformOptions options;
};

// The generation `id` with another SP_StreamExecutor size: the host runtime
// takes that struct's size from the generation, not from struct_sizes.
abi::HostGeneration WithStreamExecutorSize(std::string_view id, size_t bytes) {
  abi::HostGeneration generation = *abi::FindHostGeneration(id);
  generation.stream_executor_struct_size = bytes;
  return generation;
}

// A host built against a header that appended 64 bytes of members to every
// struct, zero-filled as TensorFlow zero-fills its structs.
EmulatedHost NewerHost() {
  constexpr size_t kAppended = 64;
  EmulatedHost newer{
      "a host whose structs are 64 bytes larger than this header's",
      {.generation = WithStreamExecutorSize("latest", SP_STREAMEXECUTOR_STRUCT_SIZE + kAppended)}};
  for (StructKind kind : abi::AllStructKinds()) {
    const auto& layout = abi::CurrentLayout(kind);
    newer.options.struct_sizes[kind] = {layout.struct_size + kAppended,
                                        layout.sizeof_bytes + kAppended};
  }
  return newer;
}

// The generations older than `selected`, whose compat.* checks judge what
// the plugin writes past their structs: "2.5, 2.7 and 2.10".
std::vector<std::string> OlderGenerations(const abi::HostGeneration& selected) {
  std::vector<std::string> older;
  for (const auto& generation : abi::AllHostGenerations()) {
    if (generation.id == selected.id) break;
    older.push_back(fmt::format("compat.tf_{}", generation.id));
  }
  for (auto& id : older) std::replace(id.begin(), id.end(), '.', '_');
  return older;
}

// How far one host got in using the plugin: registration, a device, an
// allocation, and a buffer copied to the device and back (synchronously, so
// that no stream or event is involved), with the first step that failed.
struct HostOutcome {
  int steps_done = 0;  // of kAllSteps
  std::string failure;
};

constexpr int kAllSteps = 5;

HostOutcome UseHost(conform::CheckContext& check, const host::PlatformOptions& options) {
  HostOutcome outcome;
  const auto stop = [&](std::string failure) {
    outcome.failure = std::move(failure);
    return outcome;
  };
  auto platform = check.CreatePlatform(options);
  if (!platform) return stop(platform.error().message());
  for (const auto& finding : (*platform)->findings().all()) {
    if (finding.id.starts_with("platform.create_")) return stop(finding.message);
  }
  ++outcome.steps_done;
  auto device = (*platform)->CreateDevice(check.settings().device_ordinal);
  if (!device) return stop(device.error().message());
  ++outcome.steps_done;
  auto memory = (*device)->Allocate(kSmallAllocation);
  if (!memory) return stop(memory.error().message());
  ++outcome.steps_done;
  const auto written = conform::TestPattern(kSmallAllocation);
  conform::HostBytes read_back(kSmallAllocation, 0);
  if (auto copied = (*device)->SyncMemcpyHtoD(memory->base(), written.data(), kSmallAllocation);
      !copied) {
    return stop(copied.error().message());
  }
  if (auto copied = (*device)->SyncMemcpyDtoH(read_back.data(), memory->base(), kSmallAllocation);
      !copied) {
    return stop(copied.error().message());
  }
  ++outcome.steps_done;
  const std::string difference =
      conform::FirstDifference(written.data(), read_back.data(), kSmallAllocation);
  if (!difference.empty()) {
    return stop(fmt::format("a {}-byte buffer copied to the device and back came back changed: {}",
                            kSmallAllocation, difference));
  }
  ++outcome.steps_done;
  return outcome;
}

}  // namespace

SECTL_CHECK("struct_size.zero", kRequired,
            "Every struct the plugin fills reports a non-zero struct_size",
            .tests = {kInitPlugin, kCreateDeviceFns, kCreateStreamExecutor, kCreateTimerFns},
            .severity_reason =
                "TensorFlow 2.5 and later refuse the plugin (FAILED_PRECONDITION from "
                "TF_VALIDATE_STRUCT_SIZE) when a registration, device or stream executor struct "
                "reports struct_size 0; the per-call structs, which TensorFlow only logs, warn",
            .establishes =
                "no struct the plugin fills at registration and device creation "
                "(`SE_PlatformRegistrationParams`, `SP_Platform`, `SP_PlatformFns`, "
                "`SP_DeviceFns`, `SP_StreamExecutor`, `SP_TimerFns`, `SP_Device`) reports "
                "`struct_size` 0, which TensorFlow rejects; a 0 in the per-call "
                "`SP_DeviceMemoryBase` (after `allocate`) or `SP_AllocatorStats` (after "
                "`get_allocator_stats`) warns",
            .common_mistakes =
                "Clearing a struct the host handed over (`memset(platform, 0, sizeof ...)`, or "
                "whole-struct assignment of a zeroed value) and never setting `struct_size` "
                "again: TensorFlow pre-fills `struct_size`, so a plugin that leaves it alone "
                "passes, and one that wipes it fails. The faulty plugin sets "
                "`SP_Platform.struct_size` to 0, as after such a `memset`.",
            .how_to_fix =
                "Leave the host's `struct_size` as it was, or set it to the header's "
                "`*_STRUCT_SIZE` macro after clearing a struct (`*platform = "
                "(SP_Platform){SP_PLATFORM_STRUCT_SIZE}`). Set `SP_DeviceMemoryBase.struct_size` "
                "in `allocate` and `SP_AllocatorStats.struct_size` in `get_allocator_stats` too.",
            .proven_by = "`ZERO_STRUCT_SIZE`") {
  host::Platform& platform = check.platform();
  const auto device = TryCreateDevice(check, platform);
  for (const auto& finding : platform.findings().all()) {
    if (finding.id.starts_with("struct_size.zero.")) check.Fail(finding.message);
  }
  nlohmann::json& reported = check.details()["struct_sizes"];
  for (const auto& report : platform.struct_reports()) {
    reported[std::string(report.reading.layout->struct_name)] = report.reading.reported_size;
  }
  if (device == nullptr) return;
  const PerCallStructSizes sizes = ReadPerCallStructSizes(check, *device);
  if (sizes.device_memory_base) reported["SP_DeviceMemoryBase"] = *sizes.device_memory_base;
  if (sizes.allocator_stats) reported["SP_AllocatorStats"] = *sizes.allocator_stats;
  if (sizes.device_memory_base == 0u) {
    check.Warn(
        "allocate left SP_DeviceMemoryBase.struct_size at 0: TensorFlow logs \"Expected "
        "initialized `SP_DeviceMemoryBase` structure with `struct_size` field set\" as an error "
        "after every allocation");
  }
  if (sizes.allocator_stats == 0u) {
    check.Warn(
        "get_allocator_stats left SP_AllocatorStats.struct_size at 0: TensorFlow logs an error "
        "and treats the statistics as unavailable");
  }
}

SECTL_CHECK("struct_size.vintage", kRecommended,
            "Every struct_size names a published layout, or a newer one",
            .tests = {kInitPlugin, kCreateDeviceFns, kCreateStreamExecutor, kCreateTimerFns},
            .severity_reason =
                "No released TensorFlow reads struct_size beyond checking it is "
                "non-zero: an unpublished value misleads only a host that "
                "reads members by it",
            .establishes =
                "each `struct_size` the plugin reports is a published layout's (or larger, from "
                "a newer header); `sizeof` instead of the `*_STRUCT_SIZE` macro, an unknown size "
                "or a pre-release layout's warns",
            .common_mistakes =
                "`struct_size = sizeof(SP_Platform)` (40, where the layout ends at 35): the Rust "
                "plugin rust-tf-pluggabledevice writes `size_of::<SP_Platform>()`. A plugin "
                "built against a pre-release header whose layout no released TensorFlow has.",
            .how_to_fix =
                "Use the header's `*_STRUCT_SIZE` macros (`SP_PLATFORM_STRUCT_SIZE`), which end "
                "at the last member, never `sizeof`; build against a released TensorFlow's "
                "header.",
            .proven_by = "`SIZEOF_PLATFORM` (reports 40)") {
  host::Platform& platform = check.platform();
  const auto device = TryCreateDevice(check, platform);
  std::vector<abi::StructSizeReading> readings;
  for (const auto& report : platform.struct_reports()) readings.push_back(report.reading);
  if (device != nullptr) {
    const PerCallStructSizes sizes = ReadPerCallStructSizes(check, *device);
    if (sizes.device_memory_base) {
      readings.push_back(
          abi::ReadStructSize(StructKind::kDeviceMemoryBase, *sizes.device_memory_base));
    }
    if (sizes.allocator_stats) {
      readings.push_back(abi::ReadStructSize(StructKind::kAllocatorStats, *sizes.allocator_stats));
    }
  }
  nlohmann::json& described = check.details()["struct_sizes"];
  described = nlohmann::json::object();
  for (const auto& reading : readings) {
    const std::string name(reading.layout->struct_name);
    if (described.contains(name)) continue;  // SP_Device, once per device
    described[name] = reading.Describe();
    switch (reading.verdict) {
      case abi::SizeVerdict::kCurrent:
      case abi::SizeVerdict::kOlderKnown:
      case abi::SizeVerdict::kNewer:  // a newer header: accepted, its extra members unread
      case abi::SizeVerdict::kZero:   // struct_size.zero's to report
        break;
      case abi::SizeVerdict::kSizeofInsteadOfEnd:
        check.Warn(fmt::format(
            "{}.struct_size is {}: a host that reads members up to struct_size takes the padding "
            "for members it does not know; use the header's *_STRUCT_SIZE macro",
            name, reading.Describe()));
        break;
      case abi::SizeVerdict::kUnknown:
        check.Warn(fmt::format(
            "{}.struct_size is {}: no TensorFlow header has this layout, so a host cannot tell "
            "which members the plugin filled; use the header's *_STRUCT_SIZE macro",
            name, reading.Describe()));
        break;
      case abi::SizeVerdict::kIncompatible:
        check.Warn(fmt::format(
            "{}.struct_size is {}: a released TensorFlow reads this struct at other offsets; "
            "rebuild against a released header",
            name, reading.Describe()));
        break;
    }
  }
}

SECTL_CHECK(
    "struct_size.older_host", kRequired,
    "The plugin writes nothing past the structs the selected TensorFlow generation hands "
    "it, however much older than the plugin's header that generation is",
    .tests = {kInitPlugin, kCreateDeviceFns, kCreateStreamExecutor, kCreateTimerFns},
    .severity_reason =
        "The selected generation (2.5, 2.7, 2.10 or latest) keeps each struct it hands "
        "over at exactly its own size, on its stack (InitStreamExecutorPlugin, "
        "GetUncachedExecutor): a write past it corrupts TensorFlow's memory. Under "
        "--tf-version 2.5, writing the 288-byte SP_StreamExecutor into its 264 bytes "
        "fails here; older generations than the selected one are compat.*'s to report",
    .establishes =
        "nothing is written past the structs the `--tf-version` generation hands over, "
        "each followed by canary bytes (SP_StreamExecutor 264 bytes for 2.5, SP_Platform "
        "33/34/35, SP_Device 56, SP_DeviceMemoryBase 40, SP_AllocatorStats 96: published "
        "layouts only); generations older than the selected one are `compat.*`'s",
    .common_mistakes =
        "Filling a struct to the plugin's own header whatever size the host announced: "
        "`*se = (SP_StreamExecutor){SP_STREAMEXECUTOR_STRUCT_SIZE, ...}` or a `memset` "
        "of `sizeof` bytes, as TensorFlow's test_util, the Huawei plugin and MUSA do. "
        "Built against the 288-byte header, that writes 24 "
        "bytes past TensorFlow 2.5's 264-byte `SP_StreamExecutor` on its stack. A member "
        "added by a private header after the last one.",
    .how_to_fix =
        "Read the `struct_size` the host pre-filled and write only the members that end "
        "within it (`offsetof(member) + sizeof(member) <= struct_size`), or refuse such "
        "a host with a non-OK status; never write past the size the host announced.",
    .proven_by = "`WRITES_PAST_STREAM_EXECUTOR`; `OVERRUNS_OLDER_HOST` under `--tf-version 2.5`") {
  // The platform as the selected generation registers it: its own sizes,
  // each struct followed by canary bytes. A device, an allocation and
  // allocator statistics hand over the per-device structs too.
  host::Platform& platform = check.platform();
  const auto device = TryCreateDevice(check, platform);
  if (device != nullptr) (void)ReadPerCallStructSizes(check, *device);
  const abi::HostGeneration& generation = check.generation();
  check.details()["tf_version"] = generation.id;
  check.details()["older_generations_judged_by"] = OlderGenerations(generation);
  constexpr std::string_view kOverrun = "struct_size.overrun.";
  for (const auto& finding : platform.findings().all()) {
    if (!finding.id.starts_with(kOverrun)) continue;
    const std::string struct_name = finding.id.substr(kOverrun.size());
    const abi::PluginFunction writer =
        struct_name == "SP_StreamExecutor" || struct_name == "SE_CreateStreamExecutorParams"
            ? abi::PluginFunction::kCreateStreamExecutor
        : struct_name == "SP_DeviceFns" || struct_name == "SE_CreateDeviceFnsParams"
            ? abi::PluginFunction::kCreateDeviceFns
        : struct_name == "SP_TimerFns" ? abi::PluginFunction::kCreateTimerFns
        : struct_name == "SP_Device" || struct_name == "SE_CreateDeviceParams"
            ? abi::PluginFunction::kCreateDevice
        : struct_name == "SP_DeviceMemoryBase" ? abi::PluginFunction::kAllocate
        : struct_name == "SP_AllocatorStats"   ? abi::PluginFunction::kGetAllocatorStats
                                               : abi::PluginFunction::kInitPlugin;
    check.FailIn(writer,
                 fmt::format("in {}, {}. That TensorFlow keeps this struct at exactly that size, "
                             "so the plugin overwrites whatever lies next to it. Fill only the "
                             "members that end within the struct_size the host pre-filled, or "
                             "decline such a host with a non-OK status",
                             generation.description, finding.message));
  }
}

SECTL_CHECK("struct_size.newer_host", kRecommended,
            "A host whose structs are larger than the plugin's header gets as far as one that "
            "matches it",
            .tests = {kInitPlugin, kCreateDeviceFns, kCreateStreamExecutor, kCreateTimerFns},
            .severity_reason =
                "No released TensorFlow hands a plugin structs larger than the newest header's; "
                "this guards the next one that appends members. A plugin built against an older "
                "header than the selected generation meets its larger structs in every other "
                "check",
            .establishes =
                "with every struct 64 bytes larger than this header's (a host with members "
                "appended), registration, a device, a 4 KiB allocation and a synchronous copy to "
                "the device and back get as far as with this header's sizes",
            .common_mistakes =
                "Insisting on exactly the `struct_size` the plugin was built with (`if "
                "(se->struct_size != SP_STREAMEXECUTOR_STRUCT_SIZE) fail`), so the next "
                "TensorFlow that appends a member cannot load it.",
            .how_to_fix =
                "Accept a `struct_size` at least as large as your header's: fill the members you "
                "know and leave the rest as the host set them (zero). Refuse only a size smaller "
                "than a member you must write.",
            .proven_by = "`CONFUSED_BY_NEWER_HOST`",
            .unusual_use = "it registers the plugin as a host newer than any released TensorFlow") {
  // The same steps with this header's sizes first: what fails there too is
  // another check's failure, not confusion about struct_size.
  const HostOutcome matching = UseHost(check, {.generation = abi::LatestHostGeneration()});
  const EmulatedHost newer = NewerHost();
  const HostOutcome larger = UseHost(check, newer.options);
  check.details() = {{"host", newer.description},
                     {"steps", kAllSteps},
                     {"steps_done_with_matching_sizes", matching.steps_done},
                     {"steps_done_with_larger_sizes", larger.steps_done}};
  if (!matching.failure.empty()) check.details()["failure_with_matching_sizes"] = matching.failure;
  if (!larger.failure.empty()) check.details()["failure_with_larger_sizes"] = larger.failure;
  if (larger.steps_done < matching.steps_done) {
    check.Warn(fmt::format(
        "with {}, {} (with this header's own sizes that step works): a TensorFlow built against "
        "a newer header, with members appended and every struct_size larger, could not use this "
        "plugin. A plugin must accept a larger struct_size and fill the members it knows",
        newer.description, larger.failure));
  }
}

}  // namespace sectl::checks
