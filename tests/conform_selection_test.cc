// Tests for check selection (lib/conform/selection.cc): GoogleTest's filter
// syntax, sharding from --shard and from GoogleTest's environment
// variables, repetition and seeded shuffling.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "conform/selection.h"

namespace sectl::conform {
namespace {

const std::vector<std::string> kIds = {
    "platform.name", "memcpy.htod.sizes", "memcpy.dtoh.sizes", "memcpy.dtod.sizes", "events.record",
    "events.wait",   "timers.nanos",      "streams.create",    "allocator.stats"};

CheckFilter ParsedFilter(std::string_view text) {
  auto filter = CheckFilter::Parse(text);
  EXPECT_TRUE(filter.has_value()) << text << ": " << filter.error().message();
  return filter.value_or(CheckFilter());
}

// The ids `filter` selects from kIds, in registry order.
std::vector<std::string> Selected(std::string_view filter) {
  CheckFilter parsed = ParsedFilter(filter);
  std::vector<std::string> selected;
  std::copy_if(kIds.begin(), kIds.end(), std::back_inserter(selected),
               [&parsed](const std::string& id) { return parsed.Matches(id); });
  return selected;
}

std::string FilterError(std::string_view text) {
  auto filter = CheckFilter::Parse(text);
  EXPECT_FALSE(filter.has_value()) << text << " parsed as " << filter->text();
  return filter.has_value() ? "" : filter.error().message();
}

// The (check, repetition) pairs of a plan, in plan order.
std::vector<std::pair<size_t, int>> Pairs(const std::vector<PlannedRun>& runs) {
  std::vector<std::pair<size_t, int>> pairs;
  pairs.reserve(runs.size());
  for (const PlannedRun& run : runs) pairs.emplace_back(run.check_index, run.repetition);
  return pairs;
}

TEST(CheckFilterTest, DefaultSelectsEverything) {
  CheckFilter filter;
  EXPECT_TRUE(filter.Matches("memcpy.htod.sizes"));
  EXPECT_TRUE(filter.Matches(""));
  EXPECT_EQ(filter.text(), "*");
}

TEST(CheckFilterTest, EmptyTextSelectsEverything) {
  EXPECT_EQ(Selected(""), kIds);
  EXPECT_EQ(ParsedFilter("").text(), "*");
}

TEST(CheckFilterTest, PositivePatternOnly) {
  EXPECT_EQ(
      Selected("memcpy.*"),
      (std::vector<std::string>{"memcpy.htod.sizes", "memcpy.dtoh.sizes", "memcpy.dtod.sizes"}));
}

TEST(CheckFilterTest, ExactIdSelectsOnlyThatCheck) {
  EXPECT_EQ(Selected("events.wait"), std::vector<std::string>{"events.wait"});
}

TEST(CheckFilterTest, StarMatchesAcrossDots) {
  EXPECT_EQ(Selected("*.sizes"), (std::vector<std::string>{"memcpy.htod.sizes", "memcpy.dtoh.sizes",
                                                           "memcpy.dtod.sizes"}));
  EXPECT_EQ(Selected("m*s"), (std::vector<std::string>{"memcpy.htod.sizes", "memcpy.dtoh.sizes",
                                                       "memcpy.dtod.sizes"}));
}

TEST(CheckFilterTest, NegativeOnlyMeansEverythingExcept) {
  std::vector<std::string> expected = kIds;
  std::erase_if(expected, [](const std::string& id) { return id.starts_with("memcpy."); });
  EXPECT_EQ(Selected("-memcpy.*"), expected);
  EXPECT_EQ(ParsedFilter("-memcpy.*").text(), "*-memcpy.*");
}

TEST(CheckFilterTest, PositiveAndNegative) {
  EXPECT_EQ(Selected("memcpy.*-memcpy.dtod.*"),
            (std::vector<std::string>{"memcpy.htod.sizes", "memcpy.dtoh.sizes"}));
}

TEST(CheckFilterTest, QuestionMarkMatchesOneCharacter) {
  EXPECT_EQ(Selected("memcpy.dto?.sizes"),
            (std::vector<std::string>{"memcpy.dtoh.sizes", "memcpy.dtod.sizes"}));
  EXPECT_TRUE(Selected("memcpy.dto?").empty());  // '?' is exactly one character
}

TEST(CheckFilterTest, SeveralPatternsInEachPart) {
  EXPECT_EQ(Selected("events.*:timers.*:platform.name-events.wait:timers.*"),
            (std::vector<std::string>{"platform.name", "events.record"}));
}

TEST(CheckFilterTest, NoMatchSelectsNothing) { EXPECT_TRUE(Selected("nosuch.*").empty()); }

TEST(CheckFilterTest, MatchesWholeIdNotPrefix) {
  EXPECT_TRUE(Selected("memcpy").empty());
  EXPECT_TRUE(Selected("events.wai").empty());
}

TEST(CheckFilterTest, OnlyTheFirstDashSeparates) {
  // As in GoogleTest, a later '-' is part of a negative pattern.
  CheckFilter filter = ParsedFilter("*-a-b");
  EXPECT_FALSE(filter.Matches("a-b"));
  EXPECT_TRUE(filter.Matches("a"));
  EXPECT_TRUE(filter.Matches("b"));
}

TEST(CheckFilterTest, TextRoundTrips) {
  for (std::string_view text : {"*", "a.*:b.?", "a.*-a.b:a.c", "*-x"}) {
    CheckFilter filter = ParsedFilter(text);
    EXPECT_EQ(filter.text(), text);
    EXPECT_EQ(ParsedFilter(filter.text()).text(), filter.text());
  }
}

TEST(CheckFilterTest, RejectsEmptyPatterns) {
  for (std::string_view text : {"a::b", ":a", "a:", "a-", "-", "a-b:", "a-:b"}) {
    std::string message = FilterError(text);
    EXPECT_PRED_FORMAT2(::testing::IsSubstring, "empty pattern", message) << text;
    EXPECT_PRED_FORMAT2(::testing::IsSubstring, std::string(text), message) << text;
  }
}

TEST(ParseShardTest, AcceptsIndexOfTotal) {
  auto shard = ParseShard("2/4");
  ASSERT_TRUE(shard.has_value()) << shard.error().message();
  EXPECT_EQ(shard->index, 2);
  EXPECT_EQ(shard->total, 4);

  auto only = ParseShard("0/1");
  ASSERT_TRUE(only.has_value());
  EXPECT_EQ(only->index, 0);
  EXPECT_EQ(only->total, 1);
}

TEST(ParseShardTest, RejectsWhatIsNotIOfN) {
  for (std::string_view text : {"", "3", "/4", "1/", "a/4", "1/b", "1/4/5", " 1/4", "1/4 ", "1.0/4",
                                "99999999999/100000000000"}) {
    auto shard = ParseShard(text);
    ASSERT_FALSE(shard.has_value()) << text;
    EXPECT_PRED_FORMAT2(::testing::IsSubstring, "expected I/N", shard.error().message()) << text;
    EXPECT_EQ(shard.error().code(), ErrorCode::kInvalidArgument);
  }
}

TEST(ParseShardTest, RejectsTotalBelowOne) {
  for (std::string_view text : {"0/0", "0/-2"}) {
    auto shard = ParseShard(text);
    ASSERT_FALSE(shard.has_value()) << text;
    EXPECT_PRED_FORMAT2(::testing::IsSubstring, "at least 1", shard.error().message()) << text;
  }
}

TEST(ParseShardTest, RejectsIndexOutOfRange) {
  for (std::string_view text : {"4/4", "5/4", "-1/4"}) {
    auto shard = ParseShard(text);
    ASSERT_FALSE(shard.has_value()) << text;
    EXPECT_PRED_FORMAT2(::testing::IsSubstring, "must be 0 to 3", shard.error().message()) << text;
  }
}

TEST(ShardFromEnvironmentTest, NeitherSetMeansNoSharding) {
  auto shard = ShardFromEnvironment(nullptr, nullptr);
  ASSERT_TRUE(shard.has_value());
  EXPECT_FALSE(shard->has_value());
}

TEST(ShardFromEnvironmentTest, BothSet) {
  auto shard = ShardFromEnvironment("3", "1");
  ASSERT_TRUE(shard.has_value()) << shard.error().message();
  ASSERT_TRUE(shard->has_value());
  EXPECT_EQ((*shard)->index, 1);
  EXPECT_EQ((*shard)->total, 3);
}

TEST(ShardFromEnvironmentTest, OnlyOneSetIsAnError) {
  auto total_only = ShardFromEnvironment("3", nullptr);
  ASSERT_FALSE(total_only.has_value());
  EXPECT_EQ(total_only.error().message(),
            "GTEST_TOTAL_SHARDS is set but GTEST_SHARD_INDEX is not: GoogleTest sharding needs "
            "both, or neither");

  auto index_only = ShardFromEnvironment(nullptr, "0");
  ASSERT_FALSE(index_only.has_value());
  EXPECT_EQ(index_only.error().message(),
            "GTEST_SHARD_INDEX is set but GTEST_TOTAL_SHARDS is not: GoogleTest sharding needs "
            "both, or neither");
}

TEST(ShardFromEnvironmentTest, NonNumericIsAnError) {
  for (auto [total, index] :
       {std::pair{"three", "0"}, std::pair{"3", "x"}, std::pair{"", "0"}, std::pair{"3", "1 "}}) {
    auto shard = ShardFromEnvironment(total, index);
    ASSERT_FALSE(shard.has_value()) << total << "/" << index;
    EXPECT_PRED_FORMAT2(::testing::IsSubstring, "GTEST_TOTAL_SHARDS", shard.error().message());
    EXPECT_PRED_FORMAT2(::testing::IsSubstring, "GTEST_SHARD_INDEX", shard.error().message());
    EXPECT_PRED_FORMAT2(::testing::IsSubstring, "whole numbers", shard.error().message());
  }
}

TEST(ShardFromEnvironmentTest, OutOfRangeIsAnError) {
  auto too_far = ShardFromEnvironment("3", "3");
  ASSERT_FALSE(too_far.has_value());
  EXPECT_EQ(too_far.error().message(),
            "GTEST_TOTAL_SHARDS=3 and GTEST_SHARD_INDEX=3: the shard index is 0-based and must be "
            "0 to 2, not 3");

  auto negative = ShardFromEnvironment("3", "-1");
  ASSERT_FALSE(negative.has_value());
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "must be 0 to 2", negative.error().message());

