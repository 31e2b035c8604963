// One copy path measured with the CUDA runtime directly: cudaMemcpyAsync on
// a stream, between pinned host memory (cudaMallocHost) and device memory
// (cudaMalloc), or within the device.
//
// The method is `sectl bench memcpy`'s own (lib/bench/memcpy_bench.cc), step
// for step, so that the two reports differ only by what lies between
// TensorFlow's C API and the CUDA runtime: the same warm-up, the same number
// of copies per sample, the same adaptive sampling, the copies held behind a
// gate while they are enqueued, the host's clock from opening the gate to
// the stream's end for `gbps`, and CUDA events around the copies for the
// timer column (`plugin_timer_gbps`, which the sectl_cuda plugin's timers
// fill from the same events).
#pragma once

#include <cstdint>

#include "bench/bench_report.h"
#include "bench/sampling.h"

namespace sectl::cuda_baseline {

struct RawCopyOptions {
  bench::SamplingPlan plan;
  bool verify = true;
};

// Measures `direction` at `bytes` on the current CUDA device. A path that
// cannot be measured (no memory, a failing call) gets a result with its
// error, as in sectl's reports.
bench::BandwidthResult MeasureRawCopy(bench::Direction direction, uint64_t bytes,
                                      double ceiling_gbps, const RawCopyOptions& options);

}  // namespace sectl::cuda_baseline
