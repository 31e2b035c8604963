// `sectl bench latency`: what the operations a framework issues thousands
// of times a step cost, in nanoseconds per operation.
#pragma once

#include "base/error.h"
#include "bench/bench_report.h"
#include "bench/memcpy_bench.h"
#include "bench/sampling.h"
#include "host/device.h"

namespace sectl::bench {

// The operations measured, by name, for progress and --list.
std::vector<std::string_view> LatencyOperationNames();

// Appends one LatencyResult per operation to `report`. An operation the
// plugin lacks, or one that fails, gets a result with its error.
void RunLatencyBench(const host::Device& device, const SamplingPlan& plan, BenchReport& report,
                     const ProgressCallback& progress = {});

}  // namespace sectl::bench
