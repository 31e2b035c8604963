// `sectl bench memcpy`: bandwidth of the plugin's copies, per direction,
// host memory kind, mode and size, beside the host's own memcpy.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "bench/bench_report.h"
#include "bench/plugin_health.h"
#include "bench/sampling.h"
#include "bench/step_deadline.h"
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
  // Plugin functions known broken before the run (conform's checks found
  // them so). Helpers route around them (no gate without host_callback, no
  // plugin timer without its timer functions, pageable memory without
  // host_memory_allocate); a path whose copies' completion is signalled by
  // one, or that needs one that crashes or hangs, is not measurable.
  std::vector<AvoidedFunction> avoid;
};

// Called before each measurement with what it is about to measure
// ("h2d pinned async 64 MiB"), for a progress bar.
using ProgressCallback = std::function<void(std::string_view step)>;

// The number of measurements RunMemcpyBench makes (the ceiling included).
int CountMemcpySteps(const MemcpyBenchOptions& options, const host::Device& device);

// Appends one CeilingResult per size and one BandwidthResult per path and
// size to `report`. A path that cannot be measured gets a result with its
// error, one whose numbers would not be a bandwidth a result saying why
// (not_measurable); only a failure of the host itself (no memory) ends the
// run. A size none of whose paths can be measured gets no ceiling.
// `deadline`, when given, is asked before each step (the ceiling of a size,
// each path at it): once it stops the run, every path not yet measured gets
// a result whose error says why, and no more ceilings are measured; a path
// whose step took longer than the step limit is warned of.
Expected<void> RunMemcpyBench(const host::Device& device, const MemcpyBenchOptions& options,
                              BenchReport& report, const ProgressCallback& progress = {},
                              StepDeadline* deadline = nullptr);

// Why no path of `options` can be measured, known from options.avoid alone
// (before any plugin is loaded): every path needs a function that crashes
// or hangs, or every path is async and their completion rests on a
// block_host_until_done known broken. nullopt when some path may be.
std::optional<std::string> WhyNothingMeasurable(const MemcpyBenchOptions& options);

// The host memory kinds used when none are asked for: pinned where the
// plugin can allocate it (and its host_memory_allocate is not in `avoid`),
// else pageable.
std::vector<HostMemory> DefaultHostMemories(const host::Device& device,
                                            const std::vector<AvoidedFunction>& avoid = {});

}  // namespace sectl::bench
