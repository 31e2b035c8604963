// Describing repeated measurements: the percentiles must match NumPy's
// default (linear interpolation between closest ranks), because people check
// sectl's numbers against their own scripts.
#include <gtest/gtest.h>

#include <vector>

#include "bench/statistics.h"

namespace sectl::bench {
namespace {

TEST(Percentile, InterpolatesBetweenClosestRanks) {
  const std::vector<double> sorted = {15, 20, 35, 40, 50};
  // numpy.percentile([15, 20, 35, 40, 50], [0, 5, 25, 50, 95, 100])
  EXPECT_DOUBLE_EQ(Percentile(sorted, 0), 15);
  EXPECT_DOUBLE_EQ(Percentile(sorted, 5), 16);
  EXPECT_DOUBLE_EQ(Percentile(sorted, 25), 20);
  EXPECT_DOUBLE_EQ(Percentile(sorted, 50), 35);
  EXPECT_DOUBLE_EQ(Percentile(sorted, 95), 48);
  EXPECT_DOUBLE_EQ(Percentile(sorted, 100), 50);
}

TEST(Percentile, OfAnEvenCountTheMedianIsTheMeanOfTheMiddleTwo) {
  const std::vector<double> sorted = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(Percentile(sorted, 50), 2.5);
  EXPECT_DOUBLE_EQ(Percentile(sorted, 5), 1.15);
  EXPECT_DOUBLE_EQ(Percentile(sorted, 95), 3.85);
}

TEST(Percentile, OfOneSampleIsThatSample) {
  const std::vector<double> one = {7.25};
  EXPECT_DOUBLE_EQ(Percentile(one, 5), 7.25);
  EXPECT_DOUBLE_EQ(Percentile(one, 95), 7.25);
}

TEST(Describe, SortsAndSummarises) {
  const std::vector<double> samples = {10, 1, 9, 2, 8, 3, 7, 4, 6, 5};
  const Distribution d = Describe(samples);
  EXPECT_EQ(d.samples, 10);
  EXPECT_DOUBLE_EQ(d.median, 5.5);
  EXPECT_DOUBLE_EQ(d.p5, 1.45);
  EXPECT_DOUBLE_EQ(d.p95, 9.55);
  EXPECT_DOUBLE_EQ(d.min, 1);
  EXPECT_DOUBLE_EQ(d.max, 10);
  EXPECT_DOUBLE_EQ(d.spread, (9.55 - 1.45) / 5.5);
}

TEST(Describe, IdenticalSamplesHaveNoSpread) {
  const std::vector<double> samples(20, 12.5);
  const Distribution d = Describe(samples);
  EXPECT_DOUBLE_EQ(d.median, 12.5);
  EXPECT_DOUBLE_EQ(d.p5, 12.5);
  EXPECT_DOUBLE_EQ(d.p95, 12.5);
  EXPECT_DOUBLE_EQ(d.spread, 0);
}

TEST(Describe, AnOutlierMovesTheExtremesNotTheMedian) {
  std::vector<double> samples(99, 20.0);
  samples.push_back(2000.0);
  const Distribution d = Describe(samples);
  EXPECT_DOUBLE_EQ(d.median, 20);
  EXPECT_DOUBLE_EQ(d.p95, 20);
  EXPECT_DOUBLE_EQ(d.max, 2000);
}

TEST(Describe, ZeroMedianGivesZeroSpreadNotInfinity) {
  const std::vector<double> samples = {0, 0, 0, 5};
  const Distribution d = Describe(samples);
  EXPECT_DOUBLE_EQ(d.median, 0);
  EXPECT_DOUBLE_EQ(d.spread, 0);
}

TEST(Describe, NothingDescribesAsZeros) {
  const Distribution d = Describe({});
  EXPECT_EQ(d.samples, 0);
  EXPECT_DOUBLE_EQ(d.median, 0);
  EXPECT_DOUBLE_EQ(d.p5, 0);
  EXPECT_DOUBLE_EQ(d.p95, 0);
  EXPECT_DOUBLE_EQ(d.min, 0);
  EXPECT_DOUBLE_EQ(d.max, 0);
  EXPECT_DOUBLE_EQ(d.spread, 0);
}

}  // namespace
}  // namespace sectl::bench
