#include "report/merge_reports.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

namespace sectl::report {
namespace {

constexpr size_t kShownHashLength = 12;

std::string ShortHash(const std::string& sha256) {
  if (sha256.empty()) return "(none)";
  if (sha256.size() <= kShownHashLength) return sha256;
  return sha256.substr(0, kShownHashLength) + "…";
}

// Why `other` cannot be merged with `first`, or nothing when it can.
std::optional<std::string> Conflict(const ConformReport& first, const ConformReport& other) {
  if (other.schema_version != first.schema_version) {
    return fmt::format("reports have different schema versions ({} vs {})", first.schema_version,
                       other.schema_version);
  }
  if (other.plugin.sha256 != first.plugin.sha256) {
    return fmt::format("reports are of different plugins (sha256 {} vs {})",
                       ShortHash(first.plugin.sha256), ShortHash(other.plugin.sha256));
  }
  if (other.profile != first.profile) {
    return fmt::format("reports are of different profiles ({} vs {})", first.profile,
                       other.profile);
  }
  // A report older than schema_version 6 does not say which device it ran
  // on; it can only be told apart by what it does say.
  if (!first.device.empty() && !other.device.empty() && other.device != first.device) {
    return fmt::format("reports are of different devices under test ({} vs {})", first.device,
                       other.device);
  }
  if (other.tf_version != first.tf_version) {
    return fmt::format("reports judge different TensorFlow versions ({} vs {})", first.tf_version,
                       other.tf_version);
  }
  if (other.subject != first.subject) {
    return fmt::format("reports judge against different contracts ({} vs {})", first.subject,
                       other.subject);
  }
  return std::nullopt;
}

// "1/3": a shard as --shard names it.
std::string ShardName(const RunSelection& selection) {
  return fmt::format("{}/{}", selection.shard_index, selection.shard_count);
}

// The shards of a sharded run whose reports are not among `reports`; an
// error when the reports come from differently split runs or repeat a
// shard. Reports without a selection (older than schema_version 4) and
// unsharded ones say nothing about shards.
Expected<std::vector<std::string>> MissingShards(const std::vector<ConformReport>& reports) {
  const RunSelection* first = nullptr;
  std::vector<bool> present;
  for (const ConformReport& report : reports) {
    if (!report.selection || report.selection->shard_count <= 1) continue;
    const RunSelection& selection = *report.selection;
    if (first == nullptr) {
      first = &selection;
      present.assign(static_cast<size_t>(selection.shard_count), false);
    }
    if (selection.shard_count != first->shard_count || selection.filter != first->filter) {
      return Fail(
          ErrorCode::kInvalidArgument,
          fmt::format("reports come from differently sharded runs (shard {} of --filter "
                      "'{}' vs shard {} of --filter '{}')",
                      ShardName(*first), first->filter, ShardName(selection), selection.filter));
    }
    const auto index = static_cast<size_t>(selection.shard_index);
    if (index >= present.size()) continue;  // not written by sectl; the overlap check decides
    if (present[index]) {
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("shard {} is given twice", ShardName(selection)));
    }
    present[index] = true;
  }
  std::vector<std::string> missing;
  for (size_t index = 0; index < present.size(); ++index) {
    if (!present[index]) missing.push_back(fmt::format("{}/{}", index, present.size()));
  }
  return missing;
}

// A result and the report it came from (1-based, as a person counts), so
// that an overlap can say where both copies are.
struct Sourced {
  CheckResult result;
  size_t report = 0;
};

bool InOrder(const Sourced& a, const Sourced& b) {
  return std::tie(a.result.id, a.result.repetition) < std::tie(b.result.id, b.result.repetition);
}

bool SameCheck(const Sourced& a, const Sourced& b) {
  return a.result.id == b.result.id && a.result.repetition == b.result.repetition;
}

// The results of every report, in order; an error if two hold the same one.
Expected<std::vector<CheckResult>> MergeResults(std::vector<ConformReport>& reports) {
  std::vector<Sourced> sourced;
  for (size_t index = 0; index < reports.size(); ++index) {
    for (CheckResult& result : reports[index].results) {
      sourced.push_back({std::move(result), index + 1});
    }
  }
  std::stable_sort(sourced.begin(), sourced.end(), InOrder);
  const auto overlap = std::adjacent_find(sourced.begin(), sourced.end(), SameCheck);
  if (overlap != sourced.end()) {
    const Sourced& second = *std::next(overlap);
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("reports overlap: {} (repetition {}) is in report {} and report {}; "
                            "were the same shard's results given twice?",
                            overlap->result.id, overlap->result.repetition, overlap->report,
                            second.report));
  }
  std::vector<CheckResult> results;
  results.reserve(sourced.size());
  for (Sourced& entry : sourced) results.push_back(std::move(entry.result));
  return results;
}

