// The bench report for people: `sectl bench --report table`, the default.
#pragma once

#include <string>

#include "bench/bench_report.h"

namespace sectl::bench {

// A memcpy report: a header with the plugin, device and host, then one block
// per copy path (direction, host memory, mode) with a row per size: median
// and p5–p95 in GB/s, the host memcpy ceiling, the ratio to it, markers for
// results not to be trusted, and a bar. The bars of every block share one
// scale (the largest median in the report), so curves compare at a glance.
// A legend explains the markers that appear.
//
// A latency report: one row per operation with median and p95 in ns.
std::string RenderBenchTable(const BenchReport& report);

}  // namespace sectl::bench
