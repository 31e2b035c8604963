#include "report/conform_json.h"

#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <span>
#include <string_view>
#include <utility>

#include "base/json_reading.h"
#include "base/json_text.h"

namespace sectl::report {
namespace {

using Json = nlohmann::json;
// Objects keep the order their keys were written in, so the document reads
// in the schema's order rather than alphabetically.
using OrderedJson = nlohmann::ordered_json;

constexpr std::string_view kKind = "sectl.conform";

// Every value of the enums whose names the document holds, for reading
// names back and for saying which names are accepted.

// ---------------------------------------------------------------------------
// Writing

OrderedJson SummaryToJson(const Summary& summary) {
  OrderedJson counts = OrderedJson::object();
  for (CheckStatus status : kAllStatuses) {
    counts[std::string(StatusName(status))] = summary.CountOf(status);
  }
  return counts;
}

OrderedJson ResultToJson(const CheckResult& result) {
  return {{"id", result.id},
          {"title", result.title},
          {"area", result.area},
          {"severity", std::string(SeverityName(result.severity))},
          {"status", std::string(StatusName(result.status))},
          {"message", result.message},
          {"duration_s", result.duration_s},
          {"details", OrderedJson(result.details)},
          {"log", result.log},
          {"journal", result.journal},
          {"repetition", result.repetition},
          {"baseline", std::string(BaselineVerdictName(result.baseline))},
          {"baseline_reason", result.baseline_reason},
          {"culprits", result.culprits},
          {"blocked_by_checks", result.blocked_by_checks},
          {"severity_reason", result.severity_reason},
          {"observed_status", result.observed_status
                                  ? OrderedJson(std::string(StatusName(*result.observed_status)))
                                  : OrderedJson(nullptr)}};
}

OrderedJson RootCausesToJson(const std::vector<RootCause>& causes) {
  OrderedJson list = OrderedJson::array();
  for (const RootCause& cause : causes) {
    list.push_back({{"function", cause.function},
                    {"severity", std::string(SeverityName(cause.severity))},
                    {"first_problem", cause.first_problem},
                    {"reach", DescribeReach(cause)},
                    {"failed", cause.failed},
                    {"blocked", cause.blocked},
                    {"warned", cause.warned},
                    {"required_failed", cause.required_failed},
                    {"required_blocked", cause.required_blocked},
                    {"first_problem_check", cause.first_problem_check},
                    {"cannot_tell_from", cause.cannot_tell_from},
                    {"cannot_tell_why", cause.cannot_tell_why}});
  }
  return list;
}

OrderedJson LearnedToJson(const std::vector<LearnedBeforeChecks>& learned) {
  OrderedJson list = OrderedJson::array();
  for (const LearnedBeforeChecks& entry : learned) {
    list.push_back({{"function", entry.function}, {"problem", entry.problem}});
  }
  return list;
}

// ---------------------------------------------------------------------------
// Reading

ToolInfo ReadTool(JsonReader in) {
  ToolInfo tool;
  in.String("name", tool.name);
  in.String("version", tool.version);
  return tool;
}

PluginInfo ReadPlugin(JsonReader in) {
  PluginInfo plugin;
  in.String("path", plugin.path);
  in.String("sha256", plugin.sha256);
  in.String("entry", plugin.entry);
  in.String("abi_vintage", plugin.abi_vintage);
  // "device_count" came after schema_version 3's first reports: optional.
  if (in.Has("device_count")) {
    double count = 0;
    in.Number("device_count", count);
    if (count >= std::numeric_limits<int>::min() && count <= std::numeric_limits<int>::max()) {
      plugin.device_count = static_cast<int>(count);
    }
  }
  return plugin;
}

HostInfo ReadHost(JsonReader in) {
  HostInfo host;
  in.String("os", host.os);
  in.String("kernel", host.kernel);
  in.String("machine", host.machine);
  in.String("cpu_model", host.cpu_model);
  in.Count("logical_cpus", host.logical_cpus);
  in.Count("memory_bytes", host.memory_bytes);
  return host;
}

Summary ReadSummary(JsonReader in) {
  Summary summary;
  for (CheckStatus status : kAllStatuses) {
    // "blocked" came with schema_version 2.
    if (status == CheckStatus::kBlocked && !in.Has(StatusName(status))) continue;
    in.Count(StatusName(status), summary.CountOf(status));
  }
  return summary;
}

CheckResult ReadResult(JsonReader in) {
  CheckResult result;
  in.String("id", result.id);
  in.String("title", result.title);
  in.String("area", result.area);
  in.Name<CheckSeverity>("severity", kAllSeverities, SeverityName, "a severity", result.severity);
  in.Name<CheckStatus>("status", kAllStatuses, StatusName, "a status", result.status);
  in.String("message", result.message);
  in.Number("duration_s", result.duration_s);
  in.AnyObject("details", result.details);
  in.String("log", result.log);
  in.StringList("journal", result.journal);
  in.Count("repetition", result.repetition);
  in.Name<BaselineVerdict>("baseline", kAllVerdicts, BaselineVerdictName, "a baseline verdict",
                           result.baseline);
  if (in.Has("culprits")) in.StringList("culprits", result.culprits);
  if (in.Has("blocked_by_checks")) in.StringList("blocked_by_checks", result.blocked_by_checks);
  if (in.Has("severity_reason")) in.String("severity_reason", result.severity_reason);
  in.String("baseline_reason", result.baseline_reason);
  // "observed_status" came with schema_version 5.
  std::optional<std::string> observed;
  if (in.Has("observed_status")) in.NullableString("observed_status", observed);
  if (observed) {
    CheckStatus status = CheckStatus::kError;
    in.Name<CheckStatus>("observed_status", kAllStatuses, StatusName, "a status", status);
    result.observed_status = status;
  }
  // Results of older schema versions are settled as this sectl settles them,
  // so a recommended failure reads as the warning it is.
  SettleStatus(result);
  return result;
}

Throughput ReadThroughput(JsonReader in) {
  Throughput throughput;
  in.Count("bytes", throughput.bytes);
  in.Number("ceiling_gbps", throughput.ceiling_gbps);
  in.NullableString("error", throughput.error);
  // Both added without a new schema version: absent in older reports.
  if (in.Has("skipped")) in.NullableString("skipped", throughput.skipped);
  for (JsonReader result : in.ObjectList("results")) {
    ThroughputResult& read = throughput.results.emplace_back();
    result.String("direction", read.direction);
    result.String("host_memory", read.host_memory);
    // null where the path was not measurable.
    result.NumberOrNull("median_gbps", read.median_gbps);
    result.NumberOrNull("ratio_to_ceiling", read.ratio_to_ceiling);
    result.String("verification", read.verification);
    result.NullableString("error", read.error);
    if (result.Has("not_measurable")) result.NullableString("not_measurable", read.not_measurable);
  }
  return throughput;
}

OrderedJson NullableText(const std::optional<std::string>& text) {
  return text ? OrderedJson(*text) : OrderedJson(nullptr);
}

OrderedJson ThroughputToJson(const std::optional<Throughput>& throughput) {
  if (!throughput) return nullptr;
  OrderedJson results = OrderedJson::array();
  for (const ThroughputResult& result : throughput->results) {
    results.push_back({{"direction", result.direction},
                       {"host_memory", result.host_memory},
                       {"median_gbps", result.median_gbps},
                       {"ratio_to_ceiling", result.ratio_to_ceiling},
                       {"verification", result.verification},
                       {"error", NullableText(result.error)},
                       {"not_measurable", NullableText(result.not_measurable)}});
  }
  return {{"bytes", throughput->bytes},
          {"ceiling_gbps", throughput->ceiling_gbps},
          {"error", NullableText(throughput->error)},
          {"skipped", NullableText(throughput->skipped)},
          {"results", std::move(results)}};
}

OrderedJson SelectionToJson(const std::optional<RunSelection>& selection) {
  if (!selection) return nullptr;
  return {{"filter", selection->filter},
          {"shard", {{"index", selection->shard_index}, {"count", selection->shard_count}}},
          {"repeat", selection->repeat},
          {"shuffle", selection->seed.has_value()},
          {"seed", selection->seed ? OrderedJson(*selection->seed) : OrderedJson(nullptr)}};
}

RunSelection ReadSelection(JsonReader in) {
  RunSelection selection;
  in.String("filter", selection.filter);
  JsonReader shard = in.Object("shard");
  shard.Count("index", selection.shard_index);
  shard.Count("count", selection.shard_count);
  in.Count("repeat", selection.repeat);
  bool shuffle = false;
  in.Bool("shuffle", shuffle);
  if (shuffle) {
    uint64_t seed = 0;
    in.Count("seed", seed);
    selection.seed = seed;
  }
  return selection;
}

// The header comes first: a document of another kind or version is refused
// as such, rather than for the first member it happens to lack.
Expected<void> CheckHeader(JsonReader& in) {
  std::string kind;
  in.String("kind", kind);
  if (in.failed()) return {};
  if (kind != kKind) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("not a sectl conform report: kind is {}, expected {}", QuoteJson(kind),
                            QuoteJson(kKind)));
  }
  int version = 0;
  in.Count("schema_version", version);
  if (in.failed()) return {};
  if (version < kOldestReadableConformSchemaVersion || version > kConformSchemaVersion) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("conform report has schema_version {}; this sectl reads "
                            "schema_version {} to {}",
                            version, kOldestReadableConformSchemaVersion, kConformSchemaVersion));
  }
  return {};
}