// ISO 8601 UTC times in one format sort as text; an unknown (empty) start
// says nothing and is passed over.
std::string EarliestStart(const std::vector<ConformReport>& reports) {
  std::string earliest;
  for (const ConformReport& report : reports) {
    if (!report.started_at.empty() && (earliest.empty() || report.started_at < earliest)) {
      earliest = report.started_at;
    }
  }
  return earliest;
}

// Shards run side by side, so the merged run took as long as the slowest.
double LongestDuration(const std::vector<ConformReport>& reports) {
  double longest = 0;
  for (const ConformReport& report : reports) longest = std::max(longest, report.duration_s);
  return longest;
}

// The device the reports share; "" when none of them names it (all older
// than schema_version 6).
std::string KnownDevice(const std::vector<ConformReport>& reports) {
  for (const ConformReport& report : reports) {
    if (!report.device.empty()) return report.device;
  }
  return {};
}

std::optional<std::string> FirstLoadError(const std::vector<ConformReport>& reports) {
  for (const ConformReport& report : reports) {
    if (report.load_error) return report.load_error;
  }
  return std::nullopt;
}

// Every shard may have measured throughput; the first measurement stands
// for the merged run (they measure the same plugin on the same machine).
std::optional<Throughput> FirstThroughput(const std::vector<ConformReport>& reports) {
  for (const ConformReport& report : reports) {
    if (report.throughput) return report.throughput;
  }
  return std::nullopt;
}

// Each shard learned before its own checks; the merged run routed around
// whatever any of them learned (once per function).
std::vector<LearnedBeforeChecks> AllLearned(const std::vector<ConformReport>& reports) {
  std::vector<LearnedBeforeChecks> all;
  for (const ConformReport& report : reports) {
    for (const LearnedBeforeChecks& learned : report.learned_before_checks) {
      const bool known = std::any_of(all.begin(), all.end(), [&](const LearnedBeforeChecks& seen) {
        return seen.function == learned.function;
      });
      if (!known) all.push_back(learned);
    }
  }
  return all;
}

}  // namespace

Expected<ConformReport> MergeReports(std::vector<ConformReport> reports) {
  if (reports.empty()) return Fail(ErrorCode::kInvalidArgument, "no reports to merge");
  for (const ConformReport& other : reports) {
    if (auto conflict = Conflict(reports.front(), other)) {
      return Fail(ErrorCode::kInvalidArgument, *std::move(conflict));
    }
  }
  Expected<std::vector<std::string>> missing_shards = MissingShards(reports);
  if (!missing_shards) return tl::unexpected(missing_shards.error());
  std::string started_at = EarliestStart(reports);
  const double duration_s = LongestDuration(reports);
  std::optional<std::string> load_error = FirstLoadError(reports);
  std::optional<Throughput> throughput = FirstThroughput(reports);
  std::vector<LearnedBeforeChecks> learned = AllLearned(reports);
  // One interrupted shard leaves the merged run incomplete.
  std::optional<std::string> interrupted;
  for (const ConformReport& report : reports) {
    if (report.interrupted && !interrupted) interrupted = report.interrupted;
  }
  Expected<std::vector<CheckResult>> results = MergeResults(reports);  // moves them out
  if (!results) return tl::unexpected(results.error());

  std::string device = KnownDevice(reports);
  ConformReport merged = std::move(reports.front());
  merged.results = *std::move(results);
  merged.device = std::move(device);
  merged.started_at = std::move(started_at);
  merged.duration_s = duration_s;
  merged.load_error = std::move(load_error);
  merged.throughput = std::move(throughput);
  merged.learned_before_checks = std::move(learned);
  merged.interrupted = std::move(interrupted);
  merged.missing_shards = *std::move(missing_shards);
  // The merged report covers the whole run, not the first shard.
  if (merged.selection) {
    merged.selection->shard_index = 0;
    merged.selection->shard_count = 1;
  }
  merged.summary = Summarize(merged.results);
  merged.root_causes = SummarizeRootCauses(merged.results);
  return merged;
}

}  // namespace sectl::report
