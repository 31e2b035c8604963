// Repeating a measurement until its median is known well enough, or until a
// time budget is spent: the loop every `sectl bench` number comes out of.
//
// "Known well enough" is judged from the data, not from a fixed count: the
// 95% confidence interval of the median (from order statistics, which
// assume nothing about the distribution) must be narrower than a fraction
// of the median. Noisy measurements thus get more samples, quiet ones fewer.
#pragma once

#include <chrono>
#include <functional>
#include <span>
#include <vector>

#include "base/error.h"

namespace sectl::bench {

struct SamplingPlan {
  int min_samples = 10;
  int max_samples = 500;
  // Never stop before this many, even when the budget runs out.
  int least_samples = 5;
  std::chrono::duration<double> budget{0.25};
  // Stop once the median's 95% confidence interval is within this fraction
  // of the median on either side.
  double relative_precision = 0.01;
};

struct Samples {
  std::vector<double> values;
  bool stable = false;  // stopped because the median had settled
};

// How long one sample should take: long enough that the clock and any fixed
// cost per sample (waking a stream, synchronising) are small beside it,
// short enough for many samples within a budget.
inline constexpr double kTargetSampleSeconds = 0.002;

// Times `count` operations, returning seconds.
using BatchTimer = std::function<Expected<double>(int count)>;

// How many operations make one sample of about kTargetSampleSeconds, at
// most `max_count`. Grows the batch from one timed operation until a batch
// is long enough, so a first operation slowed by a cold start or a fixed
// wake-up cost does not leave samples too short to mean anything. Every
// batch timed on the way is a warm-up; `warmup_operations` counts them.
Expected<int> CalibrateBatch(const BatchTimer& time_batch, int max_count,
                             int* warmup_operations = nullptr);

// The relative half-width of the 95% confidence interval of the median of
// `values` (any order): +inf when there are too few values to say.
double MedianUncertainty(std::span<const double> values);

// Calls `take_sample` (which returns one measured value) until the plan is
// satisfied. The first error from `take_sample` ends the loop and is returned.
Expected<Samples> SampleUntilStable(const SamplingPlan& plan,
                                    const std::function<Expected<double>()>& take_sample);

}  // namespace sectl::bench
