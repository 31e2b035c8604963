// `sectl bench` as one library call: register the plugin, measure, and
// return the report. The plugin runs in a child process, so one that
// crashes, calls exit() or stops returning costs a one-line diagnosis,
// not sectl.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "abi/host_generations.h"
#include "base/error.h"
#include "bench/bench_report.h"
#include "bench/memcpy_bench.h"
#include "bench/sampling.h"
#include "isolation/confinement.h"

namespace sectl::bench {

enum class BenchKind { kMemcpy, kLatency };

struct BenchOptions {
  BenchKind kind = BenchKind::kMemcpy;
  std::string plugin_path;
  bool lazy = false;
  abi::HostGeneration generation = abi::LatestHostGeneration();
  int device_ordinal = 0;
  MemcpyBenchOptions memcpy;  // for kMemcpy
  SamplingPlan latency_plan;  // for kLatency
  bool isolate = true;
  // Limits, environment and descriptors of the measuring child.
  isolation::Confinement confinement;
  // A plugin that makes no progress (no call returns, no measurement
  // finishes) for this long is killed; a step that takes longer counts
  // against the run (step_deadline.h).
  std::chrono::milliseconds stall_timeout{60'000};
  // How long each run may take before it stops measuring (step_deadline.h);
  // 0: DefaultRunDeadline of its steps, --budget and stall_timeout.
  std::chrono::milliseconds deadline{0};
  // How many times to run the whole measurement (--repeat-runs). Each run
  // is a fresh process; the report holds the median of the runs' medians
  // per result, and every run's samples (CombineRuns).
  int runs = 1;
  std::vector<std::string> command_line;
  std::string tool_version;
  // Called as measurements start: how many are done, of how many, and what
  // is being measured now. From the calling thread.
  std::function<void(int done, int total, std::string_view step)> on_progress;
};

Expected<BenchReport> RunBench(const BenchOptions& options);

// How many steps (the ceiling of a size, a path at a size, a latency
// operation) a run of `options` makes at most, counted from the options
// alone (the supervising process's own count, which nothing the plugin
// writes can change), and the deadline it runs under: options.deadline, or
// DefaultRunDeadline of those steps.
int MostSteps(const BenchOptions& options);
std::chrono::milliseconds RunDeadlineOf(const BenchOptions& options);

// The reports of several runs of the same measurement as one (the first
// run's provenance, runs = how many): per result, CombineRuns of the runs'
// distributions; stable when more than half of the runs settled; the first
// failed verification, error and the warnings of any run; why the first run
// that stopped early stopped. An error when the runs did not measure the
// same results in the same order.
Expected<BenchReport> CombineBenchRuns(std::vector<BenchReport> runs);

}  // namespace sectl::bench
