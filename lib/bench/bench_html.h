// The bench report as one HTML page: what `sectl bench memcpy|latency
// --report html` and `--html FILE` write. A memcpy report shows the
// bandwidth plot (bench_plot.h) inline above a table of every size of every
// copy path; a latency report, a table of its operations. With a
// comparison (--compare), the gate's verdict heads the page and its rows
// follow, regressions first. Self-contained and escaped like the
// conformance report's page (report/html_page.h).
#pragma once

#include <string>

#include "bench/bench_compare.h"
#include "bench/bench_report.h"

namespace sectl::bench {

std::string RenderBenchHtml(const BenchReport& report, const Comparison* comparison = nullptr);

}  // namespace sectl::bench
