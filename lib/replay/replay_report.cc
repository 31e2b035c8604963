#include "replay/replay_report.h"

#include <fmt/format.h>

#include <array>
#include <nlohmann/json.hpp>

#include "base/json_reading.h"
#include "base/json_text.h"
#include "base/text.h"

namespace sectl::replay {
namespace {

using OrderedJson = nlohmann::ordered_json;

constexpr std::array kOutcomes = {ReplayOutcome::kClean, ReplayOutcome::kDiverged,
                                  ReplayOutcome::kCrashed, ReplayOutcome::kHung};

OrderedJson DivergenceToJson(const Divergence& divergence) {
  return {{"record", divergence.record_index}, {"sequence", divergence.sequence},
          {"thread", divergence.thread},       {"function", divergence.function},
          {"objects", divergence.objects},     {"what", divergence.what}};
}

Divergence ReadDivergence(JsonReader in) {
  Divergence divergence;
  in.Count("record", divergence.record_index);
  in.Count("sequence", divergence.sequence);
  in.Count("thread", divergence.thread);
  in.String("function", divergence.function);
  in.String("objects", divergence.objects);
  in.String("what", divergence.what);
  return divergence;
}

// "12 ab34cd56..." shortened for the provenance line.
std::string ShortDigest(const std::string& sha256) {
  if (sha256.empty()) return "sha256 unknown";
  return fmt::format("sha256 {}", sha256.substr(0, 12));
}

std::string DescribeDivergence(const Divergence& divergence) {
  return fmt::format("record {} (sequence {}, thread {}) {}{}: {}", divergence.record_index,
                     divergence.sequence, divergence.thread, divergence.function,
                     divergence.objects.empty() ? "" : fmt::format(" [{}]", divergence.objects),
                     divergence.what);
}

}  // namespace

std::string_view OutcomeName(ReplayOutcome outcome) {
  switch (outcome) {
    case ReplayOutcome::kClean:
      return "clean";
    case ReplayOutcome::kDiverged:
      return "diverged";
    case ReplayOutcome::kCrashed:
      return "crashed";
    case ReplayOutcome::kHung:
      return "hung";
  }
  return "clean";
}

std::string ReplayReportToJson(const ReplayReport& report) {
  OrderedJson divergences = OrderedJson::array();
  for (const Divergence& divergence : report.divergences) {
    divergences.push_back(DivergenceToJson(divergence));
  }
  const OrderedJson document = {{"trace",
                                 {{"path", report.trace_path},
                                  {"plugin_path", report.traced_plugin_path},
                                  {"plugin_sha256", report.traced_plugin_sha256},
                                  {"platform_name", report.traced_platform_name},
                                  {"records", report.records},
                                  {"truncated", report.trace_truncated}}},
                                {"plugin",
                                 {{"path", report.plugin_path},
                                  {"sha256", report.plugin_sha256},
                                  {"platform_name", report.platform_name}}},
                                {"outcome", OutcomeName(report.outcome)},
                                {"calls_replayed", report.calls_replayed},
                                {"records_skipped", report.records_skipped},
                                {"divergence_count", report.divergence_count},
                                {"divergences", divergences},
                                {"stopped_at_first", report.stopped_at_first},
                                {"failure", report.failure},
                                {"failure_record", report.failure_record},
                                {"notes", report.notes},
                                {"note_count", report.note_count},
                                {"duration_s", report.duration_s}};
  return EncodeJson(document, 2) + "\n";
}

Expected<ReplayReport> ReplayReportFromJson(const std::string& text) {
  const Expected<nlohmann::json> document = ParseUntrustedJson(text);
  if (!document) {
    return Fail(ErrorCode::kInvalidArgument,
                "malformed replay report: " + document.error().message());
  }
  std::optional<std::string> error;
  JsonReader in(*document, "", error);
  ReplayReport report;
  JsonReader trace = in.Object("trace");
  trace.String("path", report.trace_path);
  trace.String("plugin_path", report.traced_plugin_path);
  trace.String("plugin_sha256", report.traced_plugin_sha256);
  trace.String("platform_name", report.traced_platform_name);
  trace.Count("records", report.records);
  trace.Bool("truncated", report.trace_truncated);
  JsonReader plugin = in.Object("plugin");
  plugin.String("path", report.plugin_path);
  plugin.String("sha256", report.plugin_sha256);
  plugin.String("platform_name", report.platform_name);
  in.Name<ReplayOutcome>("outcome", kOutcomes, OutcomeName, "an outcome", report.outcome);
  in.Count("calls_replayed", report.calls_replayed);
  in.Count("records_skipped", report.records_skipped);
  in.Count("divergence_count", report.divergence_count);
  for (const JsonReader& divergence : in.ObjectList("divergences")) {
    report.divergences.push_back(ReadDivergence(divergence));
  }
  in.Bool("stopped_at_first", report.stopped_at_first);
  in.String("failure", report.failure);
  double failure_record = -1;
  in.Number("failure_record", failure_record);
  report.failure_record = static_cast<int64_t>(failure_record);
  in.StringList("notes", report.notes);
  in.Count("note_count", report.note_count);
  in.Number("duration_s", report.duration_s);
  if (error) return Fail(ErrorCode::kInvalidArgument, "malformed replay report: " + *error);
  return report;
}

std::string RenderReplayText(const ReplayReport& report) {
  std::string text = fmt::format(
      "trace {}: {} records{}, recorded with {} ({}{})\n", report.trace_path, report.records,
      report.trace_truncated ? " (truncated: the traced process died while writing)" : "",
      report.traced_plugin_path.empty() ? "an unnamed plugin" : report.traced_plugin_path,
      ShortDigest(report.traced_plugin_sha256),
      report.traced_platform_name.empty() ? "" : ", platform " + report.traced_platform_name);
  const bool same_build =
      !report.plugin_sha256.empty() && report.plugin_sha256 == report.traced_plugin_sha256;
  text += fmt::format("replaying on {} ({}{}){}\n", report.plugin_path,
                      ShortDigest(report.plugin_sha256),
                      report.platform_name.empty() ? "" : ", platform " + report.platform_name,
                      same_build ? ": the build that was traced" : ": a different build");
  for (const std::string& note : report.notes) text += fmt::format("note: {}\n", note);
  if (report.note_count > report.notes.size()) {
    text += fmt::format("note: ... and {} more notes\n", report.note_count - report.notes.size());
  }
  if (!report.divergences.empty()) {
    text += fmt::format("first divergence: {}\n", DescribeDivergence(report.divergences.front()));
    for (size_t i = 1; i < report.divergences.size(); ++i) {
      text += fmt::format("  also: {}\n", DescribeDivergence(report.divergences[i]));
    }
    if (report.divergence_count > report.divergences.size()) {
      text +=
          fmt::format("  ... and {} more\n", report.divergence_count - report.divergences.size());
    }
  }
  switch (report.outcome) {
    case ReplayOutcome::kClean:
      text += fmt::format("replayed {} calls: clean", report.calls_replayed);
      break;
    case ReplayOutcome::kDiverged:
      text += fmt::format("replayed {} calls: {} divergence{}{}", report.calls_replayed,
                          report.divergence_count, report.divergence_count == 1 ? "" : "s",
                          report.stopped_at_first ? " (stopped at the first)" : "");
      break;
    case ReplayOutcome::kCrashed:
    case ReplayOutcome::kHung:
      text += fmt::format("replay {}: {}", OutcomeName(report.outcome), report.failure);
      break;
  }
  if (report.records_skipped > 0) {
    text += fmt::format(" ({} record{} skipped)", report.records_skipped,
                        report.records_skipped == 1 ? "" : "s");
  }
  // The trace's header and the plugin's messages are anyone's bytes: they
  // must not drive the terminal the report is read on.
  return EscapeControlCharacters(text + "\n");
}

}  // namespace sectl::replay
