#include "baseline_report.h"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "base/host_info.h"
#include "base/timestamp.h"
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

Expected<bench::BenchReport> StartBaselineReport(std::string_view kind, int ordinal,
                                                 const std::vector<std::string>& command_line,
                                                 std::chrono::system_clock::time_point started) {
  auto device_name = OpenDevice(ordinal);
  if (!device_name) return tl::unexpected(device_name.error());

  bench::BenchReport report;
  report.kind = std::string(kind);
  report.tool_name = "sectl-cuda-baseline";
  report.tool_version = SECTL_VERSION;
  // No plugin: the CUDA runtime is called directly. Comparisons label each
  // report by its path, so say so there.
  report.plugin_path = "(none: the CUDA runtime called directly)";
  report.platform_name = fmt::format("CUDA runtime {}.{} (no plugin)", CUDART_VERSION / 1000,
                                     CUDART_VERSION % 1000 / 10);
  report.device_ordinal = ordinal;
  report.device_name = *device_name;
  report.host = DescribeHost();
  report.command_line = command_line;
  report.started_at = IsoTimestamp(started);
  report.threads = 1;
  return report;
}

void FinishBaselineReport(bench::BenchReport& report,
                          std::chrono::system_clock::time_point started) {
  report.duration_s =
      std::chrono::duration<double>(std::chrono::system_clock::now() - started).count();
}

}  // namespace sectl::cuda_baseline
