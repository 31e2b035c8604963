#include "bench/bench_compare.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "base/byte_sizes.h"
#include "base/text_layout.h"
#include "bench/statistics.h"

namespace sectl::bench {
namespace {

using OrderedJson = nlohmann::ordered_json;

constexpr size_t kShownHashLength = 12;

// One result of either kind, reduced to what comparing needs.
struct Entry {
  ComparisonRow identity;  // series, bytes and operation; the rest unset
  double median = 0;
  std::vector<double> values;  // the samples; empty in an old report
  bool stable = true;
  std::optional<std::string> error;
  // Why the result is no number (a completion that cannot be believed).
  std::optional<std::string> not_measurable;
  // The host's own memcpy at the same size in the same run(s), GB/s: the
  // control measured beside every memcpy result; 0 where there is none.
  double ceiling = 0;
};

// How the rows are judged.
struct Criteria {
  double tolerance = 0;
  double significance_level = kDefaultSignificanceLevel;
  bool lower_is_better = false;
  size_t tested = 0;  // how many results had a rank test
};

std::vector<Entry> EntriesOf(const BenchReport& report) {
  std::vector<Entry> entries;
  if (report.kind == "latency") {
    for (const LatencyResult& latency : report.latency) {
      Entry entry{.median = latency.ns.median,
                  .values = latency.ns.values,
                  .stable = latency.stable,
                  .error = latency.error,
                  .not_measurable = latency.not_measurable};
      entry.identity.operation = latency.operation;
      entries.push_back(std::move(entry));
    }
    return entries;
  }
  for (const BandwidthResult& result : report.results) {
    Entry entry{.median = result.gbps.median,
                .values = result.gbps.values,
                .stable = result.stable,
                .error = result.error,
                .not_measurable = result.not_measurable,
                .ceiling = result.ceiling_gbps};
    entry.identity.series = SeriesKeyOf(result);
    entry.identity.bytes = result.bytes;
    entries.push_back(std::move(entry));
  }
  return entries;
}

// Each entry's position by identity; an error when one appears twice.
Expected<std::map<ResultIdentity, size_t>> IndexEntries(const std::vector<Entry>& entries,
                                                        std::string_view which) {
  std::map<ResultIdentity, size_t> index;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!index.emplace(IdentityOf(entries[i].identity), i).second) {
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("the {} report holds {} twice", which, RowName(entries[i].identity)));
    }
  }
  return index;
}

bool Measured(const Entry& entry) {
  return !entry.error && !entry.not_measurable && std::isfinite(entry.median);
}

// "+4.1%", "-20.0%"; from ten-fold on without the decimal ("+15341%"),
// which would only push the change out of its column.
std::string Signed(double change) {
  constexpr double kTenFold = 10;
  return std::abs(change) >= kTenFold ? fmt::format("{:+.0f}%", change * 100)
                                      : fmt::format("{:+.1f}%", change * 100);
}

// Which run's median had not settled: "the old run", "the new run", "either run".
std::string UnsettledIn(const Entry& old, const Entry& now) {
  if (!old.stable && !now.stable) return "either run";
  return old.stable ? "the new run" : "the old run";
}

// The rank test of one result, when both runs kept its samples.
std::optional<double> PValueOf(const Entry& old, const Entry& now) {
  if (!Measured(old) || !Measured(now) || old.values.empty() || now.values.empty()) {
    return std::nullopt;
  }
  return MannWhitneyU(old.values, now.values).p_value;
}

// Whether the machine rather than the plugin explains a bandwidth that
// fell beyond the tolerance: the host's own memcpy at the same size, timed
// in the same run(s), fell too, so that against it the plugin moved by no
// more than the tolerance. Then says so ("the host's own memcpy ...");
// nullopt when the control did not fall or a run has no ceiling.
std::optional<std::string> MachineExplains(const Entry& old, const Entry& now,
                                           const Criteria& criteria) {
  if (criteria.lower_is_better) return std::nullopt;  // latency has no control
  if (!(old.ceiling > 0 && now.ceiling > 0 && std::isfinite(old.ceiling) &&
        std::isfinite(now.ceiling))) {
    return std::nullopt;
  }
  const double ceiling_change = (now.ceiling - old.ceiling) / old.ceiling;
  if (ceiling_change >= 0) return std::nullopt;
  const double against_host = (now.median / now.ceiling) / (old.median / old.ceiling) - 1;
  if (against_host < -criteria.tolerance) return std::nullopt;
  return fmt::format(
      "the host's own memcpy at this size changed by {} in the same run: the machine was "
      "slower, not the plugin ({} against the host): not judged",
      Signed(ceiling_change), Signed(against_host));
}

