// Describing repeated measurements, and telling two sets of them apart.
//
// Percentiles interpolate linearly between closest ranks, as NumPy's default
// does, so p5/p95 of a small sample are not just its extremes.
//
// Whether two runs differ is a Mann–Whitney U rank test (also called the
// Wilcoxon rank-sum test), the test Google Benchmark's compare.py uses: it
// assumes nothing about the shape of the distributions (timings are skewed,
// with a long tail of preempted samples), only that the samples of a run are
// independent draws.
#pragma once

#include <span>
#include <vector>

#include "bench/bench_report.h"

namespace sectl::bench {

// The p-th percentile (0..100) of `sorted` (ascending, not empty).
double Percentile(std::span<const double> sorted, double p);

// Median, p5, p95, min, max and spread of `samples` (any order), which are
// kept as the values. An empty span gives a Distribution of zeros with
// samples == 0.
Distribution Describe(std::span<const double> samples);

// The runs of one measurement as one Distribution (--repeat-runs): the
// median is the median of the runs' medians, so one run disturbed as a
// whole moves it no more than one sample moves a median; the percentiles,
// extremes and values are those of every run's values together. When a run
// has no values (a report from before they were kept), its median stands
// for them.
Distribution CombineRuns(std::span<const Distribution> runs);

// The result of a two-sided Mann–Whitney U test of samples `a` against `b`.
struct RankTest {
  // The probability of ranks at least this far apart if `a` and `b` were
  // drawn from the same distribution. 1 when there is nothing to test (a
  // side is empty, or every value is the same).
  double p_value = 1;
  // U of `a`: how many of the (a, b) pairs have a above b, ties counting
  // one half. n_a * n_b / 2 when the two are alike.
  double u = 0;
};

// The two-sided Mann–Whitney U test with the normal approximation, the
// variance corrected for ties, and a continuity correction of 1/2 (SciPy's
// mannwhitneyu(..., alternative="two-sided", method="asymptotic")).
// Values that are not numbers are left out.
RankTest MannWhitneyU(std::span<const double> a, std::span<const double> b);

// Which of several tests are significant when `family_level` is to bound the
// chance that any of them is significant by chance alone (Holm–Bonferroni:
// the k-th smallest of m p-values is held to family_level / (m - k + 1), and
// from the first that fails on, none is significant). A gate that fails on
// any of 50 results at 0.05 each would otherwise fail most runs of
// unchanged code.
struct HeldTo {
  bool significant = false;
  double level = 0;  // the level this p-value was held to
};
std::vector<HeldTo> HolmBonferroni(std::span<const double> p_values, double family_level);

}  // namespace sectl::bench
