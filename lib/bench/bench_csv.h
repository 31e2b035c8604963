// The bench report as CSV (RFC 4180: CRLF line ends, fields with a comma,
// quote or line break quoted), for spreadsheets and plotting scripts.
#pragma once

#include <string>

#include "bench/bench_report.h"

namespace sectl::bench {

// A header row, then for a memcpy report one row per result (its keys as in
// the JSON report; plugin_timer as its median alone; warnings joined with
// "; "), for a latency report one row per operation. A number that is not
// finite, a missing plugin timer and an absent error are empty fields, and
// so are the measurements of a result that could not be measured, which
// would otherwise read as zeros.
std::string RenderBenchCsv(const BenchReport& report);

}  // namespace sectl::bench
