// `sectl bench memcpy`: bandwidth of the plugin's copies, per direction,
// host memory kind, mode and size, beside the host's own memcpy.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "bench/bench_report.h"
#include "bench/sampling.h"
#include "host/device.h"

namespace sectl::bench {

struct MemcpyBenchOptions {
  std::vector<uint64_t> sizes;
  std::vector<Direction> directions{std::begin(kAllDirections), std::end(kAllDirections)};
  // Empty: pinned when the plugin provides host_memory_allocate, else pageable.
  std::vector<HostMemory> host_memories;
  std::vector<CopyMode> modes{CopyMode::kAsync};
  SamplingPlan plan;
  bool verify = true;
};

// Called before each measurement with what it is about to measure
// ("h2d pinned async 64 MiB"), for a progress bar.
using ProgressCallback = std::function<void(std::string_view step)>;

// The number of measurements RunMemcpyBench makes (the ceiling included).
int CountMemcpySteps(const MemcpyBenchOptions& options, const host::Device& device);

// Appends one CeilingResult per size and one BandwidthResult per path and
// size to `report`. A path that cannot be measured gets a result with its
// error; only a failure of the host itself (no memory) ends the run.
Expected<void> RunMemcpyBench(const host::Device& device, const MemcpyBenchOptions& options,
                              BenchReport& report, const ProgressCallback& progress = {});

// The host memory kinds used when none are asked for: pinned where the
// plugin can allocate it, else pageable.
std::vector<HostMemory> DefaultHostMemories(const host::Device& device);

}  // namespace sectl::bench
