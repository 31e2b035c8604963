#include "baseline_run.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>

#include "base/byte_sizes.h"
#include "baseline_report.h"
#include "bench/host_ceiling.h"

namespace sectl::cuda_baseline {

std::vector<RawCopyPath> PlanRawPaths(const BaselineOptions& options) {
  std::vector<RawCopyPath> paths;
  for (const bench::Direction direction : options.directions) {
    if (direction == bench::Direction::kDeviceToDevice) {
      paths.push_back({direction, bench::HostMemory::kNone});
      continue;
    }
    for (const bench::HostMemory memory : options.host_memories) {
      paths.push_back({direction, memory});
    }
  }
  return paths;
}

Expected<bench::BenchReport> RunBaseline(const BaselineOptions& options) {
  const auto started = std::chrono::system_clock::now();
  auto report = StartBaselineReport("memcpy", options.device, options.command_line, started);
  if (!report) return report;

  const std::vector<RawCopyPath> paths = PlanRawPaths(options);
  for (const uint64_t bytes : options.sizes) {
    if (options.progress) std::fprintf(stderr, "host memcpy %s\n", FormatByteSize(bytes).c_str());
    auto ceiling = bench::MeasureHostCeiling(bytes, options.copy.plan);
    if (!ceiling) return tl::unexpected(ceiling.error());
    report->ceiling.push_back(*ceiling);
    for (const RawCopyPath& path : paths) {
      if (options.progress) {
        std::fprintf(stderr, "%s %s %s\n",
                     std::string(bench::DirectionName(path.direction)).c_str(),
                     std::string(bench::HostMemoryName(path.host_memory)).c_str(),
                     FormatByteSize(bytes).c_str());
      }
      report->results.push_back(MeasureRawCopy(path, bytes, ceiling->gbps.median, options.copy));
    }
  }
  FinishBaselineReport(*report, started);
  return report;
}

}  // namespace sectl::cuda_baseline
