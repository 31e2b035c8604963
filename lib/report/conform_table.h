// The conformance report for people: a header naming the plugin, the
// results grouped by area with one line each, what went wrong under each
// result that did not pass, and a closing verdict.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "report/conform_report.h"

namespace sectl::report {

struct ConformTableStyle {
  bool color = false;    // ANSI colours for statuses, headings and the verdict
  bool verbose = false;  // details under every result, passes included, nothing folded
  // Only the results that need attention (fail, crash, timeout, error,
  // warn) with their details, and the verdict line.
  bool quiet = false;
  // Columns to wrap lines at, with a hanging indent that keeps each part in
  // its column; 0: no wrapping (a pipe or a file).
  size_t width = 0;
};

std::string RenderConformTable(const ConformReport& report, const ConformTableStyle& style);

}  // namespace sectl::report
