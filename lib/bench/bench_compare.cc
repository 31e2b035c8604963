#include "bench/bench_compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

#include "base/byte_sizes.h"

namespace sectl::bench {
namespace {

using OrderedJson = nlohmann::ordered_json;

constexpr size_t kShownHashLength = 12;

// One result of either kind, reduced to what comparing needs.
struct Entry {
  ComparisonRow identity;  // series, bytes and operation; the rest unset
  double median = 0;
  std::optional<std::string> error;
};

// What makes two results the same measurement, ordered for a map.
using Identity = std::tuple<bool, int, int, int, uint64_t, std::string>;

Identity IdentityOf(const ComparisonRow& row) {
  const SeriesKey key = row.series.value_or(SeriesKey{});
  return {row.series.has_value(),
          static_cast<int>(key.direction),
          static_cast<int>(key.host_memory),
          static_cast<int>(key.mode),
          row.bytes,
          row.operation};
}

std::vector<Entry> EntriesOf(const BenchReport& report) {
  std::vector<Entry> entries;
  if (report.kind == "latency") {
    for (const LatencyResult& latency : report.latency) {
      Entry entry{.median = latency.ns.median, .error = latency.error};
      entry.identity.operation = latency.operation;
      entries.push_back(std::move(entry));
    }
    return entries;
  }
  for (const BandwidthResult& result : report.results) {
    Entry entry{.median = result.gbps.median, .error = result.error};
    entry.identity.series = SeriesKeyOf(result);
    entry.identity.bytes = result.bytes;
    entries.push_back(std::move(entry));
  }
  return entries;
}

// Each entry's position by identity; an error when one appears twice.
Expected<std::map<Identity, size_t>> IndexEntries(const std::vector<Entry>& entries,
                                                  std::string_view which) {
  std::map<Identity, size_t> index;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!index.emplace(IdentityOf(entries[i].identity), i).second) {
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("the {} report holds {} twice", which, RowName(entries[i].identity)));
    }
  }
  return index;
}

bool Measured(const Entry& entry) { return !entry.error && std::isfinite(entry.median); }

// Judges one result measured in both runs, or at least in one.
ComparisonRow Judge(const Entry& old, const Entry& now, double tolerance, bool lower_is_better) {
  ComparisonRow row = now.identity;
  if (Measured(old)) row.old_median = old.median;
  if (Measured(now)) row.new_median = now.median;
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
  const double better = lower_is_better ? -*row.change : *row.change;
  if (better < -tolerance) {
    row.verdict = ChangeVerdict::kRegression;
  } else if (better > tolerance) {
    row.verdict = ChangeVerdict::kImproved;
  } else {
    row.verdict = ChangeVerdict::kWithinTolerance;
  }
  return row;
}

void Count(Comparison& comparison, ChangeVerdict verdict) {
  switch (verdict) {
    case ChangeVerdict::kWithinTolerance:
      ++comparison.within_tolerance;
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

std::string Signed(double change) { return fmt::format("{:+.1f}%", change * 100); }

std::string VerdictWord(ChangeVerdict verdict) {
  switch (verdict) {
    case ChangeVerdict::kWithinTolerance:
      return "";
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

std::string RowName(const ComparisonRow& row) {
  if (row.series) return fmt::format("{} {}", SeriesName(*row.series), FormatByteSize(row.bytes));
  return OneLine(row.operation);
}

Expected<Comparison> CompareBenchReports(const BenchReport& old, const BenchReport& now,
                                         double tolerance) {
  if (old.kind != now.kind) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("cannot compare a {} report with a {} report", OneLine(old.kind),
                            OneLine(now.kind)));
  }
  if (!(tolerance >= 0 && tolerance < 1)) {
    return Fail(
        ErrorCode::kInvalidArgument,
        fmt::format("the tolerance must be at least 0% and below 100%, not {}%", tolerance * 100));
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
  comparison.old_label = Label(old);
  comparison.new_label = Label(now);
  const bool lower_is_better = now.kind == "latency";
  for (const Entry& entry : new_entries) {
    const auto match = old_index->find(IdentityOf(entry.identity));
    ComparisonRow row = entry.identity;
    if (match == old_index->end()) {
      if (Measured(entry)) row.new_median = entry.median;
      row.verdict = ChangeVerdict::kOnlyInNew;
    } else {
      row = Judge(old_entries[match->second], entry, tolerance, lower_is_better);
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
  for (const ComparisonRow& row : comparison.rows) Count(comparison, row.verdict);
  return comparison;
}

std::string RenderComparison(const Comparison& comparison) {
  const bool latency = comparison.kind == "latency";
  const std::string_view unit = latency ? "ns" : "GB/s";
  std::string out;
  out += fmt::format("Old: {}\nNew: {}\n", comparison.old_label, comparison.new_label);
  out += fmt::format("Medians in {}; a regression is {} by more than {:g}%.\n\n", unit,
                     latency ? "slower" : "lower", comparison.tolerance * 100);
  size_t name_width = std::string_view("result").size();
  for (const ComparisonRow& row : comparison.rows) {
    name_width = std::max(name_width, RowName(row).size());
  }
  out +=
      fmt::format("  {:<{}}  {:>9}  {:>9}  {:>8}\n", "result", name_width, "old", "new", "change");
  auto median = [](const std::optional<double>& value) {
    return value ? FormatMeasurement(*value) : std::string("—");
  };
  for (const ComparisonRow& row : comparison.rows) {
    std::string line = fmt::format("  {:<{}}  {:>9}  {:>9}  {:>8}", RowName(row), name_width,
                                   median(row.old_median), median(row.new_median),
                                   row.change ? Signed(*row.change) : "");
    const std::string word = VerdictWord(row.verdict);
    if (!word.empty()) line += "  " + word;
    if (!row.note.empty()) line += ": " + OneLine(row.note);
    out += line + "\n";
  }
  out += fmt::format(
      "\n{} compared: {} regression{}, {} improved, {} within tolerance; {} only in the old "
      "report, {} only in the new, {} not comparable — {}\n",
      comparison.regressions + comparison.improvements + comparison.within_tolerance,
      comparison.regressions, comparison.regressions == 1 ? "" : "s", comparison.improvements,
      comparison.within_tolerance, comparison.only_in_old, comparison.only_in_new,
      comparison.not_comparable, comparison.regressions > 0 ? "FAILED" : "passed");
  return out;
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
    object["verdict"] = ChangeVerdictName(row.verdict);
    object["note"] = row.note;
    rows.push_back(std::move(object));
  }
  return {{"kind", comparison.kind},
          {"unit", comparison.kind == "latency" ? "ns" : "GB/s (1e9 bytes/s)"},
          {"tolerance", comparison.tolerance},
          {"old", comparison.old_label},
          {"new", comparison.new_label},
          {"regressions", comparison.regressions},
          {"improvements", comparison.improvements},
          {"within_tolerance", comparison.within_tolerance},
          {"only_in_old", comparison.only_in_old},
          {"only_in_new", comparison.only_in_new},
          {"not_comparable", comparison.not_comparable},
          {"rows", std::move(rows)}};
}

}  // namespace sectl::bench
