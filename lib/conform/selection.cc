#include "conform/selection.h"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>
#include <charconv>
#include <random>

#include "base/edit_distance.h"

namespace sectl::conform {
namespace {

// The `separator`-separated fields of `text`, empty ones included.
std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> fields;
  for (size_t start = 0;;) {
    size_t end = text.find(separator, start);
    fields.push_back(text.substr(start, end - start));
    if (end == std::string_view::npos) return fields;
    start = end + 1;
  }
}

// The patterns of one part of a filter; every one must be non-empty.
Expected<std::vector<std::string>> ParsePatterns(std::string_view part, std::string_view filter) {
  std::vector<std::string> patterns;
  for (std::string_view pattern : Split(part, ':')) {
    if (pattern.empty()) {
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("invalid check filter '{}': it has an empty pattern (a ':' at an "
                              "end, two in a row, or nothing after '-')",
                              filter));
    }
    patterns.emplace_back(pattern);
  }
  return patterns;
}

bool MatchesAny(const std::vector<std::string>& patterns, std::string_view id) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [id](const std::string& pattern) { return GlobMatches(pattern, id); });
}

std::string JoinPatterns(const std::vector<std::string>& patterns) {
  return fmt::format("{}", fmt::join(patterns, ":"));
}

// The whole of `text` as a decimal integer, or nullopt when it is anything else.
std::optional<int> ParseInteger(std::string_view text) {
  int value = 0;
  const char* end = text.data() + text.size();
  auto [stopped_at, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || stopped_at != end) return std::nullopt;
  return value;
}

constexpr std::string_view kShardSyntax = "expected I/N, e.g. 0/4 for the first of four shards";

// Why `index` of `total` names no shard, or nullopt when it names one.
std::optional<std::string> ShardRangeProblem(int index, int total) {
  if (total < 1) return fmt::format("the number of shards must be at least 1, not {}", total);
  if (index < 0 || index >= total) {
    return fmt::format("the shard index is 0-based and must be 0 to {}, not {}", total - 1, index);
  }
  return std::nullopt;
}

// The registry positions of the checks the filter selects for `shard`.
std::vector<size_t> SelectForShard(const std::vector<std::string>& ids, const CheckFilter& filter,
                                   const Shard& shard) {
  // A default Shard is the whole run; guard the modulo against a hand-made bad one.
  const int total = std::max(shard.total, 1);
  std::vector<size_t> selected;
  int position = 0;  // among the checks the filter selects, counted over all shards
  for (size_t i = 0; i < ids.size(); ++i) {
    if (!filter.Matches(ids[i])) continue;
    if (position % total == shard.index) selected.push_back(i);
    ++position;
  }
  return selected;
}

std::vector<PlannedRun> RepeatEach(const std::vector<size_t>& checks, int repeat) {
  std::vector<PlannedRun> runs;
  if (repeat < 1) return runs;
  runs.reserve(checks.size() * static_cast<size_t>(repeat));
  for (size_t check : checks) {
    for (int repetition = 0; repetition < repeat; ++repetition) {
      runs.push_back({check, repetition});
    }
  }
  return runs;
}

}  // namespace

bool GlobMatches(std::string_view pattern, std::string_view text) {
  // fnmatch(3) wants C strings; ids and patterns are short.
  return ::fnmatch(std::string(pattern).c_str(), std::string(text).c_str(), 0) == 0;
}

Expected<CheckFilter> CheckFilter::Parse(std::string_view text) {
  // GoogleTest's rule: the first '-' ends the positive part.
  size_t dash = text.find('-');
  std::string_view positive_part = text.substr(0, dash);

  CheckFilter filter;
  if (!positive_part.empty()) {
    auto positive = ParsePatterns(positive_part, text);
    if (!positive) return tl::unexpected(positive.error());
    filter.positive_ = std::move(*positive);
  }
  if (dash != std::string_view::npos) {
    auto negative = ParsePatterns(text.substr(dash + 1), text);
    if (!negative) return tl::unexpected(negative.error());
    filter.negative_ = std::move(*negative);
  }
  return filter;
}