// Judges one result measured in both runs, or at least in one. `held`
// says whether its p-value (PValueOf) is significant among all the
// comparison's, and at what level.
ComparisonRow Judge(const Entry& old, const Entry& now, const Criteria& criteria,
                    const HeldTo& held) {
  ComparisonRow row = now.identity;
  if (Measured(old)) row.old_median = old.median;
  if (Measured(now)) row.new_median = now.median;
  // What is no number cannot have improved or regressed: neither a pass
  // nor a failure of the gate (the run itself fails on it).
  if (now.not_measurable || old.not_measurable) {
    row.verdict = ChangeVerdict::kNotComparable;
    row.note = now.not_measurable
                   ? fmt::format("not measurable in the new run: {}", *now.not_measurable)
                   : fmt::format("not measurable in the old run: {}", *old.not_measurable);
    return row;
  }
  if (!row.old_median) {
    row.verdict = ChangeVerdict::kNotComparable;
    row.note = old.error ? fmt::format("not measured in the old run: {}", *old.error)
                         : "the old run's median is not a number";
    return row;
  }
  if (!row.new_median) {
    // A path that stops working is the worst slowdown there is.
    row.verdict = ChangeVerdict::kRegression;
    row.note = now.error ? fmt::format("no longer measured: {}", *now.error)
                         : "the new run's median is not a number";
    return row;
  }
  if (*row.old_median == 0) {
    row.verdict = ChangeVerdict::kNotComparable;
    row.note = "the old median is 0";
    return row;
  }
  row.change = (*row.new_median - *row.old_median) / *row.old_median;
  row.p_value = PValueOf(old, now);
  const double better = criteria.lower_is_better ? -*row.change : *row.change;
  if (better >= -criteria.tolerance && better <= criteria.tolerance) {
    row.verdict = ChangeVerdict::kWithinTolerance;
    return row;
  }
  // Beyond the tolerance: a verdict only for a change the samples show.
  if (!row.p_value) {
    row.note = old.values.empty() ? "old report has no samples: judged on medians"
                                  : "new report has no samples: judged on medians";
  } else if (!held.significant) {
    row.verdict = ChangeVerdict::kNotSignificant;
    row.note = fmt::format("changed by {} but within noise, p={}", Signed(*row.change),
                           FormatPValue(*row.p_value));
    if (*row.p_value < criteria.significance_level) {
      row.note +=
          fmt::format(" (held to {:.2g}, as one of {} results)", held.level, criteria.tested);
    }
    return row;
  }
  if (!old.stable || !now.stable) {
    row.verdict = ChangeVerdict::kUnstable;
    const std::string unsettled =
        fmt::format("changed by {}, but the median had not settled in {}: not judged",
                    Signed(*row.change), UnsettledIn(old, now));
    row.note = row.note.empty() ? unsettled : row.note + "; " + unsettled;
    return row;
  }
  if (better < 0) {
    if (auto machine = MachineExplains(old, now, criteria)) {
      row.verdict = ChangeVerdict::kUnstable;
      row.note = fmt::format("changed by {}, but {}", Signed(*row.change), *machine);
      return row;
    }
  }
  row.verdict = better < 0 ? ChangeVerdict::kRegression : ChangeVerdict::kImproved;
  return row;
}

void CountOne(Comparison& comparison, ChangeVerdict verdict) {
  switch (verdict) {
    case ChangeVerdict::kWithinTolerance:
      ++comparison.within_tolerance;
      return;
    case ChangeVerdict::kNotSignificant:
      ++comparison.not_significant;
      return;
    case ChangeVerdict::kUnstable:
      ++comparison.unstable;
      return;
    case ChangeVerdict::kImproved:
      ++comparison.improvements;
      return;
    case ChangeVerdict::kRegression:
      ++comparison.regressions;
      return;
    case ChangeVerdict::kOnlyInOld:
      ++comparison.only_in_old;
      return;
    case ChangeVerdict::kOnlyInNew:
      ++comparison.only_in_new;
      return;
    case ChangeVerdict::kNotComparable:
      ++comparison.not_comparable;
      return;
  }
}

