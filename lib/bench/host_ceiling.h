// The ceiling: the host's own memcpy between two ordinary buffers of the
// same size, measured the same way as the plugin's copies (same sampling,
// one host thread, as the plugin path is driven by one). For a device in
// host memory, a plugin's copy can at best match it; for a real
// accelerator it shows whether the link or the plugin is the limit.
#pragma once

#include <cstdint>

#include "base/error.h"
#include "bench/bench_report.h"
#include "bench/sampling.h"

namespace sectl::bench {

// Never more copies than this in one sample (tiny copies).
inline constexpr int kMaxCopiesPerSample = 4096;
// Nor more than this queued behind a closed stream gate: a real device's
// queue is finite (CUDA's blocks the enqueueing thread after about a
// thousand operations behind a host function), and an enqueue that blocks
// behind a gate only its own thread can open waits out the gate's hold.
inline constexpr int kMaxCopiesBehindAGate = 128;

Expected<CeilingResult> MeasureHostCeiling(uint64_t bytes, const SamplingPlan& plan);

}  // namespace sectl::bench
