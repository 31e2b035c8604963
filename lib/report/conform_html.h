// The conformance report as one HTML page: what `sectl conform --report
// html` and `--html FILE` write, and `sectl report` for merged shards. It is
// for a person looking at a CI artefact: the verdict first, the root causes,
// then every check in a table that filters by status and area, with each
// non-passing check's message, details, captured output, last plugin calls
// and backtrace beneath it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "report/conform_report.h"

namespace sectl::report {

// What the catalogue says about a check, for the page's "about this check".
// The report library knows no catalogue (lib/conform depends on it, not the
// other way), so the caller looks checks up; an empty field is left out.
struct CheckExplanation {
  std::string establishes;      // what a pass shows
  std::string severity_reason;  // why it has its severity
  std::string common_mistakes;  // how plugins typically get it wrong
  std::string how_to_fix;
};

// The explanation of a check id, or nothing for a check the catalogue does
// not hold (a report from another sectl version).
using ExplainCheck = std::function<std::optional<CheckExplanation>(std::string_view check_id)>;

// The page, self-contained (html_page.h). Everything from the report is
// escaped; `explain` may be empty.
std::string RenderConformHtml(const ConformReport& report, const ExplainCheck& explain = {});

}  // namespace sectl::report