std::string Label(const BenchReport& report) {
  const std::string hash = report.plugin_sha256.substr(0, kShownHashLength);
  return OneLine(fmt::format("{} {}, {}{}, {}", report.tool_name, report.tool_version,
                             report.plugin_path, hash.empty() ? "" : " (sha256 " + hash + "…)",
                             report.started_at));
}

std::string VerdictWord(ChangeVerdict verdict) {
  switch (verdict) {
    case ChangeVerdict::kWithinTolerance:
      return "within tolerance";
    case ChangeVerdict::kNotSignificant:
      return "within noise";
    case ChangeVerdict::kUnstable:
      return "unstable";
    case ChangeVerdict::kImproved:
      return "improved";
    case ChangeVerdict::kRegression:
      return "REGRESSION";
    case ChangeVerdict::kOnlyInOld:
      return "only in the old report";
    case ChangeVerdict::kOnlyInNew:
      return "only in the new report";
    case ChangeVerdict::kNotComparable:
      return "not comparable";
  }
  return "";
}

OrderedJson OptionalNumber(const std::optional<double>& value) {
  return value ? OrderedJson(*value) : OrderedJson(nullptr);
}

}  // namespace

std::string_view ChangeVerdictName(ChangeVerdict verdict) {
  switch (verdict) {
    case ChangeVerdict::kWithinTolerance:
      return "within_tolerance";
    case ChangeVerdict::kNotSignificant:
      return "not_significant";
    case ChangeVerdict::kUnstable:
      return "unstable";
    case ChangeVerdict::kImproved:
      return "improved";
    case ChangeVerdict::kRegression:
      return "regression";
    case ChangeVerdict::kOnlyInOld:
      return "only_in_old";
    case ChangeVerdict::kOnlyInNew:
      return "only_in_new";
    case ChangeVerdict::kNotComparable:
      return "not_comparable";
  }
  return "unknown";
}

ResultIdentity IdentityOf(const ComparisonRow& row) {
  const SeriesKey key = row.series.value_or(SeriesKey{});
  return {row.series.has_value(),
          static_cast<int>(key.direction),
          static_cast<int>(key.host_memory),
          static_cast<int>(key.mode),
          row.bytes,
          row.operation};
}

void RecountVerdicts(Comparison& comparison) {
  comparison.regressions = comparison.improvements = comparison.within_tolerance = 0;
  comparison.not_significant = comparison.unstable = comparison.only_in_old = 0;
  comparison.only_in_new = comparison.not_comparable = 0;
  for (const ComparisonRow& row : comparison.rows) CountOne(comparison, row.verdict);
}

std::string_view GateVerdictName(GateVerdict verdict) {
  switch (verdict) {
    case GateVerdict::kPassed:
      return "passed";
    case GateVerdict::kFailed:
      return "failed";
    case GateVerdict::kInconclusive:
      return "inconclusive";
  }
  return "unknown";
}

int ResultsInBoth(const Comparison& comparison) {
  return comparison.regressions + comparison.improvements + comparison.within_tolerance +
         comparison.not_significant + comparison.unstable + comparison.not_comparable;
}

int ResultsNotJudged(const Comparison& comparison) {
  return comparison.unstable + comparison.not_comparable;
}

GateVerdict JudgeGate(const Comparison& comparison) {
  if (comparison.regressions > 0) return GateVerdict::kFailed;
  if (2 * ResultsNotJudged(comparison) > ResultsInBoth(comparison)) {
    return GateVerdict::kInconclusive;
  }
  return GateVerdict::kPassed;
}

std::string RowName(const ComparisonRow& row) {
  if (row.series) return fmt::format("{} {}", SeriesName(*row.series), FormatByteSize(row.bytes));
  return OneLine(row.operation);
}

std::string FormatPValue(double p_value) {
  if (p_value < 0.001) return "<0.001";
  return fmt::format("{:.2g}", p_value);
}

