#include "bench/statistics.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace sectl::bench {
namespace {

std::vector<double> Finite(std::span<const double> values) {
  std::vector<double> finite;
  finite.reserve(values.size());
  for (const double value : values) {
    if (!std::isnan(value)) finite.push_back(value);
  }
  return finite;
}

}  // namespace

double Percentile(std::span<const double> sorted, double p) {
  if (sorted.empty()) return 0;
  // The rank p/100 * (n - 1) falls between two samples; the percentile lies
  // on the straight line between them (NumPy's "linear" method).
  const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<size_t>(std::floor(rank));
  const size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = rank - static_cast<double>(below);
  return sorted[below] + (sorted[above] - sorted[below]) * fraction;
}

Distribution Describe(std::span<const double> samples) {
  Distribution distribution;
  if (samples.empty()) return distribution;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  distribution.median = Percentile(sorted, 50);
  distribution.p5 = Percentile(sorted, 5);
  distribution.p95 = Percentile(sorted, 95);
  distribution.min = sorted.front();
  distribution.max = sorted.back();
  distribution.spread =
      distribution.median == 0 ? 0 : (distribution.p95 - distribution.p5) / distribution.median;
  distribution.samples = static_cast<int>(sorted.size());
  distribution.values.assign(samples.begin(), samples.end());
  return distribution;
}

Distribution CombineRuns(std::span<const Distribution> runs) {
  if (runs.empty()) return {};
  if (runs.size() == 1) return runs.front();
  std::vector<double> medians;
  std::vector<double> values;
  int samples = 0;
  for (const Distribution& run : runs) {
    medians.push_back(run.median);
    samples += run.samples;
    if (run.values.empty()) {
      values.push_back(run.median);
    } else {
      values.insert(values.end(), run.values.begin(), run.values.end());
    }
  }
  Distribution combined = Describe(values);
  std::sort(medians.begin(), medians.end());
  combined.median = Percentile(medians, 50);
  combined.spread = combined.median == 0 ? 0 : (combined.p95 - combined.p5) / combined.median;
  combined.samples = std::max(samples, combined.samples);
  return combined;
}

RankTest MannWhitneyU(std::span<const double> a, std::span<const double> b) {
  const std::vector<double> first = Finite(a);
  const std::vector<double> second = Finite(b);
  const auto n_a = static_cast<double>(first.size());
  const auto n_b = static_cast<double>(second.size());
  RankTest test;
  if (first.empty() || second.empty()) return test;

  // Every value with the side it came from, in ascending order.
  std::vector<std::pair<double, bool>> pooled;  // (value, from a)
  pooled.reserve(first.size() + second.size());
  for (const double value : first) pooled.emplace_back(value, true);
  for (const double value : second) pooled.emplace_back(value, false);
  std::sort(pooled.begin(), pooled.end(),
            [](const auto& left, const auto& right) { return left.first < right.first; });

  // Ranks from 1; a run of t equal values shares their mean rank, and
  // t^3 - t of them shrinks the variance (fewer distinct orderings).
  double rank_sum_a = 0;
  double ties = 0;
  for (size_t start = 0; start < pooled.size();) {
    size_t end = start + 1;
    while (end < pooled.size() && pooled[end].first == pooled[start].first) ++end;
    const auto tied = static_cast<double>(end - start);
    const double mean_rank = (static_cast<double>(start + 1) + static_cast<double>(end)) / 2;
    for (size_t i = start; i < end; ++i) {
      if (pooled[i].second) rank_sum_a += mean_rank;
    }
    ties += tied * tied * tied - tied;
    start = end;
  }

  const double n = n_a + n_b;
  test.u = rank_sum_a - n_a * (n_a + 1) / 2;
  const double mean_u = n_a * n_b / 2;
  const double variance = n_a * n_b / 12 * ((n + 1) - ties / (n * (n - 1)));
  if (variance <= 0) return test;  // every value the same: nothing tells them apart
  const double distance = std::max(0.0, std::abs(test.u - mean_u) - 0.5);
  const double z = distance / std::sqrt(variance);
  // Both tails of the standard normal beyond |z|.
  test.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return test;
}

std::vector<HeldTo> HolmBonferroni(std::span<const double> p_values, double family_level) {
  std::vector<size_t> order(p_values.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t left, size_t right) { return p_values[left] < p_values[right]; });
  std::vector<HeldTo> held(p_values.size());
  bool still_rejecting = true;
  for (size_t rank = 0; rank < order.size(); ++rank) {
    HeldTo& this_one = held[order[rank]];
    this_one.level = family_level / static_cast<double>(order.size() - rank);
    still_rejecting = still_rejecting && p_values[order[rank]] <= this_one.level;
    this_one.significant = still_rejecting;
  }
  return held;
}

}  // namespace sectl::bench
