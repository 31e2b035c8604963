// A whole memcpy baseline run: every size, direction and host memory kind
// asked for, each beside the host's own memcpy, gathered into a sectl bench
// report.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/error.h"
#include "bench/bench_report.h"
#include "raw_copy.h"

namespace sectl::cuda_baseline {

struct BaselineOptions {
  std::vector<uint64_t> sizes;
  std::vector<bench::Direction> directions;
  // The host side of h2d and d2h: pinned, pageable or both. A d2d copy has
  // none, and is measured once whatever is asked.
  std::vector<bench::HostMemory> host_memories{bench::HostMemory::kPinned};
  int device = 0;
  RawCopyOptions copy;
  std::vector<std::string> command_line;
  bool progress = false;  // one line per measurement on stderr
};

// The paths measured at each size, in `sectl bench memcpy`'s order (by
// direction, then host memory), so that the two reports pair up result by
// result.
std::vector<RawCopyPath> PlanRawPaths(const BaselineOptions& options);

// Measures on CUDA device `options.device`. An error only when there is no
// such device or the host runs out of memory; a path that fails is a result
// with its error, as in sectl's own reports.
Expected<bench::BenchReport> RunBaseline(const BaselineOptions& options);

}  // namespace sectl::cuda_baseline