namespace {

Expected<void> CheckSameKind(const BenchReport& old, std::string_view kind) {
  if (old.kind == kind) return {};
  return Fail(
      ErrorCode::kInvalidArgument,
      fmt::format("cannot compare a {} report with a {} report", OneLine(old.kind), OneLine(kind)));
}

}  // namespace

Expected<void> CheckComparable(const BenchReport& old, std::string_view kind) {
  if (auto same = CheckSameKind(old, kind); !same) return same;
  // Found before anything is measured: a report no run can be compared
  // with would otherwise cost a whole run and then pass as "not comparable".
  const std::vector<Entry> entries = EntriesOf(old);
  if (auto index = IndexEntries(entries, "old"); !index) return tl::unexpected(index.error());
  if (!entries.empty() && std::none_of(entries.begin(), entries.end(), Measured)) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("none of its {} results holds a measurement (each is an error or "
                            "not measurable): there is nothing to compare with",
                            entries.size()));
  }
  return {};
}

Expected<Comparison> CompareBenchReports(const BenchReport& old, const BenchReport& now,
                                         double tolerance, double significance_level) {
  if (auto same = CheckSameKind(old, now.kind); !same) return tl::unexpected(same.error());
  if (!(tolerance >= 0 && tolerance < 1)) {
    return Fail(
        ErrorCode::kInvalidArgument,
        fmt::format("the tolerance must be at least 0% and below 100%, not {}%", tolerance * 100));
  }
  if (!(significance_level > 0 && significance_level < 1)) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("the significance level must be above 0 and below 1, not {}",
                            significance_level));
  }
  const std::vector<Entry> old_entries = EntriesOf(old);
  const std::vector<Entry> new_entries = EntriesOf(now);
  const auto old_index = IndexEntries(old_entries, "old");
  if (!old_index) return tl::unexpected(old_index.error());
  const auto new_index = IndexEntries(new_entries, "new");
  if (!new_index) return tl::unexpected(new_index.error());

  Comparison comparison;
  comparison.kind = now.kind;
  comparison.tolerance = tolerance;
  comparison.significance_level = significance_level;
  comparison.old_label = Label(old);
  comparison.new_label = Label(now);
  Criteria criteria{.tolerance = tolerance,
                    .significance_level = significance_level,
                    .lower_is_better = now.kind == "latency"};
  // Every result is a test; the gate fails if any is a regression, so the
  // level bounds them together (HolmBonferroni), not each alone.
  std::vector<double> p_values;
  std::vector<std::optional<size_t>> test_of(new_entries.size());
  for (size_t i = 0; i < new_entries.size(); ++i) {
    const auto match = old_index->find(IdentityOf(new_entries[i].identity));
    if (match == old_index->end()) continue;
    if (auto p = PValueOf(old_entries[match->second], new_entries[i])) {
      test_of[i] = p_values.size();
      p_values.push_back(*p);
    }
  }
  criteria.tested = p_values.size();
  const std::vector<HeldTo> held = HolmBonferroni(p_values, significance_level);

  for (size_t i = 0; i < new_entries.size(); ++i) {
    const Entry& entry = new_entries[i];
    const auto match = old_index->find(IdentityOf(entry.identity));
    ComparisonRow row = entry.identity;
    if (match == old_index->end()) {
      if (Measured(entry)) row.new_median = entry.median;
      row.verdict = ChangeVerdict::kOnlyInNew;
    } else {
      row = Judge(old_entries[match->second], entry, criteria,
                  test_of[i] ? held[*test_of[i]] : HeldTo{});
    }
    comparison.rows.push_back(std::move(row));
  }
  for (const Entry& entry : old_entries) {
    if (new_index->contains(IdentityOf(entry.identity))) continue;
    ComparisonRow row = entry.identity;
    if (Measured(entry)) row.old_median = entry.median;
    row.verdict = ChangeVerdict::kOnlyInOld;
    comparison.rows.push_back(std::move(row));
  }
  RecountVerdicts(comparison);
  return comparison;
}

