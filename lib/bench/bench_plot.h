// `sectl bench memcpy --plot FILE.svg`: bandwidth against copy size, as a
// picture any browser shows.
#pragma once

#include <string>

#include "bench/bench_report.h"

namespace sectl::bench {

// A self-contained SVG document (no scripts, fonts or other files): copy
// size on a log2 x axis ("4 KiB" ... "256 MiB"), GB/s on a linear y axis from
// 0; per copy path (direction, host memory, mode) a line through the medians
// with a marker per size and a shaded p5–p95 band; the host memcpy ceiling
// as a dashed line; a legend; the plugin, platform and device in the title.
// Markers of flagged results (unstable, warnings) are hollow; a copy that
// could not be verified has a square marker; one that failed verification a
// red cross over its marker and a red caption under the title ("verification
// failed: the bytes read back differ"). Every marker's tooltip gives its
// numbers and its verification.
//
// A report without bandwidth results (a latency report) gives a document
// that says so.
std::string RenderBandwidthSvg(const BenchReport& report);

}  // namespace sectl::bench
