#include "bench/memcpy_bench.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/byte_sizes.h"
#include "bench/copy_measurement.h"
#include "bench/copy_verification.h"
#include "bench/host_ceiling.h"
#include "bench/physical_bounds.h"
#include "bench/plugin_health.h"
#include "bench/statistics.h"
#include "host/platform.h"

namespace sectl::bench {
namespace {

using abi::PluginFunction;

// clpeak's margin: a copy that reads or writes host memory cannot beat the
// host's own memcpy by this much; such a result means nothing was copied.
constexpr double kImplausibleOverCeiling = 5.0;
// A copy within the device cannot beat the memory bandwidth the device
// reports by more than measurement noise, once it is too large for caches
// to serve it (smaller copies may run from a cache, faster than memory).
constexpr double kImplausibleOverDeviceBandwidth = 1.5;
constexpr uint64_t kLargerThanCaches = uint64_t{64} << 20;
constexpr int kWarmupCopies = 3;

std::vector<Path> PlanPaths(const MemcpyBenchOptions& options, const host::Device& device) {
  const std::vector<HostMemory> host_memories = options.host_memories.empty()
                                                    ? DefaultHostMemories(device, options.avoid)
                                                    : options.host_memories;
  std::vector<Path> paths;
  for (const Direction direction : options.directions) {
    for (const CopyMode mode : options.modes) {
      if (direction == Direction::kDeviceToDevice) {
        paths.push_back({direction, HostMemory::kNone, mode});
        continue;
      }
      for (const HostMemory memory : host_memories) paths.push_back({direction, memory, mode});
    }
  }
  return paths;
}

// Flags a median that no real copy could reach: `what` says which clock.
void JudgePlausibility(const host::Device& device, double median_gbps, std::string_view what,
                       BandwidthResult& result) {
  if (result.ceiling_gbps > 0 && result.direction != Direction::kDeviceToDevice &&
      median_gbps > kImplausibleOverCeiling * result.ceiling_gbps) {
    result.warnings.push_back(fmt::format(
        "implausible: {} says {:.1f}x the host memcpy ceiling; a copy to or from host memory "
        "cannot be this fast",
        what, median_gbps / result.ceiling_gbps));
  }
  if (result.direction == Direction::kDeviceToDevice && result.bytes >= kLargerThanCaches) {
    const auto bandwidth = device.MemoryBandwidth();
    if (bandwidth && *bandwidth > 0 &&
        median_gbps * 1e9 > kImplausibleOverDeviceBandwidth * static_cast<double>(*bandwidth)) {
      result.warnings.push_back(fmt::format(
          "implausible: {} says {:.2f} GB/s, beyond the {:.2f} GB/s memory bandwidth the device "
          "reports",
          what, median_gbps, static_cast<double>(*bandwidth) / 1e9));
    }
  }
}

// The plugin functions a path calls whatever happens: its stream, its
// buffers, the copy itself, the way data is put on and read off the device
// (setup, the completion probe, verification) and the stream's wait.
constexpr PluginFunction kNeededByEveryPath[] = {
    PluginFunction::kCreateStream, PluginFunction::kDestroyStream, PluginFunction::kAllocate,
    PluginFunction::kDeallocate,   PluginFunction::kMemcpyHtoD,    PluginFunction::kMemcpyDtoH};

// "SP_StreamExecutor.create_stream, which is broken: stream.create crashed".
std::string BrokenFunction(const AvoidedFunction& avoided) {
  return fmt::format("{}, which is broken: {}", abi::QualifiedName(avoided.function), avoided.why);
}

std::vector<PluginFunction> NeededFunctions(const host::Device& device, const Path& path) {
  std::vector<PluginFunction> needed(std::begin(kNeededByEveryPath), std::end(kNeededByEveryPath));
  needed.push_back(CopyFunction(path));
  for (const PluginFunction waits :
       CompletionRoute(device, {path.direction, path.host_memory, CopyMode::kAsync})) {
    needed.push_back(waits);
  }
  if (path.host_memory == HostMemory::kPinned) {
    needed.push_back(PluginFunction::kHostMemoryAllocate);
    needed.push_back(PluginFunction::kHostMemoryDeallocate);
  }
  return needed;
}

// Why `path` cannot be measured before anything is tried: its completion is
// signalled by a function known broken or learned to signal early, or it
// needs one that crashes or hangs. nullopt when it may be measured.
std::optional<std::string> WhyNotMeasurableBeforehand(const host::Device& device, const Path& path,
                                                      const PluginHealth& health) {
  const PluginFunction completion = CompletionFunction(device, path);
  if (auto early = health.EarlyCompletion(completion)) return early;
  if (path.mode == CopyMode::kAsync) {
    for (const PluginFunction waits : CompletionRoute(device, path)) {
      if (const AvoidedFunction* avoided = health.Avoided(waits)) {
        return fmt::format("the copies' completion rests on {}", BrokenFunction(*avoided));
      }
    }
  }
  for (const PluginFunction needed : NeededFunctions(device, path)) {
    const AvoidedFunction* avoided = health.Avoided(needed);
    if (avoided != nullptr && avoided->crashes_or_hangs) {
      return fmt::format("it needs {}", BrokenFunction(*avoided));
    }
  }
  return std::nullopt;
}

BandwidthResult MeasurePath(const host::Device& device, const Path& path, uint64_t bytes,
                            double ceiling_gbps, const MemcpyBenchOptions& options,
                            LazyVerdicts& verdicts, PluginHealth& health) {
  BandwidthResult result{.direction = path.direction,
                         .host_memory = path.host_memory,
                         .mode = path.mode,
                         .bytes = bytes,
                         .ceiling_gbps = ceiling_gbps};
  auto fail = [&](const Error& error, std::string_view doing) {
    result.error = fmt::format("{}: {}", doing, error.message());
    return result;
  };
  auto not_measurable = [&](std::string why) {
    MarkNotMeasurable(result, std::move(why));
    return result;
  };
  if (auto why = WhyNotMeasurableBeforehand(device, path, health)) return not_measurable(*why);

  CopyMeasurement measurement(device, path, bytes, health);
  // A timed batch that showed its completion cannot be believed ends the
  // measurement; any other failure is an error.
  auto stop = [&](const Error& error, std::string_view doing) {
    if (measurement.not_measurable()) return not_measurable(*measurement.not_measurable());
    return fail(error, doing);
  };
  if (auto prepared = measurement.Prepare(); !prepared)
    return fail(prepared.error(), "preparing buffers");
  auto probed = measurement.ProbeCompletion(ceiling_gbps);
  if (!probed) return fail(probed.error(), "checking the copies' completion");
  if (*probed) return not_measurable(**probed);

  // Warm-up: single copies first (first touch, lazy setup in the plugin),
  // then gated batches growing until one is long enough to be a sample.
  auto first = measurement.TimeCopies(kWarmupCopies, /*gated=*/false);
  if (!first) return stop(first.error(), "warming up");
  int calibration_copies = 0;
  const bool behind_a_gate =
      path.mode == CopyMode::kAsync && path.host_memory != HostMemory::kPageable;
  auto copies = CalibrateBatch(
      [&](int count) { return measurement.TimeCopies(count, /*gated=*/true); },
      behind_a_gate ? kMaxCopiesBehindAGate : kMaxCopiesPerSample, &calibration_copies);
  if (!copies) return stop(copies.error(), "warming up");
  result.copies_per_sample = *copies;
  result.warmup_copies = kWarmupCopies + calibration_copies;

  std::vector<double> timer_gbps;
  const double bytes_per_sample = static_cast<double>(bytes) * result.copies_per_sample;
  bool every_sample_gated = true;
  auto samples = SampleUntilStable(options.plan, [&]() -> Expected<double> {
    auto seconds = measurement.TimeCopies(result.copies_per_sample, true);
    if (!seconds) return seconds;
    every_sample_gated = every_sample_gated && measurement.gate_held();
    if (const auto timer_seconds = measurement.last_timer_seconds())
      timer_gbps.push_back(bytes_per_sample / *timer_seconds / 1e9);
    return bytes_per_sample / *seconds / 1e9;
  });
  if (!samples) return stop(samples.error(), "measuring");

  result.gbps = Describe(samples->values);
  result.stable = samples->stable;
  result.enqueue_excluded = path.mode == CopyMode::kAsync && every_sample_gated;
  if (!timer_gbps.empty() && timer_gbps.size() == samples->values.size())
    result.plugin_timer_gbps = Describe(timer_gbps);
  if (measurement.timer_problem())
    result.warnings.push_back("the plugin's timer failed: " + *measurement.timer_problem());
  for (const std::string& note : measurement.notes()) result.warnings.push_back(note);
  // A gate learned broken by an earlier path of the run was not used here.
  if (path.mode == CopyMode::kAsync && measurement.notes().empty()) {
    if (auto stall = health.Stall(PluginFunction::kHostCallback))
      result.warnings.push_back(StalledGateNote(*stall));
  }
  result.ratio_to_ceiling = ceiling_gbps > 0 ? result.gbps.median / ceiling_gbps : 0;

  if (options.verify) result.verification = measurement.Verify(verdicts);
  if (auto impossible =
          WhyPhysicallyImpossible(path.direction, result.gbps.median, "the host's clock")) {
    return not_measurable(*impossible);
  }
  if (result.plugin_timer_gbps) {
    if (auto impossible = WhyPhysicallyImpossible(path.direction, result.plugin_timer_gbps->median,
                                                  "the plugin's timer")) {
      // The host's clock stands; the plugin's is not shown.
      result.plugin_timer_gbps.reset();
      result.warnings.push_back(fmt::format("{}; its readings are not shown", *impossible));
    }
  }
  JudgePlausibility(device, result.gbps.median, "the host clock", result);
  if (result.plugin_timer_gbps)
    JudgePlausibility(device, result.plugin_timer_gbps->median, "the plugin's timer", result);
  return result;
}

}  // namespace

std::optional<std::string> WhyNothingMeasurable(const MemcpyBenchOptions& options) {
  const PluginHealth health(options.avoid);
  for (const PluginFunction needed : kNeededByEveryPath) {
    const AvoidedFunction* avoided = health.Avoided(needed);
    if (avoided != nullptr && avoided->crashes_or_hangs) {
      return fmt::format("every copy path needs {}", BrokenFunction(*avoided));
    }
  }
  const bool all_async = std::all_of(options.modes.begin(), options.modes.end(),
                                     [](CopyMode mode) { return mode == CopyMode::kAsync; });
  // A block_host_until_done the checks blamed is one the plugin provides,
  // so it is the wait every async copy's completion rests on.
  if (const AvoidedFunction* wait = health.Avoided(PluginFunction::kBlockHostUntilDone);
      wait != nullptr && all_async) {
    return fmt::format("every copy's completion rests on {}", BrokenFunction(*wait));
  }
  return std::nullopt;
}

std::vector<HostMemory> DefaultHostMemories(const host::Device& device,
                                            const std::vector<AvoidedFunction>& avoid) {
  const PluginHealth health(avoid);
  if (device.platform().Provides(PluginFunction::kHostMemoryAllocate) &&
      health.Usable(PluginFunction::kHostMemoryAllocate) &&
      health.Usable(PluginFunction::kHostMemoryDeallocate)) {
    return {HostMemory::kPinned};
  }
  return {HostMemory::kPageable};
}

int CountMemcpySteps(const MemcpyBenchOptions& options, const host::Device& device) {
  return static_cast<int>(options.sizes.size() * (PlanPaths(options, device).size() + 1));
}

Expected<void> RunMemcpyBench(const host::Device& device, const MemcpyBenchOptions& options,
                              BenchReport& report, const ProgressCallback& progress,
                              StepDeadline* deadline) {
  const std::vector<Path> paths = PlanPaths(options, device);
  // Why the next step is not to be measured: the run stopped.
  auto begin = [&](const std::string& step) -> std::optional<std::string> {
    if (progress) progress(step);
    return deadline != nullptr ? deadline->Begin(step) : std::nullopt;
  };
  auto end = [&]() { return deadline != nullptr ? deadline->End() : std::nullopt; };
  // What the run learns of the plugin holds for every size and path.
  PluginHealth health(options.avoid);
  for (const uint64_t bytes : options.sizes) {
    const bool any_measurable = std::any_of(paths.begin(), paths.end(), [&](const Path& path) {
      return !WhyNotMeasurableBeforehand(device, path, health);
    });
    double ceiling_gbps = 0;
    std::optional<std::string> stopped =
        begin(fmt::format("host memcpy {}", FormatByteSize(bytes)));
    if (any_measurable && !stopped) {
      auto ceiling = MeasureHostCeiling(bytes, options.plan);
      if (!ceiling) return tl::unexpected(ceiling.error());
      report.ceiling.push_back(*ceiling);
      ceiling_gbps = ceiling->gbps.median;
    }
    end();  // nothing to note a slow ceiling on; it still counts
    // Shared by the paths of one size: a fault may depend on the size.
    LazyVerdicts verdicts(device, bytes);
    for (const Path& path : paths) {
      if (!stopped) stopped = begin(DescribePath(path, bytes));
      if (stopped) {
        report.results.push_back({.direction = path.direction,
                                  .host_memory = path.host_memory,
                                  .mode = path.mode,
                                  .bytes = bytes,
                                  .error = *stopped});
        continue;
      }
      BandwidthResult result =
          MeasurePath(device, path, bytes, ceiling_gbps, options, verdicts, health);
      if (auto slow = end()) result.warnings.push_back(*slow);
      report.results.push_back(std::move(result));
    }
  }
  return {};
}

}  // namespace sectl::bench
