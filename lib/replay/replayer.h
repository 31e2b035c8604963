// The replay engine: re-issues a trace's calls against a plugin, through
// sectl's host runtime, in the order they began (one thread: a valid
// linearisation of a race-free program), and compares what the plugin does
// now with what was recorded and with what its memory must hold.
//
// It runs the plugin in the calling process; run_replay.h runs it in a
// child process.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "base/error.h"
#include "host/journal.h"
#include "replay/replay_report.h"
#include "trace/trace_record.h"

namespace sectl::replay {

struct ReplayOptions {
  std::string plugin_path;
  bool lazy = false;  // RTLD_LAZY
  // Stop at the first divergence instead of counting the rest.
  bool stop_at_first = false;
  // The memory limit the replaying process runs under, as the user would
  // write it ("4GiB"); empty: none. An allocation that fails now says so.
  std::string memory_limit;
};

// How far a replay has got, in memory a supervising parent can read after
// the replaying process died: the record being replayed names the culprit
// of a crash or a hang.
struct ReplayProgress {
  // Index in the trace's records of the record being replayed; -1 before
  // the first and after the last.
  std::atomic<int64_t> record_in_progress{-1};
  std::atomic<uint64_t> records_done{0};
  // Divergences so far, and the record of the first (-1: none), for a
  // report of a replay that crashed before it could answer.
  std::atomic<uint64_t> divergences{0};
  std::atomic<int64_t> first_divergence{-1};
};

// Loads the plugin and replays `trace`. Fills the report's platform name,
// outcome (clean or diverged), counts, divergences and notes; the caller
// fills the provenance. An error only when the plugin cannot be loaded.
Expected<ReplayReport> ReplayTrace(const trace::Trace& trace, const ReplayOptions& options,
                                   host::Journal& journal, ReplayProgress& progress);

// "stream 2, destination allocation 3 [4096, +256)": the objects a record
// names, for a divergence.
std::string DescribeRecordObjects(const trace::TraceRecord& record);

}  // namespace sectl::replay
