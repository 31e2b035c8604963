// The gate's second look: what is re-measured when a result looks
// regressed, and how the runs together decide (regression_confirmation.h).
// The re-measuring itself is tested end to end in bench_cli_test.
#include "bench/regression_confirmation.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "bench/statistics.h"
#include "bench_sample_reports.h"

namespace sectl::bench {
namespace {

using namespace sectl::bench::testing;

// One run: h2d pinned async and d2d async at 64 KiB and 1 MiB, each with
// samples around 10 GB/s but h2d 64 KiB, around `h2d_small`.
BenchReport MeasuredRun(double h2d_small, unsigned seed) {
  BenchReport report = Provenance("memcpy");
  for (const uint64_t bytes : {64 * kKiB, kMiB}) {
    for (const Direction direction : {Direction::kHostToDevice, Direction::kDeviceToDevice}) {
      const HostMemory memory =
          direction == Direction::kDeviceToDevice ? HostMemory::kNone : HostMemory::kPinned;
      const bool disturbed = direction == Direction::kHostToDevice && bytes == 64 * kKiB;
      BandwidthResult result = Bandwidth(direction, memory, CopyMode::kAsync, bytes, 10);
      result.gbps = Describe(Around(disturbed ? h2d_small : 10, 0.02, 25, seed++));
      report.results.push_back(result);
    }
    report.ceiling.push_back({.bytes = bytes, .gbps = Gbps(20)});
  }
  return report;
}

Comparison Compare(const BenchReport& old, const BenchReport& now) {
  auto comparison = CompareBenchReports(old, now, 0.10);
  EXPECT_TRUE(comparison) << comparison.error().message();
  return comparison ? *comparison : Comparison{};
}

TEST(NarrowToRegressions, MeasuresOnlyTheRegressedPathsAndSizes) {
  const Comparison first = Compare(MeasuredRun(10, 1), MeasuredRun(8, 50));
  ASSERT_EQ(first.regressions, 1);
  MemcpyBenchOptions measured;
  measured.sizes = {4 * kKiB, 64 * kKiB, kMiB};
  measured.host_memories = {HostMemory::kPinned, HostMemory::kPageable};
  measured.modes = {CopyMode::kAsync, CopyMode::kSync};
  measured.plan.budget = std::chrono::duration<double>(0.5);
  const MemcpyBenchOptions again = NarrowToRegressions(measured, first);
  EXPECT_EQ(again.sizes, std::vector<uint64_t>{64 * kKiB});
  EXPECT_EQ(again.directions, std::vector<Direction>{Direction::kHostToDevice});
  EXPECT_EQ(again.host_memories, std::vector<HostMemory>{HostMemory::kPinned});
  EXPECT_EQ(again.modes, std::vector<CopyMode>{CopyMode::kAsync});
  EXPECT_EQ(again.plan.budget, measured.plan.budget) << "measured as carefully as the first time";
  EXPECT_TRUE(again.verify);
}

TEST(NarrowToRegressions, ADeviceToDeviceRegressionKeepsTheHostMemoryUsed) {
  Comparison first;
  ComparisonRow row;
  row.series = SeriesKey{Direction::kDeviceToDevice, HostMemory::kNone, CopyMode::kAsync};
  row.bytes = kMiB;
  row.verdict = ChangeVerdict::kRegression;
  first.rows = {row};
  MemcpyBenchOptions measured;
  measured.host_memories = {HostMemory::kPageable};
  EXPECT_EQ(NarrowToRegressions(measured, first).host_memories, measured.host_memories);
}

TEST(RestrictToResultsOf, TakesTheMatchingResultsInTheOtherRunsOrder) {
  BenchReport like = Provenance("memcpy");
  like.results = {
      Bandwidth(Direction::kDeviceToDevice, HostMemory::kNone, CopyMode::kAsync, kMiB, 1),
      Bandwidth(Direction::kHostToDevice, HostMemory::kPinned, CopyMode::kAsync, 64 * kKiB, 1)};
  like.ceiling = {{.bytes = 64 * kKiB, .gbps = Gbps(1)}, {.bytes = kMiB, .gbps = Gbps(1)}};
  const auto restricted = RestrictToResultsOf(MeasuredRun(8, 1), like);
  ASSERT_TRUE(restricted) << restricted.error().message();
  ASSERT_EQ(restricted->results.size(), 2u);
  EXPECT_EQ(restricted->results[0].direction, Direction::kDeviceToDevice);
  EXPECT_EQ(restricted->results[1].bytes, 64 * kKiB);
  EXPECT_NEAR(restricted->results[1].gbps.median, 8, 0.2) << "the first run's own numbers";
  EXPECT_EQ(restricted->ceiling.size(), 2u);

  like.results.push_back(
      Bandwidth(Direction::kDeviceToHost, HostMemory::kPageable, CopyMode::kSync, kMiB, 1));
  EXPECT_FALSE(RestrictToResultsOf(MeasuredRun(8, 1), like));
}

TEST(ApplyConfirmation, ARegressionOnlyTheFirstRunShowedIsNotConfirmed) {
  const BenchReport saved = MeasuredRun(10, 1);
  const Comparison first = Compare(saved, MeasuredRun(8, 50));
  ASSERT_EQ(first.regressions, 1);
  // Two more runs at full speed: the median of the three runs is one of them.
  const auto combined =
      CombineBenchRuns({MeasuredRun(8, 50), MeasuredRun(10, 100), MeasuredRun(10, 150)});
  ASSERT_TRUE(combined);
  const Comparison confirmed = ApplyConfirmation(
      first, Compare(saved, *combined),
      {Compare(saved, MeasuredRun(10, 100)), Compare(saved, MeasuredRun(10, 150))});
  EXPECT_EQ(confirmed.regressions, 0);
  EXPECT_EQ(confirmed.within_tolerance, 4);
  EXPECT_EQ(confirmed.confirmation_runs, 2);
  const ComparisonRow& row = confirmed.rows[0];
  EXPECT_EQ(row.verdict, ChangeVerdict::kWithinTolerance);
  EXPECT_NE(row.note.find("not confirmed: -20."), std::string::npos) << row.note;
  EXPECT_NE(row.note.find("in this run"), std::string::npos) << row.note;
  EXPECT_NE(row.note.find("as the median of 3 runs"), std::string::npos) << row.note;
  const std::string text = RenderComparison(confirmed);
  EXPECT_NE(text.find("measured again in 2 fresh runs"), std::string::npos) << text;
  EXPECT_TRUE(text.ends_with("— passed\n")) << text;
}

TEST(ApplyConfirmation, ARegressionEveryRunShowsStands) {
  const BenchReport saved = MeasuredRun(10, 1);
  const Comparison first = Compare(saved, MeasuredRun(7.5, 50));
  const auto combined =
      CombineBenchRuns({MeasuredRun(7.5, 50), MeasuredRun(7.6, 100), MeasuredRun(7.4, 150)});
  ASSERT_TRUE(combined);
  const Comparison confirmed = ApplyConfirmation(
      first, Compare(saved, *combined),
      {Compare(saved, MeasuredRun(7.6, 100)), Compare(saved, MeasuredRun(7.4, 150))});
  EXPECT_EQ(confirmed.regressions, 1);
  EXPECT_EQ(confirmed.rows[0].verdict, ChangeVerdict::kRegression);
  EXPECT_TRUE(confirmed.rows[0].note.starts_with("confirmed: -2")) << confirmed.rows[0].note;
  EXPECT_TRUE(RenderComparison(confirmed).ends_with("— FAILED\n"));
}

TEST(ApplyConfirmation, ReMeasurementsThatDidNotSettleStillConfirmWhenEveryRunIsWorse) {
  // On a busy machine the re-measurements' medians may not settle in their
  // budget: all together are then "unstable"; but every run is 25% slower.
  const BenchReport saved = MeasuredRun(10, 1);
  const Comparison first = Compare(saved, MeasuredRun(7.5, 50));
  ASSERT_EQ(first.regressions, 1);
  auto unsettled = [](double gbps, unsigned seed) {
    BenchReport run = MeasuredRun(gbps, seed);
    for (BandwidthResult& result : run.results) result.stable = false;
    return run;
  };
  const auto combined =
      CombineBenchRuns({MeasuredRun(7.5, 50), unsettled(7.6, 100), unsettled(7.4, 150)});
  ASSERT_TRUE(combined);
  const Comparison together = Compare(saved, *combined);
  ASSERT_EQ(together.rows[0].verdict, ChangeVerdict::kUnstable);
  const Comparison confirmed = ApplyConfirmation(
      first, together, {Compare(saved, unsettled(7.6, 100)), Compare(saved, unsettled(7.4, 150))});
  EXPECT_EQ(confirmed.regressions, 1);
  EXPECT_EQ(confirmed.rows[0].verdict, ChangeVerdict::kRegression);

  // One of them within the tolerance: unstable, as the runs together say.
  const Comparison cleared = ApplyConfirmation(
      first, together, {Compare(saved, unsettled(9.5, 100)), Compare(saved, unsettled(7.4, 150))});
  EXPECT_EQ(cleared.regressions, 0);
  EXPECT_EQ(cleared.rows[0].verdict, ChangeVerdict::kUnstable);
}

TEST(ApplyConfirmation, ALuckyBaselineIsNotARegressionOfThePlugin) {
  // The baseline ran 20% faster than the plugin usually does. Two runs of
  // three are that much slower, so their median is too; but one run is
  // within 10% of it, which a slower plugin would not manage.
  const BenchReport saved = MeasuredRun(12, 1);
  const Comparison first = Compare(saved, MeasuredRun(10, 50));
  ASSERT_EQ(first.regressions, 1);
  const auto combined =
      CombineBenchRuns({MeasuredRun(10, 50), MeasuredRun(11.5, 100), MeasuredRun(10, 150)});
  ASSERT_TRUE(combined);
  const Comparison together = Compare(saved, *combined);
  ASSERT_EQ(together.rows[0].verdict, ChangeVerdict::kRegression);
  const Comparison confirmed = ApplyConfirmation(
      first, together,
      {Compare(saved, MeasuredRun(11.5, 100)), Compare(saved, MeasuredRun(10, 150))});
  EXPECT_EQ(confirmed.regressions, 0);
  EXPECT_EQ(confirmed.rows[0].verdict, ChangeVerdict::kNotSignificant);
  EXPECT_NE(confirmed.rows[0].note.find("not worse by more than 10% in every run"),
            std::string::npos)
      << confirmed.rows[0].note;
}

// Latency: higher is worse, and an operation is re-measured the same way.
TEST(ApplyConfirmation, ALatencySpikeInOneRunIsNotConfirmed) {
  auto latency_run = [](double callback_ns, unsigned seed) {
    BenchReport report = Provenance("latency");
    for (const char* operation : {"enqueue_tiny_copy", "host_callback_round_trip"}) {
      LatencyResult result;
      result.operation = operation;
      const bool spiking = std::string(operation) == "host_callback_round_trip";
      result.ns = Describe(Around(spiking ? callback_ns : 500, 0.02, 25, seed++));
      report.latency.push_back(result);
    }
    return report;
  };
  const BenchReport saved = latency_run(2000, 1);
  const Comparison first = Compare(saved, latency_run(8000, 50));  // 4x slower once
  ASSERT_EQ(first.regressions, 1);
  EXPECT_EQ(first.rows[1].verdict, ChangeVerdict::kRegression);
  const auto combined =
      CombineBenchRuns({latency_run(8000, 50), latency_run(2010, 100), latency_run(1990, 150)});
  ASSERT_TRUE(combined);
  const Comparison cleared = ApplyConfirmation(
      first, Compare(saved, *combined),
      {Compare(saved, latency_run(2010, 100)), Compare(saved, latency_run(1990, 150))});
  EXPECT_EQ(cleared.regressions, 0);
  EXPECT_NE(cleared.rows[1].note.find("not confirmed: +300."), std::string::npos)
      << cleared.rows[1].note;

  // Slower in every run: confirmed.
  const auto slower =
      CombineBenchRuns({latency_run(8000, 50), latency_run(7900, 100), latency_run(8100, 150)});
  ASSERT_TRUE(slower);
  const Comparison confirmed = ApplyConfirmation(
      first, Compare(saved, *slower),
      {Compare(saved, latency_run(7900, 100)), Compare(saved, latency_run(8100, 150))});
  EXPECT_EQ(confirmed.regressions, 1);
}

TEST(ApplyConfirmation, OnlyRegressionsAreReJudged) {
  const BenchReport saved = MeasuredRun(10, 1);
  Comparison first = Compare(saved, MeasuredRun(8, 50));
  // A re-measurement that (wrongly) found every other result regressed
  // changes nothing but the row that had regressed.
  Comparison remeasured = first;
  for (ComparisonRow& row : remeasured.rows) row.verdict = ChangeVerdict::kRegression;
  const Comparison confirmed = ApplyConfirmation(first, remeasured, {remeasured, remeasured});
  EXPECT_EQ(confirmed.regressions, 1);
  EXPECT_EQ(confirmed.within_tolerance, 3);
}

TEST(ConfirmRegressions, NoRunsOrNoRegressionsLeaveTheComparisonAlone) {
  const BenchReport saved = MeasuredRun(10, 1);
  const BenchReport report = MeasuredRun(8, 50);
  const Comparison first = Compare(saved, report);
  BenchOptions options;
  options.plugin_path = "/nonexistent/plugin.so";  // never loaded
  EXPECT_EQ(ConfirmRegressions(saved, report, first, options, 0).confirmation_runs, 0);
  const Comparison same = Compare(saved, MeasuredRun(10, 50));
  EXPECT_EQ(ConfirmRegressions(saved, report, same, options, 2).confirmation_runs, 0);
}

TEST(ConfirmRegressions, AFailedReMeasurementKeepsTheRegressionAndSaysWhy) {
  const BenchReport saved = MeasuredRun(10, 1);
  const BenchReport report = MeasuredRun(8, 50);
  const Comparison first = Compare(saved, report);
  BenchOptions options;
  options.plugin_path = "/nonexistent/plugin.so";
  const Comparison kept = ConfirmRegressions(saved, report, first, options, 2);
  EXPECT_EQ(kept.regressions, 1);
  EXPECT_NE(kept.rows[0].note.find("not re-measured: "), std::string::npos) << kept.rows[0].note;
}

// A re-measurement that stopped early (step_deadline.h) measured nothing
// after it stopped; that must not read as "no longer measured", which would
// confirm the regression.
TEST(ConfirmRegressions, AReMeasurementThatStoppedEarlyConfirmsNothing) {
  const BenchReport saved = MeasuredRun(10, 1);
  const BenchReport report = MeasuredRun(8, 50);
  const Comparison first = Compare(saved, report);
  ASSERT_EQ(first.regressions, 1);
  BenchOptions options;
  options.plugin_path = std::string(SECTL_PLUGIN_DIR) + "/sectl_minimal.so";
  options.memcpy.sizes = {64 * kKiB, kMiB};
  options.memcpy.directions = {Direction::kHostToDevice, Direction::kDeviceToDevice};
  options.deadline = std::chrono::milliseconds(1);  // passed before the first step
  const Comparison kept = ConfirmRegressions(saved, report, first, options, 2);
  EXPECT_EQ(kept.regressions, 1);
  EXPECT_EQ(kept.confirmation_runs, 0);
  EXPECT_NE(kept.rows[0].note.find("not re-measured: the re-measurement stopped early: the run's "
                                   "deadline of 0.001 s (--deadline) passed before "),
            std::string::npos)
      << kept.rows[0].note;
  for (const ComparisonRow& row : kept.rows) {
    if (row.verdict == ChangeVerdict::kRegression) {
      EXPECT_EQ(row.note.find("no longer measured"), std::string::npos) << row.note;
    }
  }
}

}  // namespace
}  // namespace sectl::bench
