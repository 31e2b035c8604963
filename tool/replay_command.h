// `sectl replay TRACE [PLUGIN]`: re-issue the calls of a trace written by
// libsectl_validate.so against a plugin (by default the bundled cpu one)
// and report the first place it behaves differently.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "tool/confinement_flags.h"

namespace sectl::tool {

struct ReplayCommandOptions {
  std::string trace;
  std::string plugin;
  double timeout_seconds = 120;
  std::string format = "text";
  std::string output;
  bool stop_at_first = false;
  bool lazy = false;
  std::string isolation = "process";
  bool no_progress = false;
  ConfinementFlags confinement;
};

CLI::App* AddReplayCommand(CLI::App& app, ReplayCommandOptions& options);

// Exit status: 0 clean; 1 a divergence, or the plugin crashed or hung;
// 2 bad input (no such trace, a malformed one, no such plugin).
int RunReplayCommand(const ReplayCommandOptions& options);

}  // namespace sectl::tool