namespace {

// The last words of the gate's line: FAILED, passed, or why it cannot say.
std::string GateConclusion(const Comparison& comparison) {
  switch (JudgeGate(comparison)) {
    case GateVerdict::kFailed:
      return "FAILED";
    case GateVerdict::kPassed:
      return "passed";
    case GateVerdict::kInconclusive:
      break;
  }
  return fmt::format(
      "INCONCLUSIVE: {} of {} results could not be judged; measure again on a quieter machine, "
      "against a baseline taken with --repeat-runs 3",
      ResultsNotJudged(comparison), ResultsInBoth(comparison));
}

// Where a row's verdict starts when it goes under the row.
constexpr size_t kVerdictBelow = 4;
// A series measured at more sizes than this is listed by its count and
// range of sizes, not size by size.
constexpr size_t kMostSizesListed = 4;

bool IsOnlyInOne(ChangeVerdict verdict) {
  return verdict == ChangeVerdict::kOnlyInOld || verdict == ChangeVerdict::kOnlyInNew;
}

// "h2d pinned async at 4 KiB, 64 KiB" or "h2d pinned async at 17 sizes
// from 4 KiB to 256 MiB": one series' sizes, in the report's order.
std::string SeriesAndSizes(const SeriesKey& key, const std::vector<uint64_t>& sizes) {
  if (sizes.size() <= kMostSizesListed) {
    std::vector<std::string> named;
    named.reserve(sizes.size());
    for (const uint64_t bytes : sizes) named.push_back(FormatByteSize(bytes));
    return fmt::format("{} at {}", SeriesName(key), fmt::join(named, ", "));
  }
  const auto [smallest, largest] = std::minmax_element(sizes.begin(), sizes.end());
  return fmt::format("{} at {} sizes from {} to {}", SeriesName(key), sizes.size(),
                     FormatByteSize(*smallest), FormatByteSize(*largest));
}

// One paragraph naming the results only one report holds (`only` says
// which), each series once with its sizes; empty when there are none.
std::string ListRowsOnlyInOne(const Comparison& comparison, ChangeVerdict only) {
  std::vector<std::string> parts;
  std::vector<SeriesKey> series;  // in first-seen order
  std::vector<std::vector<uint64_t>> sizes;
  int count = 0;
  for (const ComparisonRow& row : comparison.rows) {
    if (row.verdict != only) continue;
    ++count;
    if (!row.series) {
      parts.push_back(RowName(row));
      continue;
    }
    const auto known = std::find(series.begin(), series.end(), *row.series);
    if (known == series.end()) {
      series.push_back(*row.series);
      sizes.push_back({row.bytes});
    } else {
      sizes[static_cast<size_t>(known - series.begin())].push_back(row.bytes);
    }
  }
  if (count == 0) return "";
  for (size_t i = 0; i < series.size(); ++i) parts.push_back(SeriesAndSizes(series[i], sizes[i]));
  const bool old = only == ChangeVerdict::kOnlyInOld;
  return fmt::format("Only in the {} report ({} result{}, {}): {}.", old ? "old" : "new", count,
                     count == 1 ? "" : "s",
                     old ? "not measured this time" : "new this time, nothing to compare with",
                     fmt::join(parts, "; "));
}

}  // namespace

