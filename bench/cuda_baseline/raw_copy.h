// One copy path measured with the CUDA runtime directly: cudaMemcpyAsync on
// a stream, between host memory and device memory (cudaMalloc), or within
// the device. The host memory is pinned (cudaMallocHost) or pageable (plain
// page-aligned heap memory, as `sectl bench memcpy --host-memory pageable`
// uses).
//
// The method is `sectl bench memcpy`'s own (lib/bench/memcpy_bench.cc), step
// for step, so that the two reports differ only by what lies between
// TensorFlow's C API and the CUDA runtime: the same warm-up, the same number
// of copies per sample, the same adaptive sampling, the copies held behind a
// gate while they are enqueued, the host's clock from opening the gate to
// the stream's end for `gbps`, and CUDA events around the copies for the
// timer column (`plugin_timer_gbps`, which the sectl_cuda plugin's timers
// fill from the same events).
//
// One difference is CUDA's, not the method's. A copy between the device and
// pageable memory is staged through the driver's own pinned buffers, and
// CUDA makes it wait for the work queued before it on the stream: a
// device-to-host copy returns only once it is complete (CUDA runtime API,
// "API synchronization behavior"). Queued behind a closed gate it would wait
// for a gate that only the blocked thread can open. So pageable copies are
// timed without the gate, from the first enqueue to the stream's end, and
// their results say enqueue_excluded = false: for these copies enqueueing
// is the copy.
#pragma once

#include <cstdint>

#include "bench/bench_report.h"
#include "bench/sampling.h"

namespace sectl::cuda_baseline {

// A copy path: its direction, and where its host side lives (kNone for d2d).
struct RawCopyPath {
  bench::Direction direction = bench::Direction::kHostToDevice;
  bench::HostMemory host_memory = bench::HostMemory::kPinned;
};

struct RawCopyOptions {
  bench::SamplingPlan plan;
  bool verify = true;
};

// Whether the path's copies can be queued behind a gate: all but those
// between the device and pageable memory (see above).
bool CanGate(const RawCopyPath& path);

// Measures `path` at `bytes` on the current CUDA device. A path that cannot
// be measured (no memory, a failing call) gets a result with its error, as
// in sectl's reports.
bench::BandwidthResult MeasureRawCopy(const RawCopyPath& path, uint64_t bytes, double ceiling_gbps,
                                      const RawCopyOptions& options);

}  // namespace sectl::cuda_baseline
