// The conformance report for people: a header naming the plugin, the
// results grouped by area with one line each, what went wrong under each
// result that did not pass, and a closing verdict.
#pragma once

#include <string>
#include <string_view>

#include "report/conform_report.h"

namespace sectl::report {

struct ConformTableStyle {
  bool color = false;    // ANSI colours for statuses, headings and the verdict
  bool verbose = false;  // details under every result, passes included
};

std::string RenderConformTable(const ConformReport& report, const ConformTableStyle& style);

}  // namespace sectl::report
