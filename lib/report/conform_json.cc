#include "report/conform_json.h"

#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <span>
#include <string_view>
#include <utility>

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
          {"severity_reason", result.severity_reason}};
}

OrderedJson RootCausesToJson(const std::vector<RootCause>& causes) {
  OrderedJson list = OrderedJson::array();
  for (const RootCause& cause : causes) {
    list.push_back({{"function", cause.function},
                    {"first_problem", cause.first_problem},
                    {"failed", cause.failed},
                    {"blocked", cause.blocked},
                    {"warned", cause.warned}});
  }
  return list;
}

// ---------------------------------------------------------------------------
// Reading

// The JSON types the document uses, as a reader asks for them.
enum class Type { kString, kNumber, kCount, kObject, kArray };

bool HasType(const Json& value, Type type) {
  switch (type) {
    case Type::kString:
      return value.is_string();
    case Type::kNumber:
      return value.is_number();
    case Type::kCount:
      return value.is_number_unsigned();
    case Type::kObject:
      return value.is_object();
    case Type::kArray:
      return value.is_array();
  }
  return false;
}

std::string_view TypeName(Type type) {
  switch (type) {
    case Type::kString:
      return "a string";
    case Type::kNumber:
      return "a number";
    case Type::kCount:
      return "a non-negative integer";
    case Type::kObject:
      return "an object";
    case Type::kArray:
      return "an array";
  }
  return "a value";
}

// What was found instead: the type, and the value too when it is a number,
// since "found number" does not explain why -1 is not a count.
std::string Describe(const Json& value) {
  if (value.is_number()) return fmt::format("number {}", value.dump());
  return value.type_name();
}

template <typename Enum>
std::string QuotedNames(std::span<const Enum> values, std::string_view (*name)(Enum)) {
  std::string names;
  for (Enum value : values) {
    if (!names.empty()) names += ", ";
    names += Json(std::string(name(value))).dump();
  }
  return names;
}

// Reads the members of one JSON object, checking that each is present and of
// the right type. The first problem is kept, naming the member by its path
// ("results[2].status"); reads after it do nothing. So a caller reads every
// field in a row and asks once, at the end, whether it all went well.
class ObjectReader {
 public:
  // `error` is shared with the readers of nested objects.
  ObjectReader(const Json& object, std::string path, std::optional<std::string>& error)
      : object_(object), path_(std::move(path)), error_(error) {}

  void String(std::string_view key, std::string& out) {
    if (const Json* value = Member(key, Type::kString)) out = value->get<std::string>();
  }

  void Number(std::string_view key, double& out) {
    if (const Json* value = Member(key, Type::kNumber)) out = value->get<double>();
  }

  template <typename Integer>
  void Count(std::string_view key, Integer& out) {
    const Json* value = Member(key, Type::kCount);
    if (value == nullptr) return;
    const auto count = value->get<std::uint64_t>();
    if (count > static_cast<std::uint64_t>(std::numeric_limits<Integer>::max())) {
      Fail(fmt::format("{} is out of range: {}", PathOf(key), count));
      return;
    }
    out = static_cast<Integer>(count);
  }

  void NullableString(std::string_view key, std::optional<std::string>& out) {
    if (error_) return;
    const auto found = object_.find(key);
    if (found != object_.end() && found->is_null()) {
      out.reset();
      return;
    }
    std::string value;
    String(key, value);
    if (!error_) out = std::move(value);
  }

  // Members added in a later schema version: absent in older documents.
  bool Has(std::string_view key) const { return !error_ && object_.contains(key); }

  void StringList(std::string_view key, std::vector<std::string>& out) {
    const Json* array = Member(key, Type::kArray);
    if (array == nullptr) return;
    out.clear();
    for (size_t index = 0; index < array->size(); ++index) {
      const Json& item = (*array)[index];
      if (!item.is_string()) {
        Fail(fmt::format("{}[{}] must be a string, found {}", PathOf(key), index, Describe(item)));
        return;
      }
      out.push_back(item.get<std::string>());
    }
  }

  // Any JSON object, kept as it is (check-specific details).
  void AnyObject(std::string_view key, Json& out) {
    if (const Json* value = Member(key, Type::kObject)) out = *value;
  }

