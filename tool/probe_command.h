// `sectl probe [PLUGIN]`: describe a plugin like clinfo describes OpenCL.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "tool/confinement_flags.h"
#include "tool/output_flags.h"

namespace sectl::tool {

struct ProbeCommandOptions {
  std::string plugin;  // empty: the bundled cpu plugin
  std::string format = "table";
  std::string output;
  std::string tf_version = "latest";
  bool lazy = false;
  bool verbose = false;  // -v: one line per kernel the plugin registered
  double timeout_seconds = 30;
  std::string isolation = "process";
  std::string abi = "auto";  // --abi: auto, streamexecutor, tvm-c-device, tvm-runtime
  std::string tvm_core;      // --tvm-core: TVM's core library, for a backend library
  ConfinementFlags confinement;
  OutputFlags output_flags;  // --color
};

CLI::App* AddProbeCommand(CLI::App& app, ProbeCommandOptions& options);

// Runs the probe and returns sectl's exit status.
int RunProbeCommand(const ProbeCommandOptions& options);

}  // namespace sectl::tool