  auto no_shards = ShardFromEnvironment("0", "0");
  ASSERT_FALSE(no_shards.has_value());
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "GTEST_TOTAL_SHARDS=0", no_shards.error().message());
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "at least 1", no_shards.error().message());
}

TEST(PlanRunsTest, DefaultRunsEveryCheckOnceInRegistryOrder) {
  std::vector<PlannedRun> runs = PlanRuns(kIds, SelectionOptions());
  ASSERT_EQ(runs.size(), kIds.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    EXPECT_EQ(runs[i].check_index, i);
    EXPECT_EQ(runs[i].repetition, 0);
  }
}

TEST(PlanRunsTest, FilterSelectsByIndexIntoTheRegistry) {
  SelectionOptions options;
  options.filter = ParsedFilter("events.*:platform.*");
  EXPECT_EQ(Pairs(PlanRuns(kIds, options)),
            (std::vector<std::pair<size_t, int>>{{0, 0}, {4, 0}, {5, 0}}));
}

TEST(PlanRunsTest, ShardsDealTheSelectedChecksRoundRobin) {
  // Selected: memcpy x3 (1, 2, 3), events x2 (4, 5), timers (6): six checks.
  SelectionOptions options;
  options.filter = ParsedFilter("memcpy.*:events.*:timers.*");
  options.shard = {.index = 1, .total = 4};
  // Selected positions 1 and 5 are registry indices 2 and 6.
  EXPECT_EQ(Pairs(PlanRuns(kIds, options)), (std::vector<std::pair<size_t, int>>{{2, 0}, {6, 0}}));
}

