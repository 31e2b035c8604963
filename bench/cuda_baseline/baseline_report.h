// What every sectl-cuda-baseline report starts with: the CUDA device made
// current on this thread, and the provenance a sectl bench report carries,
// filled in for a run that calls the CUDA runtime directly.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "bench/bench_report.h"

namespace sectl::cuda_baseline {

// Makes CUDA device `ordinal` current and returns a report of `kind`
// ("memcpy" or "latency") that names it, with no results yet. An error when
// there is no usable CUDA device ("no CUDA device: cudaGetDeviceCount: ...")
// or no such ordinal (kInvalidArgument).
Expected<bench::BenchReport> StartBaselineReport(std::string_view kind, int ordinal,
                                                 const std::vector<std::string>& command_line,
                                                 std::chrono::system_clock::time_point started);

// Sets the report's duration, from `started` until now.
void FinishBaselineReport(bench::BenchReport& report,
                          std::chrono::system_clock::time_point started);

}  // namespace sectl::cuda_baseline
