#include "conform/throughput.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string_view>

#include "abi/plugin_functions.h"
#include "bench/run_bench.h"

namespace sectl::conform {
namespace {

using report::CheckStatus;

// The function `qualified_name` names ("SP_StreamExecutor.host_callback").
std::optional<abi::PluginFunction> FunctionNamed(std::string_view qualified_name) {
  for (const abi::PluginFunctionInfo& info : abi::AllPluginFunctions()) {
    if (abi::QualifiedName(info.function) == qualified_name) return info.function;
  }
  return std::nullopt;
}

// "failed", "crashed", ...: what `status` says a check did on a culprit.
std::optional<std::string_view> WhatTheCheckDid(CheckStatus status) {
  switch (status) {
    case CheckStatus::kFail:
      return "failed";
    case CheckStatus::kCrash:
      return "crashed";
    case CheckStatus::kTimeout:
      return "timed out";
    case CheckStatus::kBlocked:
      return "was blocked by it";
    case CheckStatus::kPass:
    case CheckStatus::kWarn:
    case CheckStatus::kSkip:
    case CheckStatus::kError:
      return std::nullopt;
  }
  return std::nullopt;
}

// The one reason every result gives, when they all give the same one.
std::optional<std::string> SharedReason(const report::Throughput& throughput) {
  if (throughput.results.empty()) return std::nullopt;
  const std::optional<std::string>& first = throughput.results.front().not_measurable;
  if (!first) return std::nullopt;
  const bool all_alike = std::all_of(
      throughput.results.begin(), throughput.results.end(),
      [&first](const report::ThroughputResult& result) { return result.not_measurable == first; });
  return all_alike ? first : std::nullopt;
}

}  // namespace

std::vector<bench::AvoidedFunction> KnownBrokenFunctions(
    const std::vector<report::CheckResult>& results) {
  std::vector<bench::AvoidedFunction> broken;
  for (const report::CheckResult& result : results) {
    const std::optional<std::string_view> did = WhatTheCheckDid(result.status);
    if (!did) continue;
    const bool crashes_or_hangs =
        result.status == CheckStatus::kCrash || result.status == CheckStatus::kTimeout;
    for (const std::string& culprit : result.culprits) {
      const std::optional<abi::PluginFunction> function = FunctionNamed(culprit);
      if (!function) continue;
      const std::string why = fmt::format("{} {}", result.id, *did);
      auto known = std::find_if(broken.begin(), broken.end(),
                                [&](const auto& avoided) { return avoided.function == *function; });
      if (known == broken.end()) {
        broken.push_back({*function, why, crashes_or_hangs});
      } else if (crashes_or_hangs && !known->crashes_or_hangs) {
        // What makes calling it dangerous is the reason that matters.
        *known = {*function, why, true};
      }
    }
  }
  return broken;
}

report::Throughput MeasureThroughput(const CheckSettings& settings, bool isolate,
                                     std::chrono::milliseconds timeout,
                                     const isolation::Confinement& confinement,
                                     const std::vector<bench::AvoidedFunction>& broken) {
  bench::BenchOptions options;
  options.kind = bench::BenchKind::kMemcpy;
  options.plugin_path = settings.plugin_path;
  options.lazy = settings.lazy;
  options.generation = settings.generation;
  options.device_ordinal = settings.device_ordinal;
  options.memcpy.sizes = {kThroughputBytes};
  // About 25 samples of a 16 MiB copy on a host-memory device: a median
  // that moves by a few percent between runs, which is what an
  // informational figure needs, and the suite on the bundled plugin stays
  // under 1.5 s (the four results take about 0.4 s at this budget, 0.6 s at
  // 100 ms).
  options.memcpy.plan.budget = std::chrono::milliseconds(50);
  options.memcpy.avoid = broken;
  options.isolate = isolate;
  options.stall_timeout = timeout;
  options.confinement = confinement;

  report::Throughput throughput{.bytes = kThroughputBytes};
  // Known from the checks alone: no process, no wait.
  if (auto why = bench::WhyNothingMeasurable(options.memcpy)) {
    throughput.skipped = std::move(*why);
    return throughput;
  }
  auto measured = bench::RunBench(options);
  if (!measured) {
    throughput.error = measured.error().message();
    return throughput;
  }
  if (!measured->ceiling.empty()) throughput.ceiling_gbps = measured->ceiling.front().gbps.median;
  for (const bench::BandwidthResult& result : measured->results) {
    throughput.results.push_back({.direction = std::string(DirectionName(result.direction)),
                                  .host_memory = std::string(HostMemoryName(result.host_memory)),
                                  .median_gbps = result.gbps.median,
                                  .ratio_to_ceiling = result.ratio_to_ceiling,
                                  .verification = result.verification.Describe(),
                                  .error = result.error,
                                  .not_measurable = result.not_measurable});
  }
  throughput.skipped = SharedReason(throughput);
  return throughput;
}

}  // namespace sectl::conform
