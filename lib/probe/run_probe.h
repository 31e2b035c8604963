// `sectl probe` as a library call: the probe runs in a child process, so a
// plugin that crashes, hangs or calls exit() gets a one-line diagnosis
// naming the plugin call it was in, instead of taking sectl down.
#pragma once

#include <chrono>
#include <string>

#include "base/error.h"
#include "isolation/confinement.h"
#include "probe/collect_probe.h"
#include "probe/probe_report.h"

namespace sectl::probe {

enum class Isolation {
  kProcess,  // a child process per probe (the default)
  kNone,     // in sectl's own process, for debugging with gdb
};

struct RunProbeOptions {
  ProbeOptions probe;
  Isolation isolation = Isolation::kProcess;
  std::chrono::milliseconds timeout{30'000};
  // Resource limits and environment of the probe's process.
  isolation::Confinement confinement;
};

// The report, with what the plugin printed in `plugin_output`.
Expected<ProbeReport> RunProbe(const RunProbeOptions& options);

}  // namespace sectl::probe
