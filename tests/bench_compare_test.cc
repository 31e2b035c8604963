// The compare gate: which changes are regressions, what is only listed, and
// what cannot be compared at all.
#include "bench/bench_compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "base/text_layout.h"
#include "bench/bench_json.h"
#include "bench/statistics.h"
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

// What makes a saved report useless is found before anything is measured
// (CheckComparable is what sectl bench calls first).
TEST(CheckComparable, RefusesAResultHeldTwiceAndAReportWithNoMeasurement) {
  EXPECT_TRUE(CheckComparable(TwoSizes(10, 20), "memcpy"));

  BenchReport twice = TwoSizes(10, 20);
  twice.results.push_back(twice.results[0]);
  const Expected<void> duplicated = CheckComparable(twice, "memcpy");
  ASSERT_FALSE(duplicated);
  EXPECT_EQ(duplicated.error().message(), "the old report holds h2d pinned async 4 KiB twice");

  BenchReport nothing = TwoSizes(10, 20);
  nothing.results[0].error = "memcpy_htod failed: TF_INTERNAL";
  nothing.results[1].not_measurable = "its completion was signalled before its bytes arrived";
  const Expected<void> empty = CheckComparable(nothing, "memcpy");
  ASSERT_FALSE(empty);
  EXPECT_TRUE(Contains(empty.error().message(), "none of its 2 results holds a measurement"))
      << empty.error().message();
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

// ---------------------------------------------------------------------------
// The rank test

TEST(MannWhitneyU, MatchesSciPysAsymptoticTest) {
  // SciPy's documentation: mannwhitneyu(males, females, method="asymptotic")
  // gives U = 17, p = 0.11134688653314041.
  const std::vector<double> males = {19, 22, 16, 29, 24};
  const std::vector<double> females = {20, 11, 17, 12};
  const RankTest test = MannWhitneyU(males, females);
  EXPECT_DOUBLE_EQ(test.u, 17);
  EXPECT_NEAR(test.p_value, 0.11134688653314041, 1e-12);
  // The test is symmetric: U of the other side is n_a * n_b - U.
  EXPECT_DOUBLE_EQ(MannWhitneyU(females, males).u, 3);
  EXPECT_NEAR(MannWhitneyU(females, males).p_value, test.p_value, 1e-15);

  // R's wilcox.test example (x, y): W = 35; two-sided, normal approximation
  // with continuity correction: p = 0.2446.
  const std::vector<double> x = {0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
  const std::vector<double> y = {1.15, 0.88, 0.90, 0.74, 1.21};
  EXPECT_DOUBLE_EQ(MannWhitneyU(x, y).u, 35);
  EXPECT_NEAR(MannWhitneyU(x, y).p_value, 0.24462360512698333, 1e-12);
}

TEST(MannWhitneyU, CorrectsTheVarianceForTies) {
  // Tied values share their mean rank; by brute force over the 42 pairs
  // (a > b counts 1, a == b counts 1/2) U = 3.5, and with the tie-corrected
  // variance p = 0.0129998...
  const std::vector<double> a = {1, 2, 2, 3, 3, 3, 4};
  const std::vector<double> b = {3, 4, 4, 5, 5, 6};
  const RankTest test = MannWhitneyU(a, b);
  EXPECT_DOUBLE_EQ(test.u, 3.5);
  EXPECT_NEAR(test.p_value, 0.012999854364387314, 1e-12);
}

TEST(MannWhitneyU, NothingToTellApartIsPOne) {
  const std::vector<double> same = {5, 5, 5, 5};
  EXPECT_EQ(MannWhitneyU(same, same).p_value, 1);
  EXPECT_EQ(MannWhitneyU({}, same).p_value, 1);
  // Values that are not numbers are left out.
  const std::vector<double> with_nan = {5, std::nan(""), 5};
  EXPECT_EQ(MannWhitneyU(with_nan, same).p_value, 1);
}

TEST(CombineRuns, TheMedianIsTheMedianOfTheRunsMedians) {
  const std::vector<double> quiet = {10, 10.1, 9.9, 10, 10.2};
  const std::vector<double> disturbed = {2, 3, 2.5, 2, 3};  // one run slowed as a whole
  const std::vector<double> another = {10.1, 10, 9.8, 10.3, 10};
  const std::vector<Distribution> runs = {Describe(quiet), Describe(disturbed), Describe(another)};
  const Distribution combined = CombineRuns(runs);
  EXPECT_DOUBLE_EQ(combined.median, 10);  // median of 10, 2.5, 10
  EXPECT_EQ(combined.samples, 15);
  EXPECT_EQ(combined.values.size(), 15u);  // every run's samples kept
  EXPECT_DOUBLE_EQ(combined.min, 2);
  EXPECT_DOUBLE_EQ(combined.max, 10.3);
}

// ---------------------------------------------------------------------------
// The gate with samples

// TwoSizes whose 4 KiB result holds `small` as its samples.
BenchReport WithSamples(const std::vector<double>& small, bool stable = true) {
  BenchReport report = TwoSizes(10, 20);
  report.results[0].gbps = Describe(small);
  report.results[0].stable = stable;
  report.results[1].gbps = Describe(Around(20, 0.02, 25, 99));
  return report;
}

TEST(CompareWithSamples, NoiseBeyondTheToleranceIsNotARegression) {
  // The medians differ by more than 10%, but the samples interleave: two
  // draws from one wide distribution.
  const std::vector<double> old_samples = {5, 8, 9, 10, 11, 12, 14, 20, 25};
  const std::vector<double> new_samples = {4, 7, 8.5, 9.5, 9.8, 13, 15, 21, 26};
  const Comparison comparison = Compare(WithSamples(old_samples), WithSamples(new_samples));
  const ComparisonRow& row = comparison.rows[0];
  ASSERT_TRUE(row.change && row.p_value);
  EXPECT_LT(*row.change, -0.10);
  EXPECT_GT(*row.p_value, 0.5);
  EXPECT_EQ(row.verdict, ChangeVerdict::kNotSignificant);
  EXPECT_TRUE(Contains(row.note, "but within noise, p=0.")) << row.note;
  EXPECT_EQ(comparison.regressions, 0);
  EXPECT_EQ(comparison.not_significant, 1);
  const std::string text = RenderComparison(comparison);
  EXPECT_TRUE(Contains(text, "within noise: changed by -10.9% but within noise")) << text;
  EXPECT_TRUE(text.ends_with("— passed\n")) << text;
}

TEST(CompareWithSamples, RunsOfOneWideDistributionAreNotRegressions) {
  // Samples within 30% of one median: the medians of two runs often differ
  // by more than the 10% tolerance, which the old median-only gate called a
  // regression; the rank test sees one distribution.
  int beyond_tolerance = 0;
  int regressions = 0;
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const Comparison comparison = Compare(WithSamples(Around(10, 0.3, 25, seed)),
                                          WithSamples(Around(10, 0.3, 25, seed + 100)));
    if (std::abs(*comparison.rows[0].change) > 0.10) ++beyond_tolerance;
    regressions += comparison.regressions;
  }
  EXPECT_GE(beyond_tolerance, 1);
  EXPECT_EQ(regressions, 0);
}

TEST(CompareWithSamples, ARealShiftIsARegression) {
  // 25% slower, each run's samples within 3% of its median.
  const Comparison comparison =
      Compare(WithSamples(Around(10, 0.03, 25, 1)), WithSamples(Around(7.5, 0.03, 25, 2)));
  const ComparisonRow& row = comparison.rows[0];
  EXPECT_EQ(row.verdict, ChangeVerdict::kRegression);
  ASSERT_TRUE(row.p_value);
  EXPECT_LT(*row.p_value, 0.001);
  EXPECT_EQ(comparison.regressions, 1);
  EXPECT_EQ(comparison.rows[1].verdict, ChangeVerdict::kWithinTolerance);
  const std::string text = RenderComparison(comparison);
  EXPECT_TRUE(Contains(text, "-25.") && Contains(text, "<0.001  REGRESSION\n")) << text;
  EXPECT_TRUE(text.ends_with("— FAILED\n")) << text;

  // Faster by as much: an improvement.
  EXPECT_EQ(Compare(WithSamples(Around(7.5, 0.03, 25, 2)), WithSamples(Around(10, 0.03, 25, 1)))
                .rows[0]
                .verdict,
            ChangeVerdict::kImproved);
}

// The host's own memcpy is timed beside every memcpy result, in the same
// run: when it fell as much as the plugin did, the machine was slower.
TEST(CompareWithSamples, ASlowerMachineIsNotARegressionOfThePlugin) {
  BenchReport old = WithSamples(Around(10, 0.03, 25, 1));
  BenchReport now = WithSamples(Around(7.5, 0.03, 25, 2));
  old.results[0].ceiling_gbps = 20;
  now.results[0].ceiling_gbps = 15.5;  // the host's memcpy fell by 22.5% too
  const ComparisonRow machine = Compare(old, now).rows[0];
  EXPECT_EQ(machine.verdict, ChangeVerdict::kUnstable);
  EXPECT_TRUE(Contains(machine.note, "the host's own memcpy at this size changed by -22.5%"))
      << machine.note;
  EXPECT_TRUE(Contains(machine.note, "the machine was slower, not the plugin (-3."))
      << machine.note;

  // The host fell by 5%: against it the plugin still lost 21%.
  now.results[0].ceiling_gbps = 19;
  EXPECT_EQ(Compare(old, now).rows[0].verdict, ChangeVerdict::kRegression);
  // No control in the old report (0): judged on the plugin alone.
  old.results[0].ceiling_gbps = 0;
  now.results[0].ceiling_gbps = 15.5;
  EXPECT_EQ(Compare(old, now).rows[0].verdict, ChangeVerdict::kRegression);
}

TEST(CompareWithSamples, AnUnstableResultIsNeverARegression) {
  for (const bool old_stable : {true, false}) {
    const Comparison comparison =
        Compare(WithSamples(Around(10, 0.03, 25, 1), old_stable),
                WithSamples(Around(5, 0.03, 25, 2), /*stable=*/!old_stable));
    const ComparisonRow& row = comparison.rows[0];
    EXPECT_EQ(row.verdict, ChangeVerdict::kUnstable);
    EXPECT_EQ(comparison.regressions, 0);
    EXPECT_EQ(comparison.unstable, 1);
    EXPECT_TRUE(Contains(
        row.note, old_stable ? "had not settled in the new run" : "had not settled in the old run"))
        << row.note;
  }
}

TEST(CompareWithSamples, LatencyIsJudgedTheSameWayHigherBeingWorse) {
  BenchReport old = SampleLatencyReport();
  BenchReport now = SampleLatencyReport();
  old.latency[0].ns = Describe(Around(850, 0.03, 30, 1));
  now.latency[0].ns = Describe(Around(1100, 0.03, 30, 2));  // 29% slower
  old.latency[1].ns = Describe(Around(12000, 0.4, 30, 3));  // noisy, unchanged
  now.latency[1].ns = Describe(Around(12000, 0.4, 30, 4));
  now.latency[1].ns.median = 14000;  // a median moved by noise alone
  const Comparison comparison = Compare(old, now);
  EXPECT_EQ(comparison.rows[0].verdict, ChangeVerdict::kRegression);
  EXPECT_EQ(comparison.rows[1].verdict, ChangeVerdict::kNotSignificant);
  now.latency[0].stable = false;
  EXPECT_EQ(Compare(old, now).rows[0].verdict, ChangeVerdict::kUnstable);
}

TEST(CompareWithSamples, AnOldReportWithoutSamplesIsJudgedOnMedians) {
  // A report written before the samples were kept (schema version 1).
  nlohmann::json old_document = nlohmann::json::parse(BenchReportToJsonText(TwoSizes(10, 20)));
  old_document["schema_version"] = 1;
  old_document.erase("runs");
  for (auto& result : old_document["results"]) {
    result.erase("values_gbps");
    if (result["plugin_timer"].is_object()) result["plugin_timer"].erase("values_gbps");
  }
  for (auto& ceiling : old_document["ceiling"]) ceiling.erase("values_gbps");
  const Expected<BenchReport> old = BenchReportFromJson(old_document);
  ASSERT_TRUE(old) << old.error().message();
  EXPECT_TRUE(old->results[0].gbps.values.empty());

  const Comparison comparison = Compare(*old, WithSamples(Around(8, 0.01, 25, 1)));
  const ComparisonRow& row = comparison.rows[0];
  EXPECT_EQ(row.verdict, ChangeVerdict::kRegression);  // -20% on the medians
  EXPECT_FALSE(row.p_value);
  EXPECT_EQ(row.note, "old report has no samples: judged on medians");
  EXPECT_EQ(comparison.rows[1].verdict, ChangeVerdict::kWithinTolerance);
}

TEST(CompareWithSamples, TheSamplesSurviveTheJsonRoundTrip) {
  BenchReport report = WithSamples(Around(10, 0.03, 25, 1));
  report.results[0].gbps.values[3] = std::nan("");  // written as null
  const Expected<BenchReport> read = ParseBenchReport(BenchReportToJsonText(report));
  ASSERT_TRUE(read) << read.error().message();
  ASSERT_EQ(read->results[0].gbps.values.size(), 25u);
  EXPECT_EQ(read->results[0].gbps.values[0], report.results[0].gbps.values[0]);
  EXPECT_TRUE(std::isnan(read->results[0].gbps.values[3]));
  EXPECT_EQ(read->runs, 1);

  BenchReport latency = SampleLatencyReport();
  latency.latency[0].stable = false;
  const Expected<BenchReport> read_latency = ParseBenchReport(BenchReportToJsonText(latency));
  ASSERT_TRUE(read_latency) << read_latency.error().message();
  EXPECT_FALSE(read_latency->latency[0].stable);
  EXPECT_TRUE(read_latency->latency[1].stable);
}

TEST(ComparisonToJson, CarriesThePValueAndTheTest) {
  const nlohmann::ordered_json json = ComparisonToJson(
      Compare(WithSamples(Around(10, 0.03, 25, 1)), WithSamples(Around(7.5, 0.03, 25, 2))));
  EXPECT_EQ(json["test"], "two-sided Mann-Whitney U");
  EXPECT_EQ(json["significance_level"], 0.05);
  EXPECT_LT(json["rows"][0]["p_value"].get<double>(), 0.001);
  EXPECT_EQ(json["rows"][0]["verdict"], "regression");
  EXPECT_EQ(json["not_significant"], 0);
  EXPECT_EQ(json["unstable"], 0);
}

// Five h2d sizes with settled samples around 10 GB/s; the first
// `unsettled` of them not stable and around 8 GB/s (20% lower, as a run
// under load may be); written to JSON and read back, as the gate reads a
// saved report.
BenchReport FiveSizes(int unsettled) {
  BenchReport report = Provenance("memcpy");
  for (int i = 0; i < 5; ++i) {
    BandwidthResult result = Bandwidth(Direction::kHostToDevice, HostMemory::kPinned,
                                       CopyMode::kAsync, (4 * kKiB) << i, 10);
    result.stable = i >= unsettled;
    result.gbps = Describe(Around(result.stable ? 10 : 8, 0.02, 25, 10 + i));
    report.results.push_back(result);
  }
  Expected<BenchReport> read = ParseBenchReport(BenchReportToJsonText(report));
  EXPECT_TRUE(read) << read.error().message();
  return read ? *read : BenchReport{};
}

TEST(JudgeGate, MostResultsUnstableIsInconclusiveNotPassed) {
  const Comparison comparison = Compare(FiveSizes(0), FiveSizes(3));
  EXPECT_EQ(comparison.unstable, 3);
  EXPECT_EQ(comparison.regressions, 0);
  EXPECT_EQ(ResultsNotJudged(comparison), 3);
  EXPECT_EQ(ResultsInBoth(comparison), 5);
  EXPECT_EQ(JudgeGate(comparison), GateVerdict::kInconclusive);
  const std::string table = RenderComparison(comparison);
  EXPECT_TRUE(Contains(table, "INCONCLUSIVE: 3 of 5 results could not be judged")) << table;
  EXPECT_FALSE(Contains(table, "passed")) << table;
  EXPECT_EQ(ComparisonToJson(comparison)["verdict"], "inconclusive");
}

TEST(JudgeGate, HalfOrFewerUnjudgedStillPasses) {
  const Comparison comparison = Compare(FiveSizes(0), FiveSizes(2));
  EXPECT_EQ(comparison.unstable, 2);
  EXPECT_EQ(JudgeGate(comparison), GateVerdict::kPassed);
  EXPECT_TRUE(Contains(RenderComparison(comparison), "— passed"));
  EXPECT_EQ(ComparisonToJson(comparison)["verdict"], "passed");
}

TEST(JudgeGate, NotComparableResultsAreNotJudgedEither) {
  BenchReport now = FiveSizes(1);
  for (int i = 1; i < 3; ++i) {
    now.results[i].not_measurable = "signalled done before its bytes arrived";
  }
  const Comparison comparison = Compare(FiveSizes(0), now);
  EXPECT_EQ(comparison.unstable, 1);
  EXPECT_EQ(comparison.not_comparable, 2);
  EXPECT_EQ(JudgeGate(comparison), GateVerdict::kInconclusive);
}

TEST(JudgeGate, ARegressionFailsTheGateHoweverManyAreUnstable) {
  // The fifth size is stable in both and 30% slower; the first three unsettled.
  BenchReport now = FiveSizes(3);
  now.results[4].gbps = Describe(Around(7, 0.02, 25, 77));
  const Comparison comparison = Compare(FiveSizes(0), now);
  EXPECT_EQ(comparison.regressions, 1);
  EXPECT_EQ(JudgeGate(comparison), GateVerdict::kFailed);
  EXPECT_TRUE(Contains(RenderComparison(comparison), "— FAILED"));
}

TEST(FormatPValue, TwoSignificantDigitsAndAFloor) {
  EXPECT_EQ(FormatPValue(0.3124), "0.31");
  EXPECT_EQ(FormatPValue(0.0123), "0.012");
  EXPECT_EQ(FormatPValue(1), "1");
  EXPECT_EQ(FormatPValue(0.0004), "<0.001");
}

TEST(RenderComparison, ShowsEachChangeAndTheVerdict) {
  const Comparison failing = Compare(TwoSizes(10, 20), TwoSizes(8, 20));
  const std::string text = RenderComparison(failing);
  EXPECT_TRUE(Contains(text,
                       "Old: sectl 0.1.0, /opt/vendor/libvendor_plugin.so (sha256 "
                       "3a4f5b6c7d8e…), 2026-11-21T08:00:00Z\n"))
      << text;
  EXPECT_TRUE(Contains(text, "a regression is lower by more than 10%")) << text;
  // These reports kept no samples: no p-value, and the rows say so.
  EXPECT_TRUE(Contains(text,
                       "  h2d pinned async 4 KiB        10.0       8.00    -20.0%       —  "
                       "REGRESSION: old report has no samples: judged on medians\n"))
      << text;
  EXPECT_TRUE(Contains(
      text,
      "  h2d pinned async 64 MiB       20.0       20.0     +0.0%       —  within tolerance\n"))
      << text;
  EXPECT_TRUE(Contains(text, "2 compared: 1 regression, 0 improved, 1 within tolerance")) << text;
  EXPECT_TRUE(text.ends_with("— FAILED\n")) << text;

  const std::string passing = RenderComparison(Compare(TwoSizes(10, 20), TwoSizes(10, 20)));
  EXPECT_TRUE(passing.ends_with("— passed\n")) << passing;
}

std::vector<std::string> LinesOf(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t end = text.find('\n'); end != std::string::npos;
       start = end + 1, end = text.find('\n', start)) {
    lines.push_back(text.substr(start, end - start));
  }
  if (start < text.size()) lines.push_back(text.substr(start));
  return lines;
}

