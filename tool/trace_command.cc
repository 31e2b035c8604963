#include "tool/trace_command.h"

#include <charconv>
#include <cstdint>
#include <string_view>

#include "base/json_text.h"
#include "tool/command_support.h"
#include "tool/exit_codes.h"
#include "tool/report_output.h"
#include "trace/trace_reader.h"
#include "trace/trace_summary.h"

namespace sectl::tool {
namespace {

// --timeline's value as a number of records: "all" or a whole number.
bool ParseTimelineLength(std::string_view text, size_t& length) {
  if (text == "all") {
    length = trace::kWholeTimeline;
    return true;
  }
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return false;
  length = static_cast<size_t>(value);
  return true;
}

CLI::Validator TimelineLength() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        size_t length = 0;
        if (ParseTimelineLength(text, length)) return {};
        return R"(--timeline takes a number of records or "all", not ")" + text + '"';
      },
      "N|all");
}

}  // namespace

CLI::App* AddTraceCommand(CLI::App& app, TraceCommandOptions& options) {
  auto* trace = app.add_subcommand(
      "trace", "Inspect traces written by the validation layer (libsectl_validate.so).");
  trace->require_subcommand(1);
  auto* show = trace->add_subcommand(
      "show",
      "Summarise a trace: where it came from, calls per function with errors and durations, "
      "bytes moved, streams, objects, callbacks, threads, and its first records.");
  show->add_option("trace", options.path, "Trace file")->required();
  show->add_option("--format", options.format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  show->add_option("--timeline", options.timeline,
                   "How many of the first records to list, one a line: N, 0 for none, or all")
      ->check(TimelineLength())
      ->capture_default_str();
  return trace;
}

int RunTraceCommand(const TraceCommandOptions& options) {
  size_t timeline_length = 0;
  if (!ParseTimelineLength(options.timeline, timeline_length)) {
    return ReportUsageError("--timeline takes a number of records or \"all\"");
  }
  const auto trace = trace::ReadTraceFile(options.path);
  if (!trace) return ReportUsageError(trace.error().message());
  const trace::TraceSummary summary = trace::SummarizeTrace(*trace, timeline_length);
  const std::string text = options.format == "json"
                               ? EncodeJson(trace::TraceSummaryToJson(summary), 2) + "\n"
                               : trace::RenderTraceSummaryText(summary);
  if (auto written = WriteReport({}, text); !written) {
    return ReportUsageError(written.error().message());
  }
  return kExitSuccess;
}

}  // namespace sectl::tool
