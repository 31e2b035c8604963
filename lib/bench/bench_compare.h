// `sectl bench --compare OLD.json`: the new run judged against a saved one,
// for CI performance gates. Results are matched by copy path and size
// (latency: by operation).
//
// A result is a regression only when two things hold at once:
//   - its median moved the wrong way by more than the tolerance, and
//   - the move is not noise: a two-sided Mann–Whitney U test of the old
//     run's samples against the new run's (statistics.h) gives p < alpha.
// A result whose median had not settled in either run (not "stable") is
// reported as unstable, never as a regression; so is a bandwidth whose
// control fell with it: the host's own memcpy at the same size, timed in
// the same run, slower by so much that against it the plugin moved by no
// more than the tolerance (the machine was slower, not the plugin). A report from before the
// samples were kept is judged on its medians alone, and each row says so.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "base/error.h"
#include "bench/bench_report.h"
#include "bench/bench_series.h"

namespace sectl::bench {

// The significance level of the rank test: how often two runs of the same
// code may be told apart by chance alone, per result.
inline constexpr double kDefaultSignificanceLevel = 0.05;

enum class ChangeVerdict {
  kWithinTolerance,
  kNotSignificant,  // beyond the tolerance, but within the noise of the two runs
  kUnstable,        // beyond the tolerance, but a median had not settled
  kImproved,        // better by more than the tolerance, significantly
  kRegression,      // worse by more than the tolerance, significantly; or no longer measured
  kOnlyInOld,       // not measured this time (listed, not a regression)
  kOnlyInNew,       // new this time
  kNotComparable    // the old run could not measure it, so there is nothing to hold it to;
                    // or either run's result is not measurable (no number at all)
};

std::string_view ChangeVerdictName(ChangeVerdict verdict);  // "within_tolerance", ...

struct ComparisonRow {
  // What was compared: a copy path and size, or a latency operation.
  std::optional<SeriesKey> series;  // memcpy rows
  uint64_t bytes = 0;               // memcpy rows
  std::string operation;            // latency rows
  // Medians, GB/s or ns; absent where a report lacks the result or could
  // not measure it.
  std::optional<double> old_median;
  std::optional<double> new_median;
  // (new - old) / old, when both medians are there and old is not zero.
  std::optional<double> change;
  // The rank test's p-value, when both runs kept their samples.
  std::optional<double> p_value;
  ChangeVerdict verdict = ChangeVerdict::kWithinTolerance;
  std::string note;  // why, for rows the medians do not explain ("no longer measured: ...")
};

struct Comparison {
  std::string kind;  // "memcpy" or "latency"
  double tolerance = 0;
  double significance_level = kDefaultSignificanceLevel;
  // One line naming each report: tool, plugin, when.
  std::string old_label;
  std::string new_label;
  // The new report's results in its order, then those only the old one has.
  std::vector<ComparisonRow> rows;
  int regressions = 0;
  int improvements = 0;
  int within_tolerance = 0;
  int not_significant = 0;
  int unstable = 0;
  int only_in_old = 0;
  int only_in_new = 0;
  int not_comparable = 0;
  // How many more runs re-measured the results that first looked
  // regressed (regression_confirmation.h); 0 when none did.
  int confirmation_runs = 0;
};

// What makes two results the same measurement (a copy path and size, or a
// latency operation), ordered for a map.
using ResultIdentity = std::tuple<bool, int, int, int, uint64_t, std::string>;
ResultIdentity IdentityOf(const ComparisonRow& row);

// Sets the counts of `comparison` from its rows' verdicts.
void RecountVerdicts(Comparison& comparison);

// What the gate concludes from a comparison. A confirmed regression fails
// it whatever else is true. Otherwise, when more than half of the results
// both reports hold could not be judged (unstable, or not comparable), a
// pass would rest on the few that could: the gate is inconclusive, and says
// to measure again, rather than pass.
enum class GateVerdict { kPassed, kFailed, kInconclusive };

std::string_view GateVerdictName(GateVerdict verdict);  // "passed", "failed", "inconclusive"

// The results both reports hold (judged or not), and of them those the gate
// could not judge: unstable or not comparable.
int ResultsInBoth(const Comparison& comparison);
int ResultsNotJudged(const Comparison& comparison);

GateVerdict JudgeGate(const Comparison& comparison);

// Compares `now` with `old` at `tolerance` (0.10 for 10%) and the rank
// test's `significance_level`. An error when the reports are of different
// kinds, the tolerance is not in [0, 1), the level not in (0, 1), or a
// report holds the same result twice.
Expected<Comparison> CompareBenchReports(const BenchReport& old, const BenchReport& now,
                                         double tolerance,
                                         double significance_level = kDefaultSignificanceLevel);

// Whether `old` (a saved report) can be compared with a run of `kind`
// ("memcpy" or "latency"): of that kind, no result twice, and at least one
// result measured. The check is made before measuring, so that a report
// nothing can be compared with costs no measurement.
Expected<void> CheckComparable(const BenchReport& old, std::string_view kind);

// "0.31", "0.0012", "<0.001": a p-value as the table shows it.
std::string FormatPValue(double p_value);

// "h2d pinned async 64 MiB" or the operation's name.
std::string RowName(const ComparisonRow& row);

// A table of the changes per result, then a one-line verdict.
std::string RenderComparison(const Comparison& comparison, size_t width = 0);

// The comparison as JSON, for embedding in a report.
nlohmann::ordered_json ComparisonToJson(const Comparison& comparison);

}  // namespace sectl::bench
