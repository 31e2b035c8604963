#include "bench/memcpy_bench.h"

#include <fmt/format.h>

#include <string_view>

#include "base/byte_sizes.h"
#include "bench/copy_measurement.h"
#include "bench/copy_verification.h"
#include "bench/host_ceiling.h"
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
  const std::vector<HostMemory> host_memories =
      options.host_memories.empty() ? DefaultHostMemories(device) : options.host_memories;
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

BandwidthResult MeasurePath(const host::Device& device, const Path& path, uint64_t bytes,
                            double ceiling_gbps, const MemcpyBenchOptions& options,
                            LazyVerdicts& verdicts) {
  BandwidthResult result{.direction = path.direction,
                         .host_memory = path.host_memory,
                         .mode = path.mode,
                         .bytes = bytes,
                         .ceiling_gbps = ceiling_gbps};
  auto fail = [&](const Error& error, std::string_view doing) {
    result.error = fmt::format("{}: {}", doing, error.message());
    return result;
  };

  CopyMeasurement measurement(device, path, bytes);
  if (auto prepared = measurement.Prepare(); !prepared)
    return fail(prepared.error(), "preparing buffers");

  // Warm-up: single copies first (first touch, lazy setup in the plugin),
  // then gated batches growing until one is long enough to be a sample.
  auto first = measurement.TimeCopies(kWarmupCopies, /*gated=*/false);
  if (!first) return fail(first.error(), "warming up");
  int calibration_copies = 0;
  auto copies =
      CalibrateBatch([&](int count) { return measurement.TimeCopies(count, /*gated=*/true); },
                     kMaxCopiesPerSample, &calibration_copies);
  if (!copies) return fail(copies.error(), "warming up");
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
  if (!samples) return fail(samples.error(), "measuring");

  result.gbps = Describe(samples->values);
  result.stable = samples->stable;
  result.enqueue_excluded = path.mode == CopyMode::kAsync && every_sample_gated;
  if (!timer_gbps.empty() && timer_gbps.size() == samples->values.size())
    result.plugin_timer_gbps = Describe(timer_gbps);
  if (measurement.timer_problem())
    result.warnings.push_back("the plugin's timer failed: " + *measurement.timer_problem());
  result.ratio_to_ceiling = ceiling_gbps > 0 ? result.gbps.median / ceiling_gbps : 0;

  if (options.verify) result.verification = measurement.Verify(verdicts);
  JudgePlausibility(device, result.gbps.median, "the host clock", result);
  if (result.plugin_timer_gbps)
    JudgePlausibility(device, result.plugin_timer_gbps->median, "the plugin's timer", result);
  return result;
}

}  // namespace

std::vector<HostMemory> DefaultHostMemories(const host::Device& device) {
  if (device.platform().Provides(PluginFunction::kHostMemoryAllocate)) return {HostMemory::kPinned};
  return {HostMemory::kPageable};
}

int CountMemcpySteps(const MemcpyBenchOptions& options, const host::Device& device) {
  return static_cast<int>(options.sizes.size() * (PlanPaths(options, device).size() + 1));
}

Expected<void> RunMemcpyBench(const host::Device& device, const MemcpyBenchOptions& options,
                              BenchReport& report, const ProgressCallback& progress) {
  const std::vector<Path> paths = PlanPaths(options, device);
  for (const uint64_t bytes : options.sizes) {
    if (progress) progress(fmt::format("host memcpy {}", FormatByteSize(bytes)));
    auto ceiling = MeasureHostCeiling(bytes, options.plan);
    if (!ceiling) return tl::unexpected(ceiling.error());
    report.ceiling.push_back(*ceiling);
    // Shared by the paths of one size: a fault may depend on the size.
    LazyVerdicts verdicts(device, bytes);
    for (const Path& path : paths) {
      if (progress) progress(DescribePath(path, bytes));
      report.results.push_back(
          MeasurePath(device, path, bytes, ceiling->gbps.median, options, verdicts));
    }
  }
  return {};
}

}  // namespace sectl::bench