bool CheckFilter::Matches(std::string_view id) const {
  return MatchesAny(positive_, id) && !MatchesAny(negative_, id);
}

std::string CheckFilter::text() const {
  if (negative_.empty()) return JoinPatterns(positive_);
  return fmt::format("{}-{}", JoinPatterns(positive_), JoinPatterns(negative_));
}

Expected<Shard> ParseShard(std::string_view text) {
  auto invalid = [text](std::string_view why) {
    return Fail(ErrorCode::kInvalidArgument, fmt::format("invalid shard '{}': {}", text, why));
  };
  size_t slash = text.find('/');
  if (slash == std::string_view::npos) return invalid(kShardSyntax);
  std::optional<int> index = ParseInteger(text.substr(0, slash));
  std::optional<int> total = ParseInteger(text.substr(slash + 1));
  if (!index || !total) return invalid(kShardSyntax);
  if (auto problem = ShardRangeProblem(*index, *total)) return invalid(*problem);
  return Shard{.index = *index, .total = *total};
}

Expected<std::optional<Shard>> ShardFromEnvironment(const char* total, const char* index) {
  if (total == nullptr && index == nullptr) return std::nullopt;
  if (total == nullptr || index == nullptr) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("{} is set but {} is not: GoogleTest sharding needs both, or neither",
                            total != nullptr ? "GTEST_TOTAL_SHARDS" : "GTEST_SHARD_INDEX",
                            total != nullptr ? "GTEST_SHARD_INDEX" : "GTEST_TOTAL_SHARDS"));
  }
  std::optional<int> total_value = ParseInteger(total);
  std::optional<int> index_value = ParseInteger(index);
  if (!total_value || !index_value) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("GTEST_TOTAL_SHARDS='{}' and GTEST_SHARD_INDEX='{}': both must be "
                            "whole numbers",
                            total, index));
  }
  if (auto problem = ShardRangeProblem(*index_value, *total_value)) {
    return Fail(
        ErrorCode::kInvalidArgument,
        fmt::format("GTEST_TOTAL_SHARDS={} and GTEST_SHARD_INDEX={}: {}", total, index, *problem));
  }
  return Shard{.index = *index_value, .total = *total_value};
}

std::vector<PlannedRun> PlanRuns(const std::vector<std::string>& ids,
                                 const SelectionOptions& options) {
  std::vector<PlannedRun> runs =
      RepeatEach(SelectForShard(ids, options.filter, options.shard), options.repeat);
  if (options.shuffle) {
    // A fixed engine, so a seed printed by one run reproduces its order.
    std::mt19937_64 engine(options.seed);
    std::shuffle(runs.begin(), runs.end(), engine);
  }
  return runs;
}

uint64_t RandomSeed() {
  std::random_device device;  // 32 bits a draw
  return (static_cast<uint64_t>(device()) << 32) | device();
}

std::vector<std::string> SuggestSelections(const CheckFilter& filter,
                                           const std::vector<std::string>& ids, size_t count) {
  // Candidates: every id and every area ("memcpy.*").
  std::vector<std::string> candidates = ids;
  for (const std::string& id : ids) {
    const std::string area = id.substr(0, id.find('.')) + ".*";
    if (std::find(candidates.begin(), candidates.end(), area) == candidates.end()) {
      candidates.push_back(area);
    }
  }
  std::vector<std::pair<size_t, std::string>> ranked;
  for (const std::string& candidate : candidates) {
    size_t best = std::string::npos;
    for (const std::string& pattern : filter.positive_patterns()) {
      best = std::min(best, EditDistance(pattern, candidate));
    }
    // Only near misses: a few edits, or a third of the pattern's length.
    const size_t longest = candidate.size();
    if (best <= std::max<size_t>(3, longest / 3)) ranked.emplace_back(best, candidate);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> suggestions;
  for (size_t i = 0; i < ranked.size() && i < count; ++i) suggestions.push_back(ranked[i].second);
  return suggestions;
}

}  // namespace sectl::conform