// The lines from the one holding `start` to the next result's row or the
// blank line after the table.
std::vector<std::string> RowAt(const std::string& text, const std::string& start) {
  const std::vector<std::string> lines = LinesOf(text);
  std::vector<std::string> row;
  for (const std::string& line : lines) {
    if (!row.empty() && (line.empty() || line.starts_with("  h2d") || line.starts_with("  d2"))) {
      break;
    }
    if (!row.empty() || line.find(start) != std::string::npos) row.push_back(line);
  }
  return row;
}

TEST(RenderComparison, FitsATerminalWithTheNoteUnderItsColumn) {
  Comparison failing = Compare(TwoSizes(10, 20), TwoSizes(8, 20));
  failing.rows[0].note =
      "confirmed: -20.0% in this run, -19.8% and -20.3% in 2 more runs, -20.0% as the median of "
      "3 runs";
  // "  h2d pinned async 64 MiB" and the numbers: where the verdict starts.
  const size_t verdict_column = 2 + 23 + 2 + 9 + 2 + 9 + 2 + 8 + 2 + 6 + 2;
  for (const size_t width : {80u, 120u}) {
    const std::string text = RenderComparison(failing, width);
    for (const std::string& line : LinesOf(text)) {
      EXPECT_LE(DisplayWidth(line), width) << line << "\nin\n" << text;
    }
    const std::vector<std::string> row = RowAt(text, "h2d pinned async 4 KiB");
    ASSERT_GE(row.size(), 2u) << text;
    if (width == 120) {
      // The verdict column leaves room: the note wraps in it, every
      // continuation line starting right under the verdict.
      const size_t verdict = row[0].find("REGRESSION: confirmed");
      ASSERT_NE(verdict, std::string::npos) << text;
      EXPECT_EQ(DisplayWidth(row[0].substr(0, verdict)), verdict_column) << text;
      for (size_t i = 1; i < row.size(); ++i) {
        EXPECT_EQ(row[i].find_first_not_of(' '), verdict_column) << row[i] << "\nin\n" << text;
      }
    } else {
      // 13 columns would be left for the verdict: it goes under the row's
      // numbers, 4 in, its continuation lines 2 further.
      EXPECT_TRUE(row[0].ends_with("—")) << "the row ends with its p column: " << row[0];
      EXPECT_TRUE(row[1].starts_with("    REGRESSION: confirmed")) << text;
      for (size_t i = 2; i < row.size(); ++i) {
        EXPECT_EQ(row[i].find_first_not_of(' '), 6u) << row[i] << "\nin\n" << text;
      }
      EXPECT_TRUE(Contains(text, "  p\n    verdict\n")) << "the heading as its rows: " << text;
    }
  }
  // Unwrapped, each row is one line.
  EXPECT_TRUE(Contains(RenderComparison(failing), "-20.0% as the median of 3 runs\n"));
}

