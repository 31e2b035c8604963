// `sectl bench --compare OLD.json`: the new run judged against a saved one,
// for CI performance gates. Results are matched by copy path and size
// (latency: by operation); a result is a regression when its median moved
// the wrong way by more than the tolerance.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "bench/bench_report.h"
#include "bench/bench_series.h"

namespace sectl::bench {

enum class ChangeVerdict {
  kWithinTolerance,
  kImproved,      // better by more than the tolerance
  kRegression,    // worse by more than the tolerance, or no longer measured
  kOnlyInOld,     // not measured this time (listed, not a regression)
  kOnlyInNew,     // new this time
  kNotComparable  // the old run could not measure it, so there is nothing to hold it to
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
  ChangeVerdict verdict = ChangeVerdict::kWithinTolerance;
  std::string note;  // why, for rows the medians do not explain ("no longer measured: ...")
};

struct Comparison {
  std::string kind;  // "memcpy" or "latency"
  double tolerance = 0;
  // One line naming each report: tool, plugin, when.
  std::string old_label;
  std::string new_label;
  // The new report's results in its order, then those only the old one has.
  std::vector<ComparisonRow> rows;
  int regressions = 0;
  int improvements = 0;
  int within_tolerance = 0;
  int only_in_old = 0;
  int only_in_new = 0;
  int not_comparable = 0;
};

// Compares `now` with `old` at `tolerance` (0.10 for 10%). An error when the
// reports are of different kinds, the tolerance is not in [0, 1), or a
// report holds the same result twice.
Expected<Comparison> CompareBenchReports(const BenchReport& old, const BenchReport& now,
                                         double tolerance);

// "h2d pinned async 64 MiB" or the operation's name.
std::string RowName(const ComparisonRow& row);

// A table of the changes per result, then a one-line verdict.
std::string RenderComparison(const Comparison& comparison);

// The comparison as JSON, for embedding in a report.
nlohmann::ordered_json ComparisonToJson(const Comparison& comparison);

}  // namespace sectl::bench