  // One of an enum's names; `what` says what the names are ("a status").
  template <typename Enum>
  void Name(std::string_view key, std::span<const Enum> values, std::string_view (*name)(Enum),
            std::string_view what, Enum& out) {
    std::string text;
    String(key, text);
    if (error_) return;
    for (Enum value : values) {
      if (name(value) == text) {
        out = value;
        return;
      }
    }
    Fail(fmt::format("{}: {} is not {} ({})", PathOf(key), Json(text).dump(), what,
                     QuotedNames(values, name)));
  }

  // A reader for a nested object. After a problem, a reader of nothing.
  ObjectReader Object(std::string_view key) {
    if (const Json* value = Member(key, Type::kObject)) {
      return ObjectReader(*value, PathOf(key), error_);
    }
    return ObjectReader(EmptyObject(), PathOf(key), error_);
  }

  // A reader for a nested object that may be null or absent (a member
  // added after schema_version 1 was fixed): nullopt then.
  std::optional<ObjectReader> OptionalObject(std::string_view key) {
    const auto found = object_.find(key);
    if (error_ || found == object_.end() || found->is_null()) return std::nullopt;
    return Object(key);
  }

  // Readers for an array of objects, one per element.
  std::vector<ObjectReader> ObjectList(std::string_view key) {
    std::vector<ObjectReader> readers;
    const Json* array = Member(key, Type::kArray);
    if (array == nullptr) return readers;
    for (size_t index = 0; index < array->size(); ++index) {
      const Json& item = (*array)[index];
      std::string path = fmt::format("{}[{}]", PathOf(key), index);
      if (!item.is_object()) {
        Fail(fmt::format("{} must be an object, found {}", path, Describe(item)));
        return {};
      }
      readers.emplace_back(item, std::move(path), error_);
    }
    return readers;
  }

  bool failed() const { return error_.has_value(); }

 private:
  static const Json& EmptyObject() {
    static const Json empty = Json::object();
    return empty;
  }

  std::string PathOf(std::string_view key) const {
    return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
  }

  const Json* Member(std::string_view key, Type type) {
    if (error_) return nullptr;
    const auto found = object_.find(key);
    if (found == object_.end()) {
      Fail(fmt::format("missing key {}", PathOf(key)));
      return nullptr;
    }
    if (!HasType(*found, type)) {
      Fail(fmt::format("{} must be {}, found {}", PathOf(key), TypeName(type), Describe(*found)));
      return nullptr;
    }
    return &*found;
  }

  void Fail(std::string message) {
    if (!error_) error_ = std::move(message);
  }

  const Json& object_;
  std::string path_;
  std::optional<std::string>& error_;
};

ToolInfo ReadTool(ObjectReader in) {
  ToolInfo tool;
  in.String("name", tool.name);
  in.String("version", tool.version);
  return tool;
}

PluginInfo ReadPlugin(ObjectReader in) {
  PluginInfo plugin;
  in.String("path", plugin.path);
  in.String("sha256", plugin.sha256);
  in.String("entry", plugin.entry);
  in.String("abi_vintage", plugin.abi_vintage);
  return plugin;
}

HostInfo ReadHost(ObjectReader in) {
  HostInfo host;
  in.String("os", host.os);
  in.String("kernel", host.kernel);
  in.String("machine", host.machine);
  in.String("cpu_model", host.cpu_model);
  in.Count("logical_cpus", host.logical_cpus);
  in.Count("memory_bytes", host.memory_bytes);
  return host;
}

Summary ReadSummary(ObjectReader in) {
  Summary summary;
  for (CheckStatus status : kAllStatuses) {
    // "blocked" came with schema_version 2.
    if (status == CheckStatus::kBlocked && !in.Has(StatusName(status))) continue;
    in.Count(StatusName(status), summary.CountOf(status));
  }
  return summary;
}

RootCause ReadRootCause(ObjectReader in) {
  RootCause cause;
  in.String("function", cause.function);
  in.String("first_problem", cause.first_problem);
  in.StringList("failed", cause.failed);
  in.StringList("blocked", cause.blocked);
  in.StringList("warned", cause.warned);
  return cause;
}

CheckResult ReadResult(ObjectReader in) {
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
  return result;
}