// Results only one report holds were not compared: a line or two names
// them, each path once with its sizes, rather than a row each.
TEST(RenderComparison, ResultsInOnlyOneReportAreSummedUpNotListedRowByRow) {
  BenchReport old = TwoSizes(10, 20);
  for (uint64_t bytes = 4 * kKiB; bytes <= 256 * kMiB; bytes *= 2) {
    for (const Direction direction : {Direction::kHostToDevice, Direction::kDeviceToHost}) {
      old.results.push_back(
          Bandwidth(direction, HostMemory::kPageable, CopyMode::kAsync, bytes, 5));
    }
  }
  old.results.push_back(
      Bandwidth(Direction::kDeviceToDevice, HostMemory::kNone, CopyMode::kAsync, kMiB, 100));
  old.results.push_back(
      Bandwidth(Direction::kDeviceToDevice, HostMemory::kNone, CopyMode::kAsync, 2 * kMiB, 100));
  BenchReport now = TwoSizes(10, 20);
  now.results.push_back(
      Bandwidth(Direction::kHostToDevice, HostMemory::kPinned, CopyMode::kSync, kMiB, 5));
  const Comparison comparison = Compare(old, now);
  ASSERT_EQ(comparison.only_in_old, 36);
  ASSERT_EQ(comparison.only_in_new, 1);

  const std::string text = RenderComparison(comparison);
  EXPECT_TRUE(Contains(text,
                       "\nOnly in the old report (36 results, not measured this time): h2d "
                       "pageable async at 17 sizes from 4 KiB to 256 MiB; d2h pageable async at "
                       "17 sizes from 4 KiB to 256 MiB; d2d async at 1 MiB, 2 MiB.\n"))
      << text;
  EXPECT_TRUE(Contains(text,
                       "\nOnly in the new report (1 result, new this time, nothing to compare "
                       "with): h2d pinned sync at 1 MiB.\n"))
      << text;
  EXPECT_FALSE(Contains(text, "pageable async 8 KiB")) << "no row each: " << text;
  EXPECT_TRUE(Contains(text, "36 only in the old report, 1 only in the new")) << text;

  const std::string narrow = RenderComparison(comparison, 80);
  for (const std::string& line : LinesOf(narrow)) EXPECT_LE(DisplayWidth(line), 80u) << line;
  const std::vector<std::string> summary = RowAt(narrow, "Only in the old report");
  EXPECT_EQ(summary.size(), 3u) << "36 results in three lines at 80 columns: " << narrow;
}

// Latency rows are named by operation.
TEST(RenderComparison, OperationsInOnlyOneReportAreNamed) {
  BenchReport old = SampleLatencyReport();
  BenchReport now = SampleLatencyReport();
  now.latency.pop_back();
  now.latency.pop_back();
  const std::string text = RenderComparison(Compare(old, now));
  EXPECT_TRUE(Contains(text,
                       "Only in the old report (2 results, not measured this time): "
                       "host_callback_round_trip; event_record_to_complete.\n"))
      << text;
}

TEST(RenderComparison, AHugeChangeStaysInItsColumn) {
  const std::string text = RenderComparison(Compare(TwoSizes(10, 20), TwoSizes(1600, 20)));
  EXPECT_TRUE(Contains(text, "  h2d pinned async 4 KiB        10.0       1600   +15900%       —  "))
      << text;
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
