// `sectl replay` as one library call: the trace is replayed in a child
// process with a deadline, so a plugin that crashes or hangs ends in a
// report that names the record it was replaying, not in sectl's death.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include "base/error.h"
#include "isolation/confinement.h"
#include "replay/replay_report.h"
#include "replay/replayer.h"
#include "trace/trace_record.h"

namespace sectl::replay {

// The memory limit of the replaying process (isolation::Confinement's
// memory_limit_bytes) when the user names none: a trace of a few records
// can ask for allocations and copies of any size, and the cpu plugin's
// device memory, like sectl's copy buffers, is the host's.
inline constexpr uint64_t kDefaultReplayMemoryLimitBytes = uint64_t{4} << 30;
inline constexpr std::string_view kDefaultReplayMemoryLimitLabel = "4GiB";

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
