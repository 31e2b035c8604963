// The compare gate: which changes are regressions, what is only listed, and
// what cannot be compared at all.
#include "bench/bench_compare.h"

#include <gtest/gtest.h>

#include <string>

#include "bench/bench_json.h"
#include "bench_sample_reports.h"

namespace sectl::bench {
namespace {

using namespace sectl::bench::testing;

bool Contains(const std::string& text, const std::string& fragment) {
  return text.find(fragment) != std::string::npos;
}

// One h2d path at two sizes.
BenchReport TwoSizes(double small_gbps, double large_gbps) {
  BenchReport report = Provenance("memcpy");
  report.results = {Bandwidth(Direction::kHostToDevice, HostMemory::kPinned, CopyMode::kAsync,
                              4 * kKiB, small_gbps),
                    Bandwidth(Direction::kHostToDevice, HostMemory::kPinned, CopyMode::kAsync,
                              64 * kMiB, large_gbps)};
  return report;
}

Comparison Compare(const BenchReport& old, const BenchReport& now, double tolerance = 0.10) {
  Expected<Comparison> comparison = CompareBenchReports(old, now, tolerance);
  EXPECT_TRUE(comparison) << comparison.error().message();
  return comparison ? *comparison : Comparison{};
}

TEST(CompareBenchReports, SameNumbersPass) {
  const Comparison comparison = Compare(SampleMemcpyReport(), SampleMemcpyReport());
  EXPECT_EQ(comparison.regressions, 0);
  EXPECT_EQ(comparison.within_tolerance, 8);
  EXPECT_EQ(comparison.not_comparable, 1) << "d2h 64 MiB was not measured in either";
  EXPECT_EQ(comparison.rows.size(), 9u);
  EXPECT_EQ(comparison.rows[0].change, 0.0);
}

TEST(CompareBenchReports, ADropBeyondTheToleranceIsARegression) {
  const Comparison comparison = Compare(TwoSizes(10, 20), TwoSizes(8.9, 18.2));
  ASSERT_EQ(comparison.rows.size(), 2u);
  // 4 KiB: -11%, beyond 10%. 64 MiB: -9%, within.
  EXPECT_EQ(comparison.rows[0].verdict, ChangeVerdict::kRegression);
  EXPECT_NEAR(*comparison.rows[0].change, -0.11, 1e-12);
  EXPECT_EQ(comparison.rows[1].verdict, ChangeVerdict::kWithinTolerance);
  EXPECT_EQ(comparison.regressions, 1);
}

TEST(CompareBenchReports, TheToleranceDecides) {
  EXPECT_EQ(Compare(TwoSizes(10, 20), TwoSizes(8.9, 20), 0.15).regressions, 0);
  EXPECT_EQ(Compare(TwoSizes(10, 20), TwoSizes(9.9, 20), 0.0).regressions, 1);
  // Exactly at the limit is not below it: new == old * (1 - tolerance).
  EXPECT_EQ(Compare(TwoSizes(10, 20), TwoSizes(10, 10), 0.5).regressions, 0);
}

TEST(CompareBenchReports, AGainIsAnImprovementNotARegression) {
  const Comparison comparison = Compare(TwoSizes(10, 20), TwoSizes(15, 20));
  EXPECT_EQ(comparison.rows[0].verdict, ChangeVerdict::kImproved);
  EXPECT_NEAR(*comparison.rows[0].change, 0.5, 1e-12);
  EXPECT_EQ(comparison.improvements, 1);
  EXPECT_EQ(comparison.regressions, 0);
}

TEST(CompareBenchReports, ForLatencyHigherIsWorse) {
  BenchReport old = SampleLatencyReport();
  BenchReport now = SampleLatencyReport();
  now.latency[0].ns.median = 1000;  // 850 -> 1000 ns: 17.6% slower
  now.latency[1].ns.median = 6000;  // 12000 -> 6000 ns: twice as fast
  const Comparison comparison = Compare(old, now);
  ASSERT_EQ(comparison.rows.size(), 3u);
  EXPECT_EQ(comparison.rows[0].operation, "enqueue_tiny_copy");
  EXPECT_EQ(comparison.rows[0].verdict, ChangeVerdict::kRegression);
  EXPECT_EQ(comparison.rows[1].verdict, ChangeVerdict::kImproved);
  EXPECT_EQ(comparison.rows[2].verdict, ChangeVerdict::kNotComparable);
  EXPECT_EQ(comparison.regressions, 1);
  EXPECT_TRUE(Contains(RenderComparison(comparison), "Medians in ns; a regression is slower"));
}

TEST(CompareBenchReports, ResultsInOnlyOneReportAreListedNotRegressions) {
  BenchReport old = TwoSizes(10, 20);
  BenchReport now = TwoSizes(10, 20);
  old.results.push_back(
      Bandwidth(Direction::kDeviceToDevice, HostMemory::kNone, CopyMode::kAsync, kMiB, 100));
  now.results.push_back(
      Bandwidth(Direction::kHostToDevice, HostMemory::kPageable, CopyMode::kAsync, kMiB, 5));
  const Comparison comparison = Compare(old, now);
  ASSERT_EQ(comparison.rows.size(), 4u);
  EXPECT_EQ(comparison.rows[2].verdict, ChangeVerdict::kOnlyInNew);
  EXPECT_EQ(RowName(comparison.rows[2]), "h2d pageable async 1 MiB");
  EXPECT_EQ(comparison.rows[3].verdict, ChangeVerdict::kOnlyInOld);
  EXPECT_EQ(RowName(comparison.rows[3]), "d2d async 1 MiB");
  EXPECT_EQ(comparison.only_in_new, 1);
  EXPECT_EQ(comparison.only_in_old, 1);
  EXPECT_EQ(comparison.regressions, 0);
}

TEST(CompareBenchReports, MatchesOnPathAndSizeNotPosition) {
  BenchReport old = TwoSizes(10, 20);
  BenchReport now = TwoSizes(10, 20);
  std::swap(now.results[0], now.results[1]);
  now.results[1].mode = CopyMode::kSync;  // a different path at 4 KiB
  const Comparison comparison = Compare(old, now);
  EXPECT_EQ(comparison.within_tolerance, 1);
  EXPECT_EQ(comparison.only_in_new, 1);
  EXPECT_EQ(comparison.only_in_old, 1);
}

TEST(CompareBenchReports, APathThatStopsWorkingIsARegression) {
  BenchReport now = TwoSizes(10, 20);
  now.results[1].error = "memcpy_htod failed: TF_INTERNAL";
  const Comparison comparison = Compare(TwoSizes(10, 20), now);
  EXPECT_EQ(comparison.rows[1].verdict, ChangeVerdict::kRegression);
  EXPECT_EQ(comparison.rows[1].note, "no longer measured: memcpy_htod failed: TF_INTERNAL");
  EXPECT_EQ(comparison.regressions, 1);

  // The other way round there is nothing to hold the new number to.
  const Comparison reversed = Compare(now, TwoSizes(10, 20));
  EXPECT_EQ(reversed.rows[1].verdict, ChangeVerdict::kNotComparable);
  EXPECT_EQ(reversed.regressions, 0);
}

TEST(CompareBenchReports, RefusesToCompareDifferentKinds) {
  const Expected<Comparison> comparison =
      CompareBenchReports(SampleMemcpyReport(), SampleLatencyReport(), 0.1);
  ASSERT_FALSE(comparison);
  EXPECT_EQ(comparison.error().message(), "cannot compare a memcpy report with a latency report");
}

TEST(CompareBenchReports, RefusesAResultHeldTwice) {
  BenchReport old = TwoSizes(10, 20);
  old.results.push_back(old.results[0]);
  const Expected<Comparison> comparison = CompareBenchReports(old, TwoSizes(10, 20), 0.1);
  ASSERT_FALSE(comparison);
  EXPECT_EQ(comparison.error().message(), "the old report holds h2d pinned async 4 KiB twice");
}

TEST(CompareBenchReports, RefusesAToleranceOutOfRange) {
  for (double tolerance : {-0.1, 1.0, std::nan("")}) {
    const Expected<Comparison> comparison =
        CompareBenchReports(TwoSizes(10, 20), TwoSizes(10, 20), tolerance);
    ASSERT_FALSE(comparison) << tolerance;
    EXPECT_TRUE(Contains(comparison.error().message(), "tolerance")) << tolerance;
  }
}

TEST(CompareBenchReports, WorksOnAReportReadBackFromJson) {
  // The CI gate: a baseline saved as JSON, today's run in memory.
  const Expected<BenchReport> baseline =
      ParseBenchReport(BenchReportToJsonText(SampleMemcpyReport()));
  ASSERT_TRUE(baseline) << baseline.error().message();
  BenchReport today = SampleMemcpyReport();
  today.results[6].gbps.median = 6;  // h2d 64 MiB halved
  const Comparison comparison = Compare(*baseline, today);
  EXPECT_EQ(comparison.regressions, 1);
  EXPECT_EQ(RowName(comparison.rows[6]), "h2d pinned async 64 MiB");
  EXPECT_EQ(comparison.rows[6].verdict, ChangeVerdict::kRegression);
}

TEST(RenderComparison, ShowsEachChangeAndTheVerdict) {
  const Comparison failing = Compare(TwoSizes(10, 20), TwoSizes(8, 20));
  const std::string text = RenderComparison(failing);
  EXPECT_TRUE(Contains(text,
                       "Old: sectl 0.1.0, /opt/vendor/libvendor_plugin.so (sha256 "
                       "3a4f5b6c7d8e…), 2026-11-21T08:00:00Z\n"))
      << text;
  EXPECT_TRUE(Contains(text, "a regression is lower by more than 10%")) << text;
  EXPECT_TRUE(
      Contains(text, "  h2d pinned async 4 KiB        10.0       8.00    -20.0%  REGRESSION\n"))
      << text;
  EXPECT_TRUE(Contains(text, "  h2d pinned async 64 MiB       20.0       20.0     +0.0%\n"))
      << text;
  EXPECT_TRUE(Contains(text, "2 compared: 1 regression, 0 improved, 1 within tolerance")) << text;
  EXPECT_TRUE(text.ends_with("— FAILED\n")) << text;

  const std::string passing = RenderComparison(Compare(TwoSizes(10, 20), TwoSizes(10, 20)));
  EXPECT_TRUE(passing.ends_with("— passed\n")) << passing;
}

TEST(ComparisonToJson, CountsAndRows) {
  BenchReport now = TwoSizes(8, 20);
  now.results[1].error = "gone";
  const nlohmann::ordered_json json = ComparisonToJson(Compare(TwoSizes(10, 20), now));
  EXPECT_EQ(json["kind"], "memcpy");
  EXPECT_EQ(json["tolerance"], 0.1);
  EXPECT_EQ(json["regressions"], 2);
  ASSERT_EQ(json["rows"].size(), 2u);
  EXPECT_EQ(json["rows"][0]["direction"], "h2d");
  EXPECT_EQ(json["rows"][0]["bytes"], 4096);
  EXPECT_EQ(json["rows"][0]["old_median"], 10.0);
  EXPECT_EQ(json["rows"][0]["verdict"], "regression");
  EXPECT_TRUE(json["rows"][1]["new_median"].is_null());
  EXPECT_TRUE(json["rows"][1]["change"].is_null());
  EXPECT_EQ(json["rows"][1]["note"], "no longer measured: gone");

  const nlohmann::ordered_json latency =
      ComparisonToJson(Compare(SampleLatencyReport(), SampleLatencyReport()));
  EXPECT_EQ(latency["rows"][0]["operation"], "enqueue_tiny_copy");
  EXPECT_FALSE(latency["rows"][0].contains("bytes"));
}

}  // namespace
}  // namespace sectl::bench
