#include "bench/regression_confirmation.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "base/byte_sizes.h"

namespace sectl::bench {
namespace {

// What makes two rows or results the same measurement.
using Key = ResultIdentity;

Key KeyOf(const ComparisonRow& row) { return IdentityOf(row); }

Key KeyOf(const BandwidthResult& result) {
  ComparisonRow row;
  row.series = SeriesKeyOf(result);
  row.bytes = result.bytes;
  return KeyOf(row);
}

Key KeyOf(const LatencyResult& result) {
  ComparisonRow row;
  row.operation = result.operation;
  return KeyOf(row);
}

template <typename Value>
void AddOnce(std::vector<Value>& values, Value value) {
  if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
}

// The elements of `from` whose key `like` has, in `like`'s order.
template <typename Result>
Expected<std::vector<Result>> Pick(const std::vector<Result>& from,
                                   const std::vector<Result>& like) {
  std::map<Key, const Result*> index;
  for (const Result& result : from) index.emplace(KeyOf(result), &result);
  std::vector<Result> picked;
  picked.reserve(like.size());
  for (const Result& wanted : like) {
    const auto found = index.find(KeyOf(wanted));
    if (found == index.end()) {
      return Fail(ErrorCode::kNotFound, "the first run did not measure a re-measured result");
    }
    picked.push_back(*found->second);
  }
  return picked;
}

std::string Signed(const std::optional<double>& change) {
  return change ? fmt::format("{:+.1f}%", *change * 100) : std::string("no median");
}

}  // namespace

bool HasRegressions(const Comparison& comparison) { return comparison.regressions > 0; }

MemcpyBenchOptions NarrowToRegressions(const MemcpyBenchOptions& measured,
                                       const Comparison& comparison) {
  MemcpyBenchOptions narrowed = measured;
  narrowed.sizes.clear();
  narrowed.directions.clear();
  narrowed.host_memories.clear();
  narrowed.modes.clear();
  for (const ComparisonRow& row : comparison.rows) {
    if (row.verdict != ChangeVerdict::kRegression || !row.series) continue;
    AddOnce(narrowed.sizes, row.bytes);
    AddOnce(narrowed.directions, row.series->direction);
    AddOnce(narrowed.modes, row.series->mode);
    // A device-to-device copy has no host side; it asks for no host memory.
    if (row.series->host_memory != HostMemory::kNone) {
      AddOnce(narrowed.host_memories, row.series->host_memory);
    }
  }
  std::sort(narrowed.sizes.begin(), narrowed.sizes.end());
  // Only d2d regressed: the host memory does not matter, keep what was used.
  if (narrowed.host_memories.empty()) narrowed.host_memories = measured.host_memories;
  return narrowed;
}

Expected<BenchReport> RestrictToResultsOf(const BenchReport& report, const BenchReport& like) {
  BenchReport restricted = report;
  auto results = Pick(report.results, like.results);
  if (!results) return tl::unexpected(results.error());
  restricted.results = std::move(*results);
  auto latency = Pick(report.latency, like.latency);
  if (!latency) return tl::unexpected(latency.error());
  restricted.latency = std::move(*latency);
  restricted.ceiling.clear();
  for (const CeilingResult& wanted : like.ceiling) {
    const auto found = std::find_if(
        report.ceiling.begin(), report.ceiling.end(),
        [&wanted](const CeilingResult& ceiling) { return ceiling.bytes == wanted.bytes; });
    if (found == report.ceiling.end()) {
      return Fail(ErrorCode::kNotFound, fmt::format("the first run has no host ceiling at {}",
                                                    FormatByteSize(wanted.bytes)));
    }
    restricted.ceiling.push_back(*found);
  }
  return restricted;
}

Comparison ApplyConfirmation(Comparison first, const Comparison& combined,
                             const std::vector<Comparison>& each_run) {
  const auto runs = static_cast<int>(each_run.size());
  const auto by_key = [](const Comparison& comparison) {
    std::map<Key, const ComparisonRow*> rows;
    for (const ComparisonRow& row : comparison.rows) rows.emplace(KeyOf(row), &row);
    return rows;
  };
  const auto together = by_key(combined);
  std::vector<std::map<Key, const ComparisonRow*>> alone;
  alone.reserve(each_run.size());
  for (const Comparison& run : each_run) alone.push_back(by_key(run));
  const bool lower_is_better = first.kind == "latency";
  // Whether a run shows the result worse than the baseline by more than
  // the tolerance (or not measured at all).
  const auto worse = [&](const ComparisonRow& row) {
    if (!row.new_median) return true;
    if (!row.change) return false;
    const double better = lower_is_better ? -*row.change : *row.change;
    return better < -first.tolerance;
  };

  for (ComparisonRow& row : first.rows) {
    if (row.verdict != ChangeVerdict::kRegression) continue;
    const auto found = together.find(KeyOf(row));
    if (found == together.end()) {
      row.note = fmt::format("{}{}not re-measured", row.note, row.note.empty() ? "" : "; ");
      continue;
    }
    std::vector<std::string> changes;
    bool every_run_worse = true;
    for (const auto& run : alone) {
      const auto mine = run.find(KeyOf(row));
      if (mine == run.end()) continue;
      changes.push_back(Signed(mine->second->change));
      every_run_worse = every_run_worse && worse(*mine->second);
    }
    const ComparisonRow& judged = *found->second;
    const std::string context = fmt::format(
        "{} in this run, {} in {} more run{}, {} as the median of {} runs", Signed(row.change),
        fmt::join(changes, " and "), runs, runs == 1 ? "" : "s", Signed(judged.change), runs + 1);
    const std::string first_note = row.note;
    row.new_median = judged.new_median;
    row.change = judged.change;
    row.p_value = judged.p_value;
    row.verdict = judged.verdict;
    // Significant together (unstable is judged only once significant): a
    // regression when every run shows it, even if a re-measurement on a
    // busy machine had not settled; the first run had.
    const bool significant =
        judged.verdict == ChangeVerdict::kRegression || judged.verdict == ChangeVerdict::kUnstable;
    if (significant && every_run_worse) {
      row.verdict = ChangeVerdict::kRegression;
      row.note = "confirmed: " + context;
      if (!first_note.empty() && !judged.new_median) row.note += "; " + first_note;
      continue;
    }
    if (judged.verdict == ChangeVerdict::kRegression) {
      // Together significant, but some run is no worse than the tolerance:
      // the baseline, not the plugin, stands out.
      row.verdict = ChangeVerdict::kNotSignificant;
      row.note = fmt::format("not confirmed, not worse by more than {:g}% in every run: {}",
                             first.tolerance * 100, context);
      continue;
    }
    row.note = "not confirmed: " + context;
    if (!judged.note.empty()) row.note += "; " + judged.note;
  }
  first.confirmation_runs = runs;
  RecountVerdicts(first);
  return first;
}

Comparison ConfirmRegressions(const BenchReport& saved, const BenchReport& report,
                              const Comparison& first, const BenchOptions& measured_with,
                              int runs) {
  if (runs <= 0 || !HasRegressions(first)) return first;
  auto unconfirmed = [&first](const std::string& why) {
    Comparison kept = first;
    for (ComparisonRow& row : kept.rows) {
      if (row.verdict != ChangeVerdict::kRegression) continue;
      row.note += fmt::format("{}not re-measured: {}", row.note.empty() ? "" : "; ", why);
    }
    return kept;
  };

  BenchOptions again = measured_with;
  again.runs = 1;
  if (again.kind == BenchKind::kMemcpy) again.memcpy = NarrowToRegressions(again.memcpy, first);
  std::vector<BenchReport> all_runs;
  all_runs.reserve(static_cast<size_t>(runs) + 1);
  all_runs.emplace_back();  // the first run's matching results, filled below
  for (int run = 0; run < runs; ++run) {
    if (measured_with.on_progress) {
      again.on_progress = [&measured_with, run, runs](int done, int total, std::string_view step) {
        measured_with.on_progress(run * total + done, runs * total,
                                  fmt::format("re-measuring {}/{}: {}", run + 1, runs, step));
      };
    }
    auto measured = RunBench(again);
    if (!measured) return unconfirmed(measured.error().message());
    // What a run that stopped did not measure would read as "no longer
    // measured": confirmed regressions that are only the plugin's stalls.
    if (measured->stopped) {
      return unconfirmed(fmt::format("the re-measurement stopped early: {}", *measured->stopped));
    }
    all_runs.push_back(std::move(*measured));
  }
  std::vector<Comparison> each_run;
  for (size_t run = 1; run < all_runs.size(); ++run) {
    auto alone =
        CompareBenchReports(saved, all_runs[run], first.tolerance, first.significance_level);
    if (!alone) return unconfirmed(alone.error().message());
    each_run.push_back(std::move(*alone));
  }
  auto matching = RestrictToResultsOf(report, all_runs[1]);
  if (!matching) return unconfirmed(matching.error().message());
  all_runs.front() = std::move(*matching);
  auto combined = CombineBenchRuns(std::move(all_runs));
  if (!combined) return unconfirmed(combined.error().message());
  auto together = CompareBenchReports(saved, *combined, first.tolerance, first.significance_level);
  if (!together) return unconfirmed(together.error().message());
  return ApplyConfirmation(first, *together, each_run);
}

}  // namespace sectl::bench
