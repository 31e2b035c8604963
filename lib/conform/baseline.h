// Baselines: a vendor's list of known failures, flakes and skips, so CI can
// fail on regressions only while the known problems are being fixed.
//
// A baseline is a text file with one entry per line. `#` starts a comment
// anywhere on a line; blank lines are ignored:
//
//   # KIND   CHECK-ID-GLOB     [expires=YYYY-MM-DD]   REASON (rest of the line, required)
//   fail     memcpy.dtod.*     expires=2027-03-31     DMA engine drops odd tails (VENDOR-123)
//   flake    events.*                                 races under load
//   skip     timers.*                                 this device has no timers
//
// Options are `key=value` words right after the glob; `expires` is the only
// one. The first word after them starts the reason, so a reason cannot
// itself start with `key=value`.
//
// For each check, the FIRST entry whose glob matches its id decides; later
// entries that match the same id never apply to it.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "report/conform_report.h"

namespace sectl::conform {

enum class BaselineKind {
  kFail,   // fails every time, until fixed
  kFlake,  // fails some of the time
  kSkip,   // not to be run at all on this device
};

struct BaselineEntry {
  BaselineKind kind = BaselineKind::kFail;
  std::string pattern;  // a glob over check ids, as for --filter
  std::string reason;
  std::optional<std::chrono::year_month_day> expires;  // the last day it applies
  std::string location;                                // "FILE:LINE", for messages
};

struct Baseline {
  std::vector<BaselineEntry> entries;
};

// Parses baseline text; `file_name` only labels locations and errors. An
// error is one line, `FILE:LINE: what is wrong`.
Expected<Baseline> ParseBaseline(std::string_view text, const std::string& file_name);

// Reads and parses the baseline file at `path`.
Expected<Baseline> LoadBaseline(const std::string& path);

// True once `today` is past the entry's expiry date; an entry is still valid
// on the day it expires.
bool IsExpired(const BaselineEntry& entry, std::chrono::year_month_day today);

// The entry that tells the runner not to run check `id` at all: the first
// entry matching `id`, when it is an unexpired `skip` entry; otherwise null.
// It is the same entry ApplyBaseline later judges the skipped result by, so
// a skip the baseline asked for always comes out `expected`.
const BaselineEntry* FindSkipEntry(const Baseline& baseline, std::string_view id,
                                   std::chrono::year_month_day today);

// Sets `baseline` and `baseline_reason` of every result from the first entry
// that matches its id:
//   - an expired entry: kExpired, whatever the status (it excuses nothing);
//   - `fail`: a failure is kExpected, a pass kFixed, anything else kNone;
//   - `flake`: a failure is kExpected, anything else kNone (a flake that
//     passes is not fixed);
//   - `skip`: a skip is kExpected, anything else kNone;
//   - no entry: a failure is kRegression, anything else kNone.
// `baseline_reason` is the entry's "FILE:LINE: reason", empty with no entry.
void ApplyBaseline(const Baseline& baseline, std::chrono::year_month_day today,
                   std::vector<report::CheckResult>& results);

// A baseline to start from: a header that explains the format, then a
// `fail` entry for every check id that failed (failed, crashed or timed
// out), once however many repetitions failed. ParseBaseline reads it back.
std::string WriteBaseline(const std::vector<report::CheckResult>& results,
                          std::chrono::year_month_day today);

// "2027-03-31".
std::string FormatDate(std::chrono::year_month_day date);

// Today's date in UTC.
std::chrono::year_month_day Today();

}  // namespace sectl::conform
