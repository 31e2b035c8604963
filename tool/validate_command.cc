#include "tool/validate_command.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
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
// The most of a finding's message show quotes (base/text.h's CutLongText).
constexpr size_t kMaxFindingMessage = 4096;

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

// What a JSON value is, for an error: "a number", "an array".
std::string_view KindOfValue(const Json& value) {
  if (value.is_string()) return "a string";
  if (value.is_number()) return "a number";
  if (value.is_boolean()) return "a boolean";
  if (value.is_array()) return "an array";
  if (value.is_object()) return "an object";
  return "null";
}

// Why finding `index` of a report cannot be read, or nullopt. The layer
// writes id and occurrences always, the rest as strings when it has them.
std::optional<std::string> FindingProblem(const Json& finding, size_t index) {
  if (!finding.is_object()) return fmt::format("finding {} is not an object", index);
  if (!finding.contains("id")) return fmt::format("finding {} has no \"id\"", index);
  for (const char* key : {"id", "severity", "fault", "function", "message"}) {
    const auto found = finding.find(key);
    if (found != finding.end() && !found->is_string()) {
      return fmt::format("finding {}: \"{}\" is {}, not a string", index, key, KindOfValue(*found));
    }
  }
  const auto occurrences = finding.find("occurrences");
  if (occurrences == finding.end() || !occurrences->is_number_unsigned()) {
    return fmt::format("finding {}: \"occurrences\" is not a whole number of at least 0", index);
  }
  return std::nullopt;
}

Expected<Json> ReadLayerReport(const std::string& path) {
  auto text = ReadRegularFile(path, kMaxReportFileBytes, "validation layer report");
  if (!text) return tl::unexpected(text.error());
  auto document = ParseUntrustedJson(*text);
  if (!document) return tl::unexpected(document.error().WithContext(path));
  const Json& report = *document;
  const auto kind = report.is_object() ? report.find("kind") : report.end();
  if (!report.is_object() || kind == report.end() || *kind != kReportKind) {
    return Fail(
        ErrorCode::kInvalidArgument,
        fmt::format("{}: not a validation layer report (kind is not \"{}\")", path, kReportKind));
  }
  const auto version = report.find("schema_version");
  if (version == report.end() || !version->is_number_integer() ||
      version->get<int64_t>() < kOldestReportSchemaVersion ||
      version->get<int64_t>() > kNewestReportSchemaVersion) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("{}: schema_version {} is not one this sectl reads ({} to {})", path,
                            version == report.end() ? "(none)" : EncodeJson(*version),
                            kOldestReportSchemaVersion, kNewestReportSchemaVersion));
  }
  if (!report.contains("findings") || !report["findings"].is_array()) {
    return Fail(ErrorCode::kInvalidArgument, fmt::format("{}: no findings array", path));
  }
  size_t index = 0;
  for (const Json& finding : report["findings"]) {
    if (auto problem = FindingProblem(finding, index++)) {
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("{}: a malformed finding: {}", path, *problem));
    }
  }
  return report;
}

std::string Text(const Json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

// The findings of every report, one per id and function, or an error when
// their occurrences add up past what a count holds.
Expected<std::vector<MergedFinding>> Merge(const std::vector<Json>& reports) {
  std::map<std::tuple<int, std::string, std::string>, MergedFinding> merged;
  for (const Json& report : reports) {
    for (const Json& finding : report["findings"]) {
      const std::string severity = Text(finding, "severity");
      MergedFinding& entry =
          merged[{SeverityRank(severity), Text(finding, "id"), Text(finding, "function")}];
      if (entry.processes == 0) {
        // A message is the plugin's text: a report quotes at most 4 KiB of it.
        entry = {Text(finding, "id"), severity, Text(finding, "fault"), Text(finding, "function"),
                 CutLongText(Text(finding, "message"), kMaxFindingMessage)};
      }
      const auto occurrences = finding["occurrences"].get<uint64_t>();
      if (occurrences > std::numeric_limits<uint64_t>::max() - entry.occurrences) {
        return Fail(
            ErrorCode::kInvalidArgument,
            fmt::format("the occurrences of {} at {} add up to more than {} over the "
                        "reports given; they cannot all be the layer's",
                        EscapeControlCharacters(entry.id), EscapeControlCharacters(entry.function),
                        std::numeric_limits<uint64_t>::max()));
      }
      entry.occurrences += occurrences;
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
  const auto merged = Merge(reports);
  if (!merged) return ReportUsageError(merged.error().message());
  const std::vector<MergedFinding>& findings = *merged;
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