TEST(PlanRunsTest, ShardsPartitionTheSelection) {
  for (int total : {1, 2, 3, 4, 9, 12}) {
    SelectionOptions options;
    options.filter = ParsedFilter("-events.wait");
    std::multiset<size_t> union_of_shards;
    for (int index = 0; index < total; ++index) {
      options.shard = {.index = index, .total = total};
      std::vector<PlannedRun> runs = PlanRuns(kIds, options);
      // Shard sizes differ by at most one.
      EXPECT_LE(runs.size(), (kIds.size() - 1 + total - 1) / total) << index << "/" << total;
      for (const PlannedRun& run : runs) union_of_shards.insert(run.check_index);
    }
    options.shard = Shard();
    std::multiset<size_t> selection;
    for (const PlannedRun& run : PlanRuns(kIds, options)) {
      selection.insert(run.check_index);
    }
    EXPECT_EQ(union_of_shards, selection) << total << " shards";  // each exactly once
  }
}

TEST(PlanRunsTest, RepeatKeepsRepetitionsOfACheckAdjacent) {
  SelectionOptions options;
  options.filter = ParsedFilter("events.*");
  options.repeat = 3;
  EXPECT_EQ(Pairs(PlanRuns(kIds, options)),
            (std::vector<std::pair<size_t, int>>{{4, 0}, {4, 1}, {4, 2}, {5, 0}, {5, 1}, {5, 2}}));
}