std::string RenderComparison(const Comparison& comparison, size_t width) {
  const bool latency = comparison.kind == "latency";
  const std::string_view unit = latency ? "ns" : "GB/s";
  std::string out;
  out += WrapText(fmt::format("Old: {}\nNew: {}", comparison.old_label, comparison.new_label),
                  width, 5) +
         "\n";
  out += WrapText(
             fmt::format(
                 "Medians in {}; a regression is {} by more than {:g}% and beyond the noise of the "
                 "two runs: a two-sided Mann-Whitney U test of their samples, at {:g} for all "
                 "results together (Holm-Bonferroni).\nUnstable results are never regressions.{}",
                 unit, latency ? "slower" : "lower", comparison.tolerance * 100,
                 comparison.significance_level,
                 comparison.confirmation_runs == 0
                     ? ""
                     : fmt::format(
                           "\nResults that looked regressed were measured again in {} fresh run{}; "
                           "each stays a regression only where every run, and all of them "
                           "together, show it.",
                           comparison.confirmation_runs,
                           comparison.confirmation_runs == 1 ? "" : "s")),
             width, 0) +
         "\n\n";
  // The results only one report holds are listed after the table, in a
  // few lines, not a row each: they were not compared.
  std::vector<const ComparisonRow*> compared;
  for (const ComparisonRow& row : comparison.rows) {
    if (!IsOnlyInOne(row.verdict)) compared.push_back(&row);
  }
  if (!compared.empty()) {
    size_t name_width = std::string_view("result").size();
    for (const ComparisonRow* row : compared) {
      name_width = std::max(name_width, DisplayWidth(RowName(*row)));
    }
    // The verdict and its note go on in their own column where the line
    // leaves room for one, else under the row's numbers.
    auto put_row = [&out, width](const std::string& cells, std::string_view text) {
      out += LayOutRow(cells, text, width, kVerdictBelow) + "\n";
    };
    put_row(fmt::format("  {:<{}}  {:>9}  {:>9}  {:>8}  {:>6}  ", "result", name_width, "old",
                        "new", "change", "p"),
            "verdict");
    auto median = [](const std::optional<double>& value) {
      return value ? FormatMeasurement(*value) : std::string("—");
    };
    for (const ComparisonRow* row : compared) {
      std::string verdict = VerdictWord(row->verdict);
      if (!row->note.empty()) verdict += ": " + OneLine(row->note);
      put_row(fmt::format("  {:<{}}  {:>9}  {:>9}  {:>8}  {:>6}  ", RowName(*row), name_width,
                          median(row->old_median), median(row->new_median),
                          row->change ? Signed(*row->change) : "",
                          row->p_value ? FormatPValue(*row->p_value) : "—"),
              verdict);
    }
    out += "\n";
  }
  for (const ChangeVerdict only : {ChangeVerdict::kOnlyInOld, ChangeVerdict::kOnlyInNew}) {
    if (const std::string listed = ListRowsOnlyInOne(comparison, only); !listed.empty()) {
      out += WrapLine(listed, width, 2) + "\n\n";
    }
  }
  out += WrapLine(
      fmt::format(
          "{} compared: {} regression{}, {} improved, {} within tolerance, {} within noise, {} "
          "unstable; {} only in the old report, {} only in the new, {} not comparable — {}",
          comparison.regressions + comparison.improvements + comparison.within_tolerance +
              comparison.not_significant + comparison.unstable,
          comparison.regressions, comparison.regressions == 1 ? "" : "s", comparison.improvements,
          comparison.within_tolerance, comparison.not_significant, comparison.unstable,
          comparison.only_in_old, comparison.only_in_new, comparison.not_comparable,
          GateConclusion(comparison)),
      width, 0);
  return out + "\n";
}

OrderedJson ComparisonToJson(const Comparison& comparison) {
  OrderedJson rows = OrderedJson::array();
  for (const ComparisonRow& row : comparison.rows) {
    OrderedJson object = OrderedJson::object();
    if (row.series) {
      object["direction"] = DirectionName(row.series->direction);
      object["host_memory"] = HostMemoryName(row.series->host_memory);
      object["mode"] = CopyModeName(row.series->mode);
      object["bytes"] = row.bytes;
    } else {
      object["operation"] = row.operation;
    }
    object["old_median"] = OptionalNumber(row.old_median);
    object["new_median"] = OptionalNumber(row.new_median);
    object["change"] = OptionalNumber(row.change);
    object["p_value"] = OptionalNumber(row.p_value);
    object["verdict"] = ChangeVerdictName(row.verdict);
    object["note"] = row.note;
    rows.push_back(std::move(object));
  }
  return {{"kind", comparison.kind},
          {"unit", comparison.kind == "latency" ? "ns" : "GB/s (1e9 bytes/s)"},
          {"tolerance", comparison.tolerance},
          {"test", "two-sided Mann-Whitney U"},
          {"significance_level", comparison.significance_level},
          {"confirmation_runs", comparison.confirmation_runs},
          {"verdict", GateVerdictName(JudgeGate(comparison))},
          {"old", comparison.old_label},
          {"new", comparison.new_label},
          {"regressions", comparison.regressions},
          {"improvements", comparison.improvements},
          {"within_tolerance", comparison.within_tolerance},
          {"not_significant", comparison.not_significant},
          {"unstable", comparison.unstable},
          {"only_in_old", comparison.only_in_old},
          {"only_in_new", comparison.only_in_new},
          {"not_comparable", comparison.not_comparable},
          {"rows", std::move(rows)}};
}

}  // namespace sectl::bench
