#include "tool/validate_command.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "base/json_text.h"
#include "base/regular_file.h"
#include "base/text.h"
#include "tool/command_support.h"
#include "tool/exit_codes.h"
#include "tool/report_output.h"

namespace sectl::tool {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kReportKind = "sectl.validate";
// Version 2 only added the count of withheld calls; show reads findings,
// which both versions write alike.
constexpr int kOldestReportSchemaVersion = 1;
constexpr int kNewestReportSchemaVersion = 2;

// One finding id at one function, over every report given.
struct MergedFinding {
  std::string id;
  std::string severity;
  std::string fault;
  std::string function;
  std::string first_message;  // from the first report that has it
  uint64_t occurrences = 0;
  size_t processes = 0;  // reports in which it occurred
};

int SeverityRank(std::string_view severity) {
  if (severity == "error") return 0;
  if (severity == "warning") return 1;
  return 2;
}

Expected<Json> ReadLayerReport(const std::string& path) {
  auto text = ReadRegularFile(path, kMaxReportFileBytes, "validation layer report");
  if (!text) return tl::unexpected(text.error());
  auto document = ParseUntrustedJson(*text);
  if (!document) return tl::unexpected(document.error().WithContext(path));
  const Json& report = *document;
  if (!report.is_object() || report.value("kind", "") != kReportKind) {
    return Fail(
        ErrorCode::kInvalidArgument,
        fmt::format("{}: not a validation layer report (kind is not \"{}\")", path, kReportKind));
  }
  const int version = report.value("schema_version", 0);
  if (version < kOldestReportSchemaVersion || version > kNewestReportSchemaVersion) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("{}: schema_version {} is not one this sectl reads ({} to {})", path,
                            version, kOldestReportSchemaVersion, kNewestReportSchemaVersion));
  }
  if (!report.contains("findings") || !report["findings"].is_array()) {
    return Fail(ErrorCode::kInvalidArgument, fmt::format("{}: no findings array", path));
  }
  for (const Json& finding : report["findings"]) {
    if (!finding.is_object() || !finding.contains("id") || !finding["id"].is_string() ||
        !finding.contains("occurrences") || !finding["occurrences"].is_number_unsigned()) {
      return Fail(ErrorCode::kInvalidArgument, fmt::format("{}: a malformed finding", path));
    }
  }
  return report;
}

std::string Text(const Json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

std::vector<MergedFinding> Merge(const std::vector<Json>& reports) {
  std::map<std::tuple<int, std::string, std::string>, MergedFinding> merged;
  for (const Json& report : reports) {
    for (const Json& finding : report["findings"]) {
      const std::string severity = Text(finding, "severity");
      MergedFinding& entry =
          merged[{SeverityRank(severity), Text(finding, "id"), Text(finding, "function")}];
      if (entry.processes == 0) {
        entry = {Text(finding, "id"), severity, Text(finding, "fault"), Text(finding, "function"),
                 Text(finding, "message")};
      }
      entry.occurrences += finding["occurrences"].get<uint64_t>();
      ++entry.processes;
    }
  }
  std::vector<MergedFinding> findings;
  findings.reserve(merged.size());
  for (auto& [key, finding] : merged) findings.push_back(std::move(finding));
  return findings;
}

std::string RenderTable(const std::vector<MergedFinding>& findings, size_t report_count) {
  std::string text =
      fmt::format("{} report{}, {} distinct finding{}\n", report_count,
                  report_count == 1 ? "" : "s", findings.size(), findings.size() == 1 ? "" : "s");
  for (const MergedFinding& finding : findings) {
    text += fmt::format("\n{:<8} {} ({} at fault), {}: {} time{} in {} process{}\n  {}\n",
                        finding.severity, finding.id, finding.fault, finding.function,
                        finding.occurrences, finding.occurrences == 1 ? "" : "s", finding.processes,
                        finding.processes == 1 ? "" : "es", finding.first_message);
  }
  return text;
}

std::string RenderJson(const std::vector<MergedFinding>& findings, size_t report_count) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  list.get_ref<nlohmann::ordered_json::array_t&>().reserve(findings.size());
  for (const MergedFinding& finding : findings) {
    list.push_back({{"id", finding.id},
                    {"severity", finding.severity},
                    {"fault", finding.fault},
                    {"function", finding.function},
                    {"first_message", finding.first_message},
                    {"occurrences", finding.occurrences},
                    {"processes", finding.processes}});
  }
  return EncodeJson(nlohmann::ordered_json{{"reports", report_count}, {"findings", list}}, 2) +
         "\n";
}

}  // namespace

ValidateCommands AddValidateCommand(CLI::App& app, ValidateCommandOptions& options) {
  ValidateCommands commands;
  commands.validate = app.add_subcommand(
      "validate",
      "The validation layer libsectl_validate.so, which TensorFlow loads in place of a plugin "
      "to check every call (docs/validation-layer.md): where it is, and its reports.");
  commands.validate->require_subcommand(1);
  commands.where = commands.validate->add_subcommand(
      "where", "Print the path of libsectl_validate.so, to copy into tensorflow-plugins/");
  commands.show = commands.validate->add_subcommand(
      "show",
      "Merge the layer's reports (sectl-validate-*.json) into one list of findings. Exit status 1 "
      "if any finding is at least as severe as --fail-on.");
  commands.show->add_option("reports", options.reports, "Reports written by the layer")
      ->required()
      ->check(CLI::ExistingFile);
  commands.show->add_option("--format", options.format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  commands.show->add_option("--fail-on", options.fail_on, "The least severe finding that fails")
      ->check(CLI::IsMember({"error", "warning", "info", "never"}))
      ->capture_default_str();
  commands.show->add_option("-o,--output", options.output, "Write to FILE (atomically)");
  return commands;
}

int RunValidateWhere() {
  std::error_code error;
  const auto executable = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return ReportUsageError("cannot locate the sectl executable: " + error.message());
  const auto layer = (executable.parent_path() / SECTL_LAYER_FROM_BINARY).lexically_normal();
  if (!std::filesystem::is_regular_file(layer, error)) {
    return ReportUsageError(fmt::format(
        "libsectl_validate.so is missing (looked for {}); is sectl installed completely?",
        layer.string()));
  }
  std::puts(layer.c_str());
  return kExitSuccess;
}

int RunValidateShow(const ValidateCommandOptions& options) {
  std::vector<Json> reports;
  for (const std::string& path : options.reports) {
    auto report = ReadLayerReport(path);
    if (!report) return ReportUsageError(report.error().message());
    reports.push_back(std::move(*report));
  }
  const std::vector<MergedFinding> findings = Merge(reports);
  const std::string text = options.format == "json"
                               ? RenderJson(findings, reports.size())
                               // A plugin's words, escaped for a terminal.
                               : EscapeControlCharacters(RenderTable(findings, reports.size()));
  if (auto written = WriteReport(options.output, text); !written) {
    return ReportUsageError(written.error().message());
  }
  const int threshold = options.fail_on == "never" ? -1 : SeverityRank(options.fail_on);
  for (const MergedFinding& finding : findings) {
    if (SeverityRank(finding.severity) <= threshold) return kExitPluginProblem;
  }
  return kExitSuccess;
}

}  // namespace sectl::tool
