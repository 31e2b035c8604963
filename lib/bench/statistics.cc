#include "bench/statistics.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace sectl::bench {

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
  return distribution;
}

}  // namespace sectl::bench
