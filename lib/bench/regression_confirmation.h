// Confirming what `sectl bench --compare` calls a regression before the
// gate fails on it.
//
// Why: a run's samples are taken from one process, with one set of buffers
// at one place in physical memory, so they share whatever that run got
// (page placement, cache aliasing, a neighbour's burst). The rank test sees
// how the samples of a run scatter, not how whole runs do, and so on an
// idle machine one result in fifty now and then "regresses" by 12% with
// p < 0.001 although nothing changed. A real regression is there in every
// run. So each result that looks regressed is measured again, in `runs`
// fresh processes (new buffers), and stays a regression only when
//   - all the runs together still show it: the median of the runs'
//     medians, tested with every run's samples (what --repeat-runs would
//     have said), and
//   - every run on its own is worse than the baseline by more than the
//     tolerance. A baseline that was itself a lucky run sits above most
//     runs of the same code, but rarely above all of them.
// It costs time only where the gate would otherwise fail.
//
// The saved baseline is not re-measured (its plugin may be gone); a
// baseline taken with --repeat-runs 3 keeps one lucky run out of it.
#pragma once

#include <vector>

#include "base/error.h"
#include "bench/bench_compare.h"
#include "bench/run_bench.h"

namespace sectl::bench {

// How many fresh runs re-measure a regressed result by default
// (--confirm-runs): with the first, three runs, so one odd run is outvoted.
inline constexpr int kDefaultConfirmRuns = 2;

// Whether any row of `comparison` is a regression worth re-measuring.
bool HasRegressions(const Comparison& comparison);

// The memcpy options that measure the regressed results of `comparison`
// again: `measured`, narrowed to the regressed rows' directions, host
// memories, modes and sizes (every combination of them, so possibly a few
// results more). Latency runs are short and measured whole.
MemcpyBenchOptions NarrowToRegressions(const MemcpyBenchOptions& measured,
                                       const Comparison& comparison);

// `report` with only the results (and ceilings, latencies) that `like` has,
// in `like`'s order; kNotFound names the first result `report` lacks.
Expected<BenchReport> RestrictToResultsOf(const BenchReport& report, const BenchReport& like);

// `first` with every regression judged again: by `combined` (all the runs
// together compared with the same saved report) and by `each_run` (each
// re-measurement alone compared with it), as above, with a note giving the
// changes. Counts are recomputed.
Comparison ApplyConfirmation(Comparison first, const Comparison& combined,
                             const std::vector<Comparison>& each_run);

// Re-measures the regressed results of `first` (the comparison of
// `report`, measured with `measured_with`, against `saved`) in `runs`
// fresh runs and returns the confirmed comparison. A re-measurement that
// fails leaves `first` as it was, with the reason in each regressed row.
Comparison ConfirmRegressions(const BenchReport& saved, const BenchReport& report,
                              const Comparison& first, const BenchOptions& measured_with, int runs);

}  // namespace sectl::bench