TEST(PlanRunsTest, RepetitionsOfACheckStayInOneShard) {
  SelectionOptions options;
  options.repeat = 2;
  options.shard = {.index = 0, .total = 2};
  EXPECT_EQ(Pairs(PlanRuns(kIds, options)),
            (std::vector<std::pair<size_t, int>>{
                {0, 0}, {0, 1}, {2, 0}, {2, 1}, {4, 0}, {4, 1}, {6, 0}, {6, 1}, {8, 0}, {8, 1}}));
}

TEST(PlanRunsTest, RepeatBelowOneRunsNothing) {
  SelectionOptions options;
  options.repeat = 0;
  EXPECT_TRUE(PlanRuns(kIds, options).empty());
}

TEST(PlanRunsTest, EmptyRegistryOrSelectionPlansNothing) {
  EXPECT_TRUE(PlanRuns({}, SelectionOptions()).empty());
  SelectionOptions options;
  options.filter = ParsedFilter("nosuch.*");
  options.shuffle = true;
  EXPECT_TRUE(PlanRuns(kIds, options).empty());
}

TEST(PlanRunsTest, ShuffleIsAPermutationDeterminedBySeed) {
  SelectionOptions options;
  options.repeat = 2;
  std::vector<std::pair<size_t, int>> ordered = Pairs(PlanRuns(kIds, options));

  options.shuffle = true;
  options.seed = 42;
  std::vector<std::pair<size_t, int>> first = Pairs(PlanRuns(kIds, options));
  std::vector<std::pair<size_t, int>> again = Pairs(PlanRuns(kIds, options));
  EXPECT_EQ(first, again);
  EXPECT_TRUE(std::is_permutation(first.begin(), first.end(), ordered.begin(), ordered.end()));
}

TEST(PlanRunsTest, ShuffleChangesTheOrder) {
  SelectionOptions options;
  std::vector<std::pair<size_t, int>> ordered = Pairs(PlanRuns(kIds, options));
  options.shuffle = true;
  std::set<std::vector<std::pair<size_t, int>>> orders;
  for (uint64_t seed = 0; seed < 10; ++seed) {
    options.seed = seed;
    orders.insert(Pairs(PlanRuns(kIds, options)));
  }
  orders.erase(ordered);
  // With 9! orders, ten seeds give several different ones, not registry order.
  EXPECT_GE(orders.size(), 5U);
}

TEST(PlanRunsTest, ShuffleRespectsTheShard) {
  SelectionOptions options;
  options.shard = {.index = 2, .total = 3};
  std::vector<std::pair<size_t, int>> unshuffled = Pairs(PlanRuns(kIds, options));
  options.shuffle = true;
  options.seed = 7;
  std::vector<std::pair<size_t, int>> shuffled = Pairs(PlanRuns(kIds, options));
  EXPECT_TRUE(
      std::is_permutation(shuffled.begin(), shuffled.end(), unshuffled.begin(), unshuffled.end()));
}

TEST(RandomSeedTest, DiffersBetweenCalls) {
  std::set<uint64_t> seeds;
  for (int i = 0; i < 8; ++i) seeds.insert(RandomSeed());
  EXPECT_GT(seeds.size(), 1U);
}

TEST(SuggestSelectionsTest, AnAreaWithoutItsGlobSuggestsTheGlob) {
  const std::vector<std::string> ids{"memcpy.htod", "memcpy.dtoh", "event.status_values"};
  const auto filter = CheckFilter::Parse("memcpy");
  ASSERT_TRUE(filter.has_value());
  const auto suggestions = SuggestSelections(*filter, ids, 3);
  ASSERT_FALSE(suggestions.empty());
  EXPECT_EQ(suggestions.front(), "memcpy.*");
}

TEST(SuggestSelectionsTest, AMisspeltIdSuggestsTheNearestIdsFirst) {
  const std::vector<std::string> ids{"memcpy.htod", "memcpy.dtoh", "event.status_values"};
  const auto filter = CheckFilter::Parse("memcpy.htdo");
  ASSERT_TRUE(filter.has_value());
  const auto suggestions = SuggestSelections(*filter, ids, 1);
  EXPECT_EQ(suggestions, std::vector<std::string>{"memcpy.htod"});
}

TEST(SuggestSelectionsTest, NothingCloseSuggestsNothing) {
  const std::vector<std::string> ids{"memcpy.htod", "event.status_values"};
  const auto filter = CheckFilter::Parse("zzzzzzzzzzzzzzzzzzzzzz");
  ASSERT_TRUE(filter.has_value());
  EXPECT_TRUE(SuggestSelections(*filter, ids, 3).empty());
}

}  // namespace
}  // namespace sectl::conform
