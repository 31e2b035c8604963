// sectl-cuda-baseline's command line, read into what to measure. Apart from
// main.cc so that tests can read command lines on machines without a GPU.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "base/error.h"
#include "baseline_run.h"

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

// Declares the flags on `app`.
void DeclareCommandLine(CLI::App& app, CommandLine& line);

// What to run, checked.
struct BaselineRequest {
  BaselineOptions memcpy;
  std::string output;  // empty: stdout
};

// The request in `line`, once an app declared by DeclareCommandLine has
// parsed it. A usage error (kInvalidArgument) names its flag: sizes,
// directions or host memory that do not parse, a budget that is not a
// positive number of seconds.
Expected<BaselineRequest> ToRequest(const CommandLine& line);

}  // namespace sectl::cuda_baseline
