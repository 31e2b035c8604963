// Describing repeated measurements: percentiles by linear interpolation
// between closest ranks, as NumPy's default does, so p5/p95 of a small
// sample are not just its extremes.
#pragma once

#include <span>

#include "bench/bench_report.h"

namespace sectl::bench {

// The p-th percentile (0..100) of `sorted` (ascending, not empty).
double Percentile(std::span<const double> sorted, double p);

// Median, p5, p95, min, max and spread of `samples` (any order). An empty
// span gives a Distribution of zeros with samples == 0.
Distribution Describe(std::span<const double> samples);

}  // namespace sectl::bench
