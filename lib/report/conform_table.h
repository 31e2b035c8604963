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

// `text` with every control character except newline and tab written out as
// "\xNN" (a lone carriage return too), and invalid UTF-8 replaced by U+FFFD.
// Plugins print anything; this keeps their output from driving the
// terminal, and keeps it legal in XML 1.0 (the JUnit report uses it too).
std::string EscapeControlCharacters(std::string_view text);

}  // namespace sectl::report
