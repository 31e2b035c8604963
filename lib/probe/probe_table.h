// The probe report for people: sections of aligned "key  value" lines, in
// the manner of clinfo and deviceQuery.
#pragma once

#include <cstddef>
#include <string>

#include "probe/probe_report.h"

namespace sectl::probe {

struct TableStyle {
  bool color = false;  // ANSI colours for finding severities
  // Columns to wrap long values at, continuing in the value column; 0: no
  // wrapping (a pipe or a file).
  size_t width = 0;
  // One line per kernel the plugin registered (sectl probe -v).
  bool verbose = false;
};

std::string RenderProbeTable(const ProbeReport& report, const TableStyle& style);

}  // namespace sectl::probe
