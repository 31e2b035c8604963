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

Expected<CeilingResult> MeasureHostCeiling(uint64_t bytes, const SamplingPlan& plan);

}  // namespace sectl::bench
