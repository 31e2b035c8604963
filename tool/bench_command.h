// `sectl bench memcpy|latency [PLUGIN]`: measure a plugin's copy bandwidth
// beside the host's memcpy ceiling, or the latency of its frequent
// operations; optionally gate on a saved report.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "bench/regression_confirmation.h"
#include "tool/confinement_flags.h"
#include "tool/output_flags.h"

namespace sectl::tool {

struct BenchCommandOptions {
  std::string plugin;
  // memcpy
  std::string directions = "all";
  std::string host_memory = "auto";
  std::string mode = "async";
  std::string sizes = "4KiB:256MiB";
  bool no_verify = false;
  // both
  double budget_seconds = 0.25;
  int device = 0;
  std::string tf_version = "latest";
  bool lazy = false;
  std::string report_format = "table";
  std::string output;
  std::string html_output;  // --html
  std::string plot;
  std::string compare;
  std::string tolerance = "10%";
  int repeat_runs = 1;
  int confirm_runs = bench::kDefaultConfirmRuns;
  double timeout_seconds = 60;
  double deadline_seconds = 0;  // 0: bench::DefaultRunDeadline
  std::string isolation = "process";
  bool no_progress = false;
  ConfinementFlags confinement;
  OutputFlags output_flags;  // --color
  std::vector<std::string> command_line;
};

struct BenchCommands {
  CLI::App* bench;
  CLI::App* memcpy;
  CLI::App* latency;
};

BenchCommands AddBenchCommand(CLI::App& app, BenchCommandOptions& options);

// Runs whichever of memcpy and latency was parsed.
int RunBenchCommand(const BenchCommands& commands, const BenchCommandOptions& options);

}  // namespace sectl::tool
