// The throughput section that ends a conformance report: copy bandwidth in
// each direction at one mid size, beside the host's memcpy, measured by
// `sectl bench`'s engine with a short budget. Informational only.
#pragma once

#include <chrono>

#include "conform/check_context.h"
#include "isolation/confinement.h"
#include "report/conform_report.h"

namespace sectl::conform {

// The size measured: large enough to be about bandwidth rather than call
// overhead, small enough to take a fraction of a second.
inline constexpr uint64_t kThroughputBytes = uint64_t{16} << 20;

// Never fails: what cannot be measured is described in the result.
report::Throughput MeasureThroughput(const CheckSettings& settings, bool isolate,
                                     std::chrono::milliseconds timeout,
                                     const isolation::Confinement& confinement);

}  // namespace sectl::conform
