// The probe report for people: sections of aligned "key  value" lines, in
// the manner of clinfo and deviceQuery.
#pragma once

#include <string>

#include "probe/probe_report.h"

namespace sectl::probe {

struct TableStyle {
  bool color = false;  // ANSI colours for finding severities
};

std::string RenderProbeTable(const ProbeReport& report, const TableStyle& style);

}  // namespace sectl::probe
