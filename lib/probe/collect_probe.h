// Describing a plugin by loading it into this process and using it through
// the embedded host runtime. RunProbe wraps this in a child process.
#pragma once

#include <string>

#include "abi/host_generations.h"
#include "base/error.h"
#include "host/journal.h"
#include "probe/probe_report.h"

namespace sectl::probe {

struct ProbeOptions {
  std::string plugin_path;
  bool lazy = false;
  abi::HostGeneration generation = abi::LatestHostGeneration();
  std::string tool_version;
  // The sectl-plugin-server executable that loads the plugin and performs
  // its calls (docs/plugin-server.md), so that nothing the probe reports is
  // decided in the plugin's process. Empty: the plugin is loaded here
  // (--isolation none).
  std::string plugin_server;
};

// Loads, registers and describes the plugin, then tears it down in
// TensorFlow's order. An error only when it cannot be loaded or SE_InitPlugin
// fails; everything else is a finding in the report.
Expected<ProbeReport> CollectProbe(const ProbeOptions& options, host::Journal& journal);

}  // namespace sectl::probe
