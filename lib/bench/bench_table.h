// The bench report for people: `sectl bench --report table`, the default.
#pragma once

#include <cstddef>
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
struct BenchTableStyle {
  bool color = false;  // ANSI colours for block titles and markers
  // Columns to fit: long lines wrap with a hanging indent, and the bars
  // take the room the numbers leave, or go under the block when the
  // numbers take more than half the line. 0: no wrapping, bars of a fixed
  // length beside the numbers (a pipe or a file).
  size_t width = 0;
};

std::string RenderBenchTable(const BenchReport& report, const BenchTableStyle& style = {});

}  // namespace sectl::bench
