// `sectl replay` as one library call: the trace is replayed in a child
// process with a deadline, so a plugin that crashes or hangs ends in a
// report that names the record it was replaying, not in sectl's death.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "base/error.h"
#include "isolation/confinement.h"
#include "replay/replay_report.h"
#include "replay/replayer.h"
#include "trace/trace_record.h"

namespace sectl::replay {

struct RunReplayOptions {
  std::string trace_path;  // for the report
  ReplayOptions replay;
  // Run the plugin in a child process (false: in this one, for debugging).
  bool isolate = true;
  // The whole replay's deadline.
  std::chrono::milliseconds timeout{120'000};
  isolation::Confinement confinement;
  // Called now and then while the child runs: records replayed, of how many.
  std::function<void(uint64_t done, uint64_t total)> on_progress;
};

// Replays `trace` and returns the report, provenance included. A crash or
// a hang is a report (outcome kCrashed or kHung); an error only when the
// plugin cannot be loaded or sectl cannot run the child.
Expected<ReplayReport> RunReplay(const trace::Trace& trace, const RunReplayOptions& options);

}  // namespace sectl::replay