Throughput ReadThroughput(ObjectReader in) {
  Throughput throughput;
  in.Count("bytes", throughput.bytes);
  in.Number("ceiling_gbps", throughput.ceiling_gbps);
  in.NullableString("error", throughput.error);
  for (ObjectReader result : in.ObjectList("results")) {
    ThroughputResult& read = throughput.results.emplace_back();
    result.String("direction", read.direction);
    result.String("host_memory", read.host_memory);
    result.Number("median_gbps", read.median_gbps);
    result.Number("ratio_to_ceiling", read.ratio_to_ceiling);
    result.String("verification", read.verification);
    result.NullableString("error", read.error);
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
                       {"error", NullableText(result.error)}});
  }
  return {{"bytes", throughput->bytes},
          {"ceiling_gbps", throughput->ceiling_gbps},
          {"error", NullableText(throughput->error)},
          {"results", std::move(results)}};
}

// The header comes first: a document of another kind or version is refused
// as such, rather than for the first member it happens to lack.
Expected<void> CheckHeader(ObjectReader& in) {
  std::string kind;
  in.String("kind", kind);
  if (in.failed()) return {};
  if (kind != kKind) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("not a sectl conform report: kind is {}, expected {}",
                            Json(kind).dump(), Json(std::string(kKind)).dump()));
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

ConformReport ReadReport(ObjectReader& in) {
  ConformReport report;
  report.tool = ReadTool(in.Object("tool"));
  report.plugin = ReadPlugin(in.Object("plugin"));
  report.host = ReadHost(in.Object("host"));
  in.StringList("command_line", report.command_line);
  in.String("started_at", report.started_at);
  in.Number("duration_s", report.duration_s);
  in.String("profile", report.profile);
  in.String("tf_version", report.tf_version);
  in.NullableString("load_error", report.load_error);
  report.summary = ReadSummary(in.Object("summary"));
  for (const ObjectReader& result : in.ObjectList("results")) {
    report.results.push_back(ReadResult(result));
  }
  if (in.Has("root_causes")) {
    for (const ObjectReader& cause : in.ObjectList("root_causes")) {
      report.root_causes.push_back(ReadRootCause(cause));
    }
  } else {
    report.root_causes = SummarizeRootCauses(report.results);
  }
  if (auto throughput = in.OptionalObject("throughput")) {
    report.throughput = ReadThroughput(*throughput);
  }
  return report;
}

// nlohmann's messages start with "[json.exception.parse_error.101] ".
std::string WithoutExceptionId(std::string_view what) {
  const size_t end = what.starts_with('[') ? what.find("] ") : std::string_view::npos;
  return std::string(end == std::string_view::npos ? what : what.substr(end + 2));
}

Expected<Json> Parse(const std::string& text) {
  try {
    return Json::parse(text);
  } catch (const Json::exception& error) {
    return Fail(ErrorCode::kInvalidArgument, fmt::format("not a sectl conform report: not JSON: {}",
                                                         WithoutExceptionId(error.what())));
  }
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
  const OrderedJson document = {
      {"schema_version", report.schema_version},
      {"kind", std::string(kKind)},
      {"tool", {{"name", report.tool.name}, {"version", report.tool.version}}},
      {"plugin",
       {{"path", report.plugin.path},
        {"sha256", report.plugin.sha256},
        {"entry", report.plugin.entry},
        {"abi_vintage", report.plugin.abi_vintage}}},
      {"host", HostInfoToJson(report.host)},
      {"command_line", report.command_line},
      {"started_at", report.started_at},
      {"duration_s", report.duration_s},
      {"profile", report.profile},
      {"tf_version", report.tf_version},
      {"load_error", report.load_error ? OrderedJson(*report.load_error) : OrderedJson(nullptr)},
      {"summary", SummaryToJson(report.summary)},
      {"root_causes", RootCausesToJson(report.root_causes)},
      {"results", std::move(results)},
      {"throughput", ThroughputToJson(report.throughput)}};
  // Plugins print anything, so invalid UTF-8 in a log is replaced rather
  // than thrown about.
  return document.dump(2, ' ', false, OrderedJson::error_handler_t::replace) + "\n";
}

Expected<ConformReport> ConformReportFromJson(const std::string& text) {
  Expected<Json> document = Parse(text);
  if (!document) return tl::unexpected(document.error());
  if (!document->is_object()) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("not a sectl conform report: the document is {}, not an object",
                            Describe(*document)));
  }
  std::optional<std::string> error;
  ObjectReader in(*document, "", error);
  if (Expected<void> header = CheckHeader(in); !header) return tl::unexpected(header.error());
  ConformReport report = ReadReport(in);
  if (error) return Fail(ErrorCode::kInvalidArgument, "malformed conform report: " + *error);
  return report;
}

}  // namespace sectl::report
