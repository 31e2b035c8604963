// `sectl bench latency`: what the operations a framework issues thousands
// of times a step cost, in nanoseconds per operation.
#pragma once

#include "base/error.h"
#include "bench/bench_report.h"
#include "bench/memcpy_bench.h"
#include "bench/sampling.h"
#include "bench/step_deadline.h"
#include "host/device.h"

namespace sectl::bench {

// The operations measured, by name, for progress and --list.
std::vector<std::string_view> LatencyOperationNames();

// Appends one LatencyResult per operation to `report`. An operation the
// plugin lacks, or one that fails, gets a result with its error; so does
// each operation after `deadline` (when given) stopped the run, saying why.
// (A latency result has no warnings: the operations that took longer than
// the step limit are named where the run stopped, in report.stopped.)
void RunLatencyBench(const host::Device& device, const SamplingPlan& plan, BenchReport& report,
                     const ProgressCallback& progress = {}, StepDeadline* deadline = nullptr);

}  // namespace sectl::bench