ConformReport ReadReport(JsonReader& in) {
  ConformReport report;
  report.tool = ReadTool(in.Object("tool"));
  report.plugin = ReadPlugin(in.Object("plugin"));
  report.host = ReadHost(in.Object("host"));
  in.StringList("command_line", report.command_line);
  // "confinement" came with schema_version 3.
  if (in.Has("confinement")) in.StringList("confinement", report.confinement);
  in.String("started_at", report.started_at);
  in.Number("duration_s", report.duration_s);
  in.String("profile", report.profile);
  in.String("tf_version", report.tf_version);
  // "device" and "subject" came with schema_version 6: before, the device
  // was only in the command line, and a TVM report's subject was implied.
  if (in.Has("device")) in.String("device", report.device);
  if (in.Has("subject")) {
    in.String("subject", report.subject);
  } else {
    report.subject = ProfileSubject(report.profile, report.tf_version);
  }
  in.NullableString("load_error", report.load_error);
  // "interrupted" came with schema_version 3.
  if (in.Has("interrupted")) in.NullableString("interrupted", report.interrupted);
  report.summary = ReadSummary(in.Object("summary"));
  for (const JsonReader& result : in.ObjectList("results")) {
    report.results.push_back(ReadResult(result));
  }
  // The summary, too, counts the results as they were settled.
  report.summary = Summarize(report.results);
  // The root causes are derived from the results again rather than trusted
  // (older versions summarised them by other rules, or not at all).
  report.root_causes = SummarizeRootCauses(report.results);
  if (auto throughput = in.OptionalObject("throughput")) {
    report.throughput = ReadThroughput(*throughput);
  }
  // "selection" and "missing_shards" came with schema_version 4; "verdict"
  // too, but it is judged again from what was read rather than trusted.
  if (auto selection = in.OptionalObject("selection")) {
    report.selection = ReadSelection(*selection);
  }
  if (in.Has("missing_shards")) in.StringList("missing_shards", report.missing_shards);
  // "learned_before_checks" is optional: older reports have none.
  if (in.Has("learned_before_checks")) {
    for (JsonReader entry : in.ObjectList("learned_before_checks")) {
      LearnedBeforeChecks& learned = report.learned_before_checks.emplace_back();
      entry.String("function", learned.function);
      entry.String("problem", learned.problem);
    }
  }
  return report;
}

