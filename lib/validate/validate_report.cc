#include "validate/validate_report.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "base/host_info.h"
#include "base/json_text.h"
#include "base/timestamp.h"

namespace sectl::validate {
namespace {

using OrderedJson = nlohmann::ordered_json;

OrderedJson HostToJson(const HostInfo& host) {
  return {{"os", host.os},
          {"kernel", host.kernel},
          {"machine", host.machine},
          {"cpu_model", host.cpu_model},
          {"logical_cpus", host.logical_cpus},
          {"memory_bytes", host.memory_bytes}};
}

OrderedJson FindingToJson(const Finding& finding) {
  const FindingInfo& info = InfoOf(finding.kind);
  OrderedJson arguments = OrderedJson::object();
  for (const CallArgument& argument : finding.arguments) arguments[argument.name] = argument.value;
  return {{"id", info.id},
          {"severity", SeverityName(info.severity)},
          {"fault", FaultName(info.fault)},
          {"function", abi::QualifiedName(finding.function)},
          {"message", finding.message},
          {"arguments", std::move(arguments)},
          {"sequence", finding.sequence},
          {"thread", finding.thread},
          {"os_thread", finding.os_thread},
          {"occurrences", finding.occurrences}};
}

// {"SP_StreamExecutor.deallocate": 2, ...}, and the counts' sum in `total`.
OrderedJson CountsToJson(const std::vector<std::pair<abi::PluginFunction, uint64_t>>& counts,
                         uint64_t* total) {
  OrderedJson object = OrderedJson::object();
  for (const auto& [function, count] : counts) {
    object[std::string(abi::QualifiedName(function))] = count;
    *total += count;
  }
  return object;
}

}  // namespace

std::string RenderValidateReport(const ValidateReportContent& content) {
  uint64_t errors = 0;
  uint64_t warnings = 0;
  uint64_t infos = 0;
  OrderedJson findings = OrderedJson::array();
  for (const Finding& finding : content.findings) {
    switch (InfoOf(finding.kind).severity) {
      case Severity::kError:
        ++errors;
        break;
      case Severity::kWarning:
        ++warnings;
        break;
      case Severity::kInfo:
        ++infos;
        break;
    }
    findings.push_back(FindingToJson(finding));
  }
  uint64_t total_calls = 0;
  OrderedJson calls = CountsToJson(content.calls, &total_calls);
  uint64_t total_withheld = 0;
  OrderedJson withheld = CountsToJson(content.withheld, &total_withheld);
  std::error_code ignored;
  const std::string program = std::filesystem::read_symlink("/proc/self/exe", ignored).string();
  const LayerConfig& config = *content.config;
  const OrderedJson document = {
      {"schema_version", kValidateReportSchemaVersion},
      {"kind", "sectl.validate"},
      {"tool", {{"name", "libsectl_validate.so"}, {"version", SECTL_VERSION}}},
      {"plugin",
       {{"path", config.plugin_path},
        {"sha256", content.plugin_sha256},
        {"platform", content.platform_name}}},
      {"host", HostToJson(DescribeHost())},
      {"process", {{"id", ::getpid()}, {"program", program}}},
      {"configuration", config.source},
      {"trace", config.trace_path.empty()
                    ? OrderedJson(nullptr)
                    : OrderedJson{{"path", config.trace_path},
                                  {"error", content.trace_error.empty()
                                                ? OrderedJson(nullptr)
                                                : OrderedJson(content.trace_error)}}},
      {"started_at", IsoTimestamp(std::chrono::system_clock::time_point(
                         std::chrono::milliseconds(content.started_unix_ms)))},
      {"ended", content.how_ended},
      {"summary",
       {{"errors", errors},
        {"warnings", warnings},
        {"infos", infos},
        {"calls", total_calls},
        {"withheld", total_withheld}}},
      {"calls", std::move(calls)},
      {"withheld", std::move(withheld)},
      {"findings", std::move(findings)}};
  return EncodeJson(document, 2) + "\n";
}

}  // namespace sectl::validate
