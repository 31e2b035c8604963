// The bench report as one HTML page: what `sectl bench memcpy|latency
// --report html` and `--html FILE` write. A memcpy report shows the
// bandwidth plot (bench_plot.h) inline above a table of every size of every
// copy path; a latency report, a table of its operations. Self-contained and
// escaped like the conformance report's page (report/html_page.h).
#pragma once

#include <string>

#include "bench/bench_report.h"

namespace sectl::bench {

std::string RenderBenchHtml(const BenchReport& report);

}  // namespace sectl::bench