Expected<Json> Parse(const std::string& text) {
  Expected<Json> document = ParseUntrustedJson(text);
  if (!document) {
    return Fail(ErrorCode::kInvalidArgument, fmt::format("not a sectl conform report: not JSON: {}",
                                                         document.error().message()));
  }
  return document;
}

}  // namespace

OrderedJson HostInfoToJson(const HostInfo& host) {
  return {{"os", host.os},
          {"kernel", host.kernel},
          {"machine", host.machine},
          {"cpu_model", host.cpu_model},
          {"logical_cpus", host.logical_cpus},
          {"memory_bytes", host.memory_bytes}};
}

std::string ConformReportToJson(const ConformReport& report) {
  OrderedJson results = OrderedJson::array();
  for (const CheckResult& result : report.results) results.push_back(ResultToJson(result));
  OrderedJson plugin = {{"path", report.plugin.path},
                        {"sha256", report.plugin.sha256},
                        {"entry", report.plugin.entry},
                        {"abi_vintage", report.plugin.abi_vintage}};
  if (report.plugin.device_count) plugin["device_count"] = *report.plugin.device_count;
  const OrderedJson document = {
      // Whatever version it was read from, the document written follows this one.
      {"schema_version", kConformSchemaVersion},
      {"kind", std::string(kKind)},
      {"verdict", VerdictName(JudgeReport(report))},
      {"tool", {{"name", report.tool.name}, {"version", report.tool.version}}},
      {"plugin", plugin},
      {"host", HostInfoToJson(report.host)},
      {"command_line", report.command_line},
      {"confinement", report.confinement},
      {"started_at", report.started_at},
      {"duration_s", report.duration_s},
      {"profile", report.profile},
      {"tf_version", report.tf_version},
      {"device", report.device},
      {"subject", report.subject},
      {"load_error", report.load_error ? OrderedJson(*report.load_error) : OrderedJson(nullptr)},
      {"interrupted", NullableText(report.interrupted)},
      {"summary", SummaryToJson(report.summary)},
      {"root_causes", RootCausesToJson(report.root_causes)},
      {"results", std::move(results)},
      {"throughput", ThroughputToJson(report.throughput)},
      {"selection", SelectionToJson(report.selection)},
      {"missing_shards", report.missing_shards},
      {"learned_before_checks", LearnedToJson(report.learned_before_checks)}};
  // Plugins print anything, so invalid UTF-8 in a log is replaced rather
  // than thrown about.
  return EncodeJson(document, 2) + "\n";
}

Expected<ConformReport> ConformReportFromJson(const std::string& text) {
  Expected<Json> document = Parse(text);
  if (!document) return tl::unexpected(document.error());
  if (!document->is_object()) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("not a sectl conform report: the document is {}, not an object",
                            DescribeJsonValue(*document)));
  }
  std::optional<std::string> error;
  JsonReader in(*document, "", error);
  if (Expected<void> header = CheckHeader(in); !header) return tl::unexpected(header.error());
  ConformReport report = ReadReport(in);
  if (error) return Fail(ErrorCode::kInvalidArgument, "malformed conform report: " + *error);
  return report;
}

}  // namespace sectl::report
