// The conformance report as JSON: what `sectl conform --format json` writes,
// and what `sectl report` reads back to merge or re-render. The document's
// shape is documented, and versioned, in docs/conform-report.schema.json.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "base/error.h"
#include "report/conform_report.h"

namespace sectl::report {

// Pretty-printed JSON (two-space indent, trailing newline), "schema_version"
// and "kind" first, then the report's fields in the schema's order.
std::string ConformReportToJson(const ConformReport& report);

// The inverse. Never throws: malformed input is an error whose one-line
// message names the problem and where it is ("results[2].status: ...").
Expected<ConformReport> ConformReportFromJson(const std::string& text);

// The "host" object of the report, which sectl's other reports (bench) share.
nlohmann::ordered_json HostInfoToJson(const HostInfo& host);

}  // namespace sectl::report
