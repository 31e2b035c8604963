// `sectl report FILE.json...`: re-render saved conformance reports, merging
// the reports of several shards or machines into one.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "tool/output_flags.h"

namespace sectl::tool {

struct ReportCommandOptions {
  std::vector<std::string> inputs;
  std::string format = "table";
  std::string output;
  std::string html_output;  // --html
  bool verbose = false;
  OutputFlags output_flags;  // --color, --quiet
};

CLI::App* AddReportCommand(CLI::App& app, ReportCommandOptions& options);

int RunReportCommand(const ReportCommandOptions& options);

}  // namespace sectl::tool
