#include "tool/report_command.h"

#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "base/atomic_file.h"
#include "base/regular_file.h"
#include "isolation/interruption.h"
#include "report/conform_json.h"
#include "report/conform_junit.h"
#include "report/conform_table.h"
#include "report/merge_reports.h"
#include "tool/command_support.h"
#include "tool/exit_codes.h"
#include "tool/html_report.h"
#include "tool/report_output.h"

namespace sectl::tool {
namespace {

Expected<report::ConformReport> ReadReport(const std::string& path) {
  auto text = ReadRegularFile(path, kMaxReportFileBytes, "conform report");
  if (!text) return tl::unexpected(text.error());
  auto parsed = report::ConformReportFromJson(*text);
  if (!parsed) return tl::unexpected(parsed.error().WithContext(path));
  return parsed;
}

}  // namespace

CLI::App* AddReportCommand(CLI::App& app, ReportCommandOptions& options) {
  auto* report = app.add_subcommand(
      "report",
      "Re-render saved `sectl conform --report json` reports, merging several (shards, machines) "
      "into one. Exit status 1 if the merged result is not conformant.");
  report->add_option("reports", options.inputs, "JSON reports written by sectl conform")
      ->required()
      ->check(CLI::ExistingFile);
  report->add_option("--report", options.format, "Output format")
      ->check(CLI::IsMember({"table", "json", "junit", "html"}))
      ->capture_default_str();
  report->add_option("-o,--output", options.output, "Write to FILE (atomically)");
  report->add_option("--html", options.html_output,
                     "Also write the report as one self-contained HTML page to FILE");
  report->add_flag("-v,--verbose", options.verbose,
                   "Show every result's message in the table, repeated findings unfolded");
  AddQuietFlag(*report, options.output_flags);
  AddColorFlag(*report, options.output_flags);
  return report;
}

int RunReportCommand(const ReportCommandOptions& options) {
  if (auto html = CheckReportDestination(options.html_output, "--html"); !html) {
    return ReportUsageError(html.error().message());
  }
  std::vector<report::ConformReport> reports;
  for (const auto& path : options.inputs) {
    auto parsed = ReadReport(path);
    if (!parsed) return ReportUsageError(parsed.error().message());
    reports.push_back(std::move(*parsed));
  }
  auto merged = report::MergeReports(std::move(reports));
  if (!merged) return ReportUsageError(merged.error().message());
  // Reading runs no plugin: a signal that came meanwhile stops it here.
  if (const int signal = isolation::InterruptedBy(); signal != 0) return ReportInterruption(signal);

  std::string text;
  if (options.format == "json") {
    text = report::ConformReportToJson(*merged);
  } else if (options.format == "junit") {
    text = report::RenderConformJunit(*merged);
  } else if (options.format == "html") {
    text = RenderConformHtmlWithExplanations(*merged);
  } else {
    const TableLayout layout = ChooseTableLayout(options.output_flags, options.output);
    text = report::RenderConformTable(*merged, {.color = layout.color,
                                                .verbose = options.verbose,
                                                .quiet = options.output_flags.quiet,
                                                .width = layout.width});
  }
  if (auto written = WriteReport(options.output, text); !written) {
    return ReportUsageError(written.error().message());
  }
  if (!options.html_output.empty()) {
    auto html =
        WriteFileAtomically(options.html_output, RenderConformHtmlWithExplanations(*merged));
    if (!html) return ReportUsageError(html.error().message());
  }
  return ExitStatusOfVerdict(report::JudgeReport(*merged));
}

}  // namespace sectl::tool
