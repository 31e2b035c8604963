// The probe report as JSON: what `--format json` prints, and how an isolated
// probe carries its report back to the parent process.
#pragma once

#include <string>

#include "base/error.h"
#include "probe/probe_report.h"

namespace sectl::probe {

inline constexpr int kProbeSchemaVersion = 1;

// Pretty-printed JSON with "schema_version" first.
std::string ProbeReportToJson(const ProbeReport& report);

// The inverse; an error naming the problem for malformed input.
Expected<ProbeReport> ProbeReportFromJson(const std::string& text);

}  // namespace sectl::probe
