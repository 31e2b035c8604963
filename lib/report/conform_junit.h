// The conformance report as JUnit XML, for CI systems: one <testsuite> per
// area, one <testcase> per result. Known failures that a baseline excuses
// are <skipped>, so a CI job does not go red for them.
#pragma once

#include <string>

#include "report/conform_report.h"

namespace sectl::report {

// The XML document, with its declaration. Text from plugins has the control
// characters XML 1.0 forbids escaped, so any parser accepts the document.
std::string RenderConformJunit(const ConformReport& report);

}  // namespace sectl::report
