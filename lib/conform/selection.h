// Which checks a `sectl conform` run executes, and in what order: the
// filter, sharding, repetition and shuffling that GoogleTest users know from
// --gtest_filter, GTEST_TOTAL_SHARDS/GTEST_SHARD_INDEX, --gtest_repeat and
// --gtest_shuffle, with the same meaning, so CI scripts carry over.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"

namespace sectl::conform {

// Whether `text` matches the shell-style glob `pattern`, per fnmatch(3)
// without flags: `*` matches any run of characters (dots included), `?` any
// one character, and `[...]` a bracket expression.
bool GlobMatches(std::string_view pattern, std::string_view text);

// A check filter in GoogleTest's syntax: `POSITIVE[-NEGATIVE]`, each part a
// `:`-separated list of globs. A check is selected when its id matches some
// positive pattern and no negative one.
//
// As in GoogleTest, the first `-` separates the parts (later ones are plain
// characters of a negative pattern), and an empty positive part means `*`,
// so `-events.*` selects everything but the events checks. Unlike
// GoogleTest, an empty pattern (`a::b`, `a:`, or a `-` with nothing after
// it) is rejected: it can only be a typo, and GoogleTest would quietly read
// it as a pattern that matches no check.
class CheckFilter {
 public:
  CheckFilter() = default;  // selects every check, like `*`

  static Expected<CheckFilter> Parse(std::string_view text);

  bool Matches(std::string_view id) const;

  // The filter in canonical form, for reports: `-x` reads back as `*-x`.
  // Parse(text()) gives an equal filter.
  std::string text() const;

  // The globs that select, e.g. {"memcpy.*", "registration.*"}.
  const std::vector<std::string>& positive_patterns() const { return positive_; }

 private:
  std::vector<std::string> positive_{"*"};
  std::vector<std::string> negative_;
};

// One of `total` disjoint slices of the selected checks; `index` is 0-based.
struct Shard {
  int index = 0;
  int total = 1;
};

// Parses `--shard I/N`, e.g. `0/4` for the first of four shards.
Expected<Shard> ParseShard(std::string_view text);

// The shard GoogleTest's sharding protocol asks for. Pass the values of
// getenv("GTEST_TOTAL_SHARDS") and getenv("GTEST_SHARD_INDEX"). Neither set
// means no sharding (nullopt); only one set, a value that is not a number,
// or an index outside 0..total-1 is an error naming the variables.
Expected<std::optional<Shard>> ShardFromEnvironment(const char* total, const char* index);

struct SelectionOptions {
  CheckFilter filter;
  Shard shard;
  int repeat = 1;  // every selected check runs this many times; below 1 runs nothing
  bool shuffle = false;
  uint64_t seed = 0;  // with shuffle: the same seed gives the same order
};

// One execution of one check.
struct PlannedRun {
  size_t check_index;  // into the ids passed to PlanRuns
  int repetition;      // 0-based
};

// The runs of one `sectl conform` invocation, given the registered check ids
// in registry order:
//  1. the filter selects checks;
//  2. the selected checks are dealt round-robin to the shards, as GoogleTest
//     does: the i-th selected check belongs to shard i % total;
//  3. each check of this shard runs `repeat` times, so all repetitions of a
//     check land in the same shard;
//  4. with `shuffle`, the whole list is shuffled with a generator seeded by
//     `seed`. Without it, checks keep registry order and the repetitions of
//     a check are adjacent.
std::vector<PlannedRun> PlanRuns(const std::vector<std::string>& ids,
                                 const SelectionOptions& options);

// For a filter that selects none of `ids`: up to `count` selections the user
// probably meant, closest first. `memcpy` (a typo for `memcpy.*`) suggests
// `memcpy.*`; a misspelt id suggests the ids within a few edits of it.
std::vector<std::string> SuggestSelections(const CheckFilter& filter,
                                           const std::vector<std::string>& ids, size_t count);

// A fresh seed for `--shuffle` without `--seed`. The runner prints it so a
// failing order can be reproduced with `--seed`.
uint64_t RandomSeed();

}  // namespace sectl::conform
