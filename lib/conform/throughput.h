// The throughput section that ends a conformance report: copy bandwidth in
// each direction at one mid size, beside the host's memcpy, measured by
// `sectl bench`'s engine with a short budget. Informational only.
//
// It relies on what the checks found: functions they found broken are
// routed around (no gate without a working host_callback, no plugin timer
// without working timers, pageable memory without host_memory_allocate),
// and a path whose completion rests on a broken function, or that needs one
// that crashes or hangs, is "not measurable" rather than a number. When no
// path can be measured, the section is skipped, saying why, at once.
#pragma once

#include <chrono>
#include <vector>

#include "bench/plugin_health.h"
#include "conform/check_context.h"
#include "isolation/confinement.h"
#include "report/conform_report.h"

namespace sectl::conform {

// The size measured: large enough to be about bandwidth rather than call
// overhead, small enough to take a fraction of a second.
inline constexpr uint64_t kThroughputBytes = uint64_t{16} << 20;

// The plugin functions the checks found broken: every culprit of a result
// that failed, crashed, timed out or was blocked, with the first check that
// showed it ("stream.block_host_until_done failed"); crashes_or_hangs when
// any check crashed or timed out on it.
std::vector<bench::AvoidedFunction> KnownBrokenFunctions(
    const std::vector<report::CheckResult>& results);

// Never fails: what cannot be measured is described in the result. `broken`
// (KnownBrokenFunctions) are not relied on.
report::Throughput MeasureThroughput(const CheckSettings& settings, bool isolate,
                                     std::chrono::milliseconds timeout,
                                     const isolation::Confinement& confinement,
                                     const std::vector<bench::AvoidedFunction>& broken = {});

}  // namespace sectl::conform
