#include "baseline_run.h"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <chrono>
#include <cstdio>

#include "base/byte_sizes.h"
#include "base/host_info.h"
#include "base/timestamp.h"
#include "bench/host_ceiling.h"
#include "cuda_error.h"

namespace sectl::cuda_baseline {
namespace {

// Makes `ordinal` the current device and returns its name.
Expected<std::string> OpenDevice(int ordinal) {
  int count = 0;
  if (auto counted = Check(cudaGetDeviceCount(&count), "cudaGetDeviceCount"); !counted) {
    return tl::unexpected(counted.error().WithContext("no CUDA device"));
  }
  if (ordinal < 0 || ordinal >= count) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("--device {}: there are {} CUDA devices", ordinal, count));
  }
  if (auto set = Check(cudaSetDevice(ordinal), "cudaSetDevice"); !set) {
    return tl::unexpected(set.error());
  }
  cudaDeviceProp properties{};
  if (auto described =
          Check(cudaGetDeviceProperties(&properties, ordinal), "cudaGetDeviceProperties");
      !described) {
    return tl::unexpected(described.error());
  }
  return std::string(properties.name);
}

}  // namespace

Expected<bench::BenchReport> RunBaseline(const BaselineOptions& options) {
  const auto started = std::chrono::system_clock::now();
  auto device_name = OpenDevice(options.device);
  if (!device_name) return tl::unexpected(device_name.error());

  bench::BenchReport report;
  report.kind = "memcpy";
  report.tool_name = "sectl-cuda-baseline";
  report.tool_version = SECTL_VERSION;
  // No plugin: the CUDA runtime is called directly. Comparisons label each
  // report by its path, so say so there.
  report.plugin_path = "(none: the CUDA runtime called directly)";
  report.platform_name = "CUDA runtime " + std::to_string(CUDART_VERSION / 1000) + "." +
                         std::to_string(CUDART_VERSION % 1000 / 10) + " (no plugin)";
  report.device_ordinal = options.device;
  report.device_name = *device_name;
  report.host = DescribeHost();
  report.command_line = options.command_line;
  report.started_at = IsoTimestamp(started);
  report.threads = 1;

  for (const uint64_t bytes : options.sizes) {
    if (options.progress) std::fprintf(stderr, "host memcpy %s\n", FormatByteSize(bytes).c_str());
    auto ceiling = bench::MeasureHostCeiling(bytes, options.copy.plan);
    if (!ceiling) return tl::unexpected(ceiling.error());
    report.ceiling.push_back(*ceiling);
    for (const bench::Direction direction : options.directions) {
      if (options.progress) {
        std::fprintf(stderr, "%s %s\n", std::string(bench::DirectionName(direction)).c_str(),
                     FormatByteSize(bytes).c_str());
      }
      report.results.push_back(
          MeasureRawCopy(direction, bytes, ceiling->gbps.median, options.copy));
    }
  }
  report.duration_s =
      std::chrono::duration<double>(std::chrono::system_clock::now() - started).count();
  return report;
}

}  // namespace sectl::cuda_baseline
