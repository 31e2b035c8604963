// What `sectl replay` found: where the trace came from, how far the replay
// got, and each way the replayed plugin behaved differently from the
// recorded one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/error.h"

namespace sectl::replay {

// One call that behaved differently in the replay.
struct Divergence {
  size_t record_index = 0;  // in the trace's records, from 0
  uint64_t sequence = 0;
  uint32_t thread = 0;
  std::string function;  // abi::QualifiedName
  std::string objects;   // "stream 2, allocation 3 [4096, +256)"
  std::string what;      // what differed
};

enum class ReplayOutcome {
  kClean,     // every call behaved as recorded
  kDiverged,  // at least one divergence
  kCrashed,   // the plugin's process died (signal, exit) during the replay
  kHung,      // it did not finish within the timeout
};

// "clean", "diverged", "crashed", "hung".
std::string_view OutcomeName(ReplayOutcome outcome);

struct ReplayReport {
  // Provenance.
  std::string trace_path;
  std::string traced_plugin_path;  // the trace header's
  std::string traced_plugin_sha256;
  std::string traced_platform_name;
  std::string plugin_path;  // the plugin replayed
  std::string plugin_sha256;
  std::string platform_name;
  size_t records = 0;
  bool trace_truncated = false;

  ReplayOutcome outcome = ReplayOutcome::kClean;
  size_t calls_replayed = 0;  // plugin calls the replay made for records
  size_t records_skipped = 0;
  // Divergences in trace order; the first is the one to look at. At most
  // kMaxKeptDivergences are kept, `divergence_count` counts them all.
  std::vector<Divergence> divergences;
  size_t divergence_count = 0;
  bool stopped_at_first = false;
  // For kCrashed and kHung: what happened, and at which record (index in
  // the trace; -1 when before the first record or unknown).
  std::string failure;
  int64_t failure_record = -1;
  // What the replay could not do or check, one line each (capped).
  std::vector<std::string> notes;
  size_t note_count = 0;
  double duration_s = 0;
};

inline constexpr size_t kMaxKeptDivergences = 50;
inline constexpr size_t kMaxKeptNotes = 50;

// The report as JSON (the `--format json` output and the child's answer).
std::string ReplayReportToJson(const ReplayReport& report);
Expected<ReplayReport> ReplayReportFromJson(const std::string& text);

// The human-readable report: provenance, then "replayed N calls: clean" or
// the first divergence and how many more.
std::string RenderReplayText(const ReplayReport& report);

}  // namespace sectl::replay
