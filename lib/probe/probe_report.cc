#include "probe/probe_report.h"

#include <algorithm>

namespace sectl::probe {

bool ProbeReport::HasErrorFindings() const {
  return std::any_of(findings.begin(), findings.end(),
                     [](const Finding& finding) { return finding.severity == "error"; });
}

}  // namespace sectl::probe
