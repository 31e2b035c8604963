// The bench report as JSON: what `sectl bench --report json` writes, what a
// raw baseline program writes through the same function, and what
// `--compare OLD.json` reads back. The document is versioned and documented
// in docs/bench-report.schema.json.
//
// A number that is not finite (a division by a zero time) is written as
// null, as JSON has no NaN, and read back as NaN, so such a report still
// round-trips and compares (as "not measured").
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "base/error.h"
#include "bench/bench_report.h"

namespace sectl::bench {

// "schema_version" and "kind" first, then the report's fields in the
// schema's order. "kind" is "sectl.bench.<report.kind>".
nlohmann::ordered_json BenchReportToJson(const BenchReport& report);

// BenchReportToJson, pretty-printed (two-space indent, trailing newline),
// with invalid UTF-8 from the plugin replaced rather than thrown about.
std::string BenchReportToJsonText(const BenchReport& report);

// The inverse of BenchReportToJson. Strict: a missing or mistyped member is
// an error naming its path ("results[3].median_gbps: expected a number").
// Never throws.
Expected<BenchReport> BenchReportFromJson(const nlohmann::json& document);

// BenchReportFromJson of a text, which may be anything (it is what a fuzz
// target feeds). Never throws; text that is not JSON is an error giving
// nlohmann's line and column.
Expected<BenchReport> ParseBenchReport(std::string_view text);

// ParseBenchReport of a file; every error names the file.
Expected<BenchReport> ReadBenchReport(const std::string& path);

}  // namespace sectl::bench
