#include "bench/sampling.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sectl::bench {

double MedianUncertainty(std::span<const double> values) {
  const auto n = static_cast<double>(values.size());
  // Below about 6 samples the order-statistic interval is the whole range.
  if (values.size() < 6) return std::numeric_limits<double>::infinity();
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  // Ranks n/2 -+ 1.96 * sqrt(n)/2 bound the median with ~95% confidence
  // (normal approximation to the binomial).
  const double half_width_in_ranks = 0.98 * std::sqrt(n);
  const auto lower = static_cast<size_t>(std::max(0.0, std::floor(n / 2 - half_width_in_ranks)));
  const auto upper = static_cast<size_t>(std::min(n - 1, std::ceil(n / 2 + half_width_in_ranks)));
  const double median = sorted[sorted.size() / 2];
  if (median <= 0) return std::numeric_limits<double>::infinity();
  return (sorted[upper] - sorted[lower]) / 2 / median;
}

Expected<int> CalibrateBatch(const BatchTimer& time_batch, int max_count, int* warmup_operations) {
  int count = 1;
  int warmed = 0;
  for (;;) {
    auto seconds = time_batch(count);
    if (!seconds) return tl::unexpected(seconds.error());
    warmed += count;
    if (*seconds >= kTargetSampleSeconds || count >= max_count) break;
    // Aim a little past the target, and at least double: fixed costs make
    // the time grow slower than the count.
    const double scaled = *seconds > 0 ? count * kTargetSampleSeconds * 1.2 / *seconds
                                       : static_cast<double>(max_count);
    count = static_cast<int>(
        std::clamp(std::max(scaled, 2.0 * count), 1.0, static_cast<double>(max_count)));
  }
  if (warmup_operations != nullptr) *warmup_operations = warmed;
  return count;
}

Expected<Samples> SampleUntilStable(const SamplingPlan& plan,
                                    const std::function<Expected<double>()>& take_sample) {
  using Clock = std::chrono::steady_clock;
  Samples samples;
  const auto started = Clock::now();
  while (static_cast<int>(samples.values.size()) < plan.max_samples) {
    auto value = take_sample();
    if (!value) return tl::unexpected(value.error());
    samples.values.push_back(*value);

    const auto count = static_cast<int>(samples.values.size());
    if (count >= plan.min_samples && MedianUncertainty(samples.values) <= plan.relative_precision) {
      samples.stable = true;
      break;
    }
    if (count >= plan.least_samples && Clock::now() - started >= plan.budget) break;
  }
  return samples;
}

}  // namespace sectl::bench
