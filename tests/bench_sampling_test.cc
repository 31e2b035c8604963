// The sampling loop every bench number comes from: when it stops, and why.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "bench/sampling.h"

namespace sectl::bench {
namespace {

TEST(MedianUncertaintyTest, IsInfiniteForTooFewSamples) {
  const std::vector<double> five = {1, 2, 3, 4, 5};
  EXPECT_TRUE(std::isinf(MedianUncertainty(five)));
}

TEST(MedianUncertaintyTest, IsZeroForIdenticalSamples) {
  const std::vector<double> same(20, 7.0);
  EXPECT_EQ(MedianUncertainty(same), 0.0);
}

TEST(MedianUncertaintyTest, ShrinksAsSamplesAccumulate) {
  // The same spread of values, more of them: the median is known better.
  std::vector<double> few;
  std::vector<double> many;
  few.reserve(10);
  many.reserve(200);
  for (int i = 0; i < 10; ++i) few.push_back(100 + i % 5);
  for (int i = 0; i < 200; ++i) many.push_back(100 + i % 5);
  EXPECT_LT(MedianUncertainty(many), MedianUncertainty(few));
}

TEST(SampleUntilStableTest, StopsAtTheMinimumWhenValuesAgree) {
  SamplingPlan plan;
  plan.min_samples = 8;
  int calls = 0;
  auto samples = SampleUntilStable(plan, [&]() -> Expected<double> {
    ++calls;
    return 3.0;
  });
  ASSERT_TRUE(samples.has_value());
  EXPECT_TRUE(samples->stable);
  EXPECT_EQ(calls, 8);
  EXPECT_EQ(samples->values.size(), 8u);
}

TEST(SampleUntilStableTest, NoisyValuesRunToTheBudgetAndAreNotStable) {
  SamplingPlan plan;
  plan.budget = std::chrono::milliseconds(20);
  plan.max_samples = 1'000'000;
  int calls = 0;
  auto samples = SampleUntilStable(plan, [&]() -> Expected<double> {
    ++calls;
    return calls % 2 == 0 ? 1.0 : 100.0;  // a median that never settles
  });
  ASSERT_TRUE(samples.has_value());
  EXPECT_FALSE(samples->stable);
  EXPECT_GE(calls, plan.least_samples);
}

TEST(SampleUntilStableTest, TakesTheLeastSamplesEvenWithNoBudget) {
  SamplingPlan plan;
  plan.budget = std::chrono::seconds(0);
  int calls = 0;
  auto samples = SampleUntilStable(plan, [&]() -> Expected<double> { return ++calls * 10.0; });
  ASSERT_TRUE(samples.has_value());
  EXPECT_EQ(calls, plan.least_samples);
}

TEST(SampleUntilStableTest, NeverExceedsTheMaximum) {
  SamplingPlan plan;
  plan.max_samples = 12;
  plan.budget = std::chrono::hours(1);
  int calls = 0;
  auto samples = SampleUntilStable(plan, [&]() -> Expected<double> {
    ++calls;
    return calls % 2 == 0 ? 1.0 : 100.0;
  });
  ASSERT_TRUE(samples.has_value());
  EXPECT_EQ(calls, 12);
  EXPECT_FALSE(samples->stable);
}

TEST(SampleUntilStableTest, TheFirstErrorEndsTheLoop) {
  SamplingPlan plan;
  int calls = 0;
  auto samples = SampleUntilStable(plan, [&]() -> Expected<double> {
    if (++calls == 3) return Fail(ErrorCode::kPluginError, "memcpy_htod failed");
    return 1.0;
  });
  ASSERT_FALSE(samples.has_value());
  EXPECT_EQ(samples.error().message(), "memcpy_htod failed");
  EXPECT_EQ(calls, 3);
}

}  // namespace
}  // namespace sectl::bench
