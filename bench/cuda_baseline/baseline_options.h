// sectl-cuda-baseline's command line, read into what to measure. Apart from
// main.cc so that tests can read command lines on machines without a GPU.
//
//   sectl-cuda-baseline [memcpy flags]   copy bandwidth (`sectl bench memcpy`)
//   sectl-cuda-baseline latency [flags]  frequent operations (`sectl bench latency`)
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "base/error.h"
#include "baseline_run.h"
#include "raw_latency.h"

namespace sectl::cuda_baseline {

// The flags as typed, before they are checked. The defaults are `sectl
// bench`'s, but for --host-memory: pinned, which `sectl bench memcpy`
// chooses for a plugin with host_memory_allocate (as sectl_cuda has).
struct CommandLine {
  std::string sizes = "4KiB:256MiB";
  std::string directions = "all";
  std::string host_memory = "pinned";
  int device = 0;
  double budget_seconds = 0.25;
  bool no_verify = false;
  std::string output;
};

// Declares the flags on `app` and returns its `latency` subcommand. Both
// take --device, --budget and -o; the memcpy flags belong to `app` alone.
CLI::App* DeclareCommandLine(CLI::App& app, CommandLine& line);

enum class BaselineKind { kMemcpy, kLatency };

// What to run, checked.
struct BaselineRequest {
  BaselineKind kind = BaselineKind::kMemcpy;
  BaselineOptions memcpy;          // for kMemcpy
  LatencyBaselineOptions latency;  // for kLatency
  std::string output;              // empty: stdout
};

// The request in `line`, once `app` (declared by DeclareCommandLine) has
// parsed it. A usage error (kInvalidArgument) names its flag: sizes,
// directions or host memory that do not parse, a budget that is not a
// positive number of seconds, memcpy's flags given for latency.
Expected<BaselineRequest> ToRequest(const CommandLine& line, const CLI::App& app);

}  // namespace sectl::cuda_baseline
