// The conformance report's HTML page with the catalogue's explanation of
// each check beside it: lib/report renders, but only the tool knows the
// catalogue (lib/conform), so the two meet here, for `sectl conform` and
// `sectl report` alike.
#pragma once

#include <string>

#include "report/conform_report.h"

namespace sectl::tool {

// report::RenderConformHtml with each check's "about this check" taken
// from its declaration (conform::CheckTraits).
std::string RenderConformHtmlWithExplanations(const report::ConformReport& report);

}  // namespace sectl::tool
