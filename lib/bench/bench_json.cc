#include "bench/bench_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <system_error>
#include <utility>
#include <vector>

#include "base/text.h"
#include "report/conform_json.h"

namespace sectl::bench {
namespace {

using Json = nlohmann::json;
// Objects keep the order their keys were written in, so the document reads
// in the schema's order rather than alphabetically.
using OrderedJson = nlohmann::ordered_json;

constexpr std::string_view kKindPrefix = "sectl.bench.";
constexpr std::array<std::string_view, 2> kKnownKinds = {"memcpy", "latency"};
constexpr std::string_view kBandwidthUnit = "GB/s (1e9 bytes/s)";
constexpr std::string_view kLatencyUnit = "ns";
// Far more than any sweep writes; a bigger file is not a bench report, and
// reading it whole would only waste memory.
constexpr std::uintmax_t kLargestReportBytes = 64 << 20;

// ---------------------------------------------------------------------------
// Writing

// The members of a Distribution, flat in `object`: "median_gbps", "p5_gbps",
// ..., "spread", "samples". `unit` is the suffix of the measured values.
void AppendDistribution(OrderedJson& object, const Distribution& distribution,
                        std::string_view unit) {
  object[fmt::format("median_{}", unit)] = distribution.median;
  object[fmt::format("p5_{}", unit)] = distribution.p5;
  object[fmt::format("p95_{}", unit)] = distribution.p95;
  object[fmt::format("min_{}", unit)] = distribution.min;
  object[fmt::format("max_{}", unit)] = distribution.max;
  object["spread"] = distribution.spread;
  object["samples"] = distribution.samples;
}

OrderedJson NullableString(const std::optional<std::string>& text) {
  return text ? OrderedJson(*text) : OrderedJson(nullptr);
}

OrderedJson BandwidthToJson(const BandwidthResult& result) {
  OrderedJson object = {{"direction", DirectionName(result.direction)},
                        {"host_memory", HostMemoryName(result.host_memory)},
                        {"mode", CopyModeName(result.mode)},
                        {"bytes", result.bytes}};
  AppendDistribution(object, result.gbps, "gbps");
  OrderedJson plugin_timer(nullptr);
  if (result.plugin_timer_gbps) {
    plugin_timer = OrderedJson::object();
    AppendDistribution(plugin_timer, *result.plugin_timer_gbps, "gbps");
  }
  object["plugin_timer"] = std::move(plugin_timer);
  object["ceiling_gbps"] = result.ceiling_gbps;
  object["ratio_to_ceiling"] = result.ratio_to_ceiling;
  object["warmup_copies"] = result.warmup_copies;
  object["copies_per_sample"] = result.copies_per_sample;
  object["stable"] = result.stable;
  object["enqueue_excluded"] = result.enqueue_excluded;
  object["verification"] = result.verification;
  object["warnings"] = result.warnings;
  object["error"] = NullableString(result.error);
  return object;
}

OrderedJson CeilingToJson(const CeilingResult& ceiling) {
  OrderedJson object = {{"bytes", ceiling.bytes}};
  AppendDistribution(object, ceiling.gbps, "gbps");
  return object;
}

OrderedJson LatencyToJson(const LatencyResult& latency) {
  OrderedJson object = {{"operation", latency.operation}, {"description", latency.description}};
  AppendDistribution(object, latency.ns, "ns");
  object["operations_per_sample"] = latency.operations_per_sample;
  object["error"] = NullableString(latency.error);
  return object;
}

template <typename Result>
OrderedJson ArrayOf(const std::vector<Result>& results, OrderedJson (*to_json)(const Result&)) {
  OrderedJson array = OrderedJson::array();
  for (const Result& result : results) array.push_back(to_json(result));
  return array;
}

// ---------------------------------------------------------------------------
// Reading

// What was found where something else was expected: the type, and the value
// too when it is a number, since "found number" does not say why -1 is not a
// count.
std::string DescribeFound(const Json& value) {
  if (value.is_number()) return fmt::format("number {}", value.dump());
  return value.type_name();
}

// Reads the members of one JSON object, each checked for presence and type.
// The first problem is kept, naming the member by its path
// ("results[3].median_gbps"); reads after it do nothing, so a caller reads
// every member in a row and asks once, at the end, whether all went well.
// Members the reader does not ask for are ignored.
class MemberReader {
 public:
  // `error` is shared with the readers of nested objects.
  MemberReader(const Json& object, std::string path, std::optional<std::string>& error)
      : object_(object), path_(std::move(path)), error_(error) {}

  void String(std::string_view key, std::string& out) {
    if (const Json* value = Member(key, &Json::is_string, "a string")) {
      out = value->get<std::string>();
    }
  }

  // A number, or null for one that was not finite when written.
  void Number(std::string_view key, double& out) {
    const Json* value = Find(key);
    if (value == nullptr) return;
    if (value->is_null()) {
      out = std::numeric_limits<double>::quiet_NaN();
    } else if (value->is_number()) {
      out = value->get<double>();
    } else {
      Fail(key, fmt::format("expected a number or null, found {}", DescribeFound(*value)));
    }
  }

  // A non-negative integer that fits in `Integer`.
  template <typename Integer>
  void Count(std::string_view key, Integer& out) {
    const Json* value = Member(key, &Json::is_number_unsigned, "a non-negative integer");
    if (value == nullptr) return;
    const auto count = value->get<std::uint64_t>();
    if (count > static_cast<std::uint64_t>(std::numeric_limits<Integer>::max())) {
      Fail(key, fmt::format("{} is too large", count));
      return;
    }
    out = static_cast<Integer>(count);
  }

  void Bool(std::string_view key, bool& out) {
    if (const Json* value = Member(key, &Json::is_boolean, "true or false")) {
      out = value->get<bool>();
    }
  }

  void NullableString(std::string_view key, std::optional<std::string>& out) {
    const Json* value = Find(key);
    if (value == nullptr) return;
    if (value->is_null()) {
      out.reset();
    } else if (value->is_string()) {
      out = value->get<std::string>();
    } else {
      Fail(key, fmt::format("expected a string or null, found {}", DescribeFound(*value)));
    }
  }

  void StringList(std::string_view key, std::vector<std::string>& out) {
    const Json* array = Member(key, &Json::is_array, "an array");
    if (array == nullptr) return;
    out.clear();
    for (size_t index = 0; index < array->size(); ++index) {
      const Json& item = (*array)[index];
      if (!item.is_string()) {
        Fail(fmt::format("{}[{}]", key, index),
             fmt::format("expected a string, found {}", DescribeFound(item)));
        return;
      }
      out.push_back(item.get<std::string>());
    }
  }

  // Exactly `expected`, a constant of the format (a unit).
  void Constant(std::string_view key, std::string_view expected) {
    std::string text;
    String(key, text);
    if (!error_ && text != expected) {
      Fail(key, fmt::format("expected {}, found {}", Json(std::string(expected)).dump(),
                            Json(text).dump()));
    }
  }

  // One of an enum's names; `what` says what the names are ("a direction").
  template <typename Enum, size_t N>
  void Name(std::string_view key, std::optional<Enum> (*parse)(std::string_view),
            const Enum (&values)[N], std::string_view (*name)(Enum), std::string_view what,
            Enum& out) {
    std::string text;
    String(key, text);
    if (error_) return;
    if (const std::optional<Enum> value = parse(text)) {
      out = *value;
      return;
    }
    std::string names;
    for (Enum value : values) {
      names += names.empty() ? "" : ", ";
      names += Json(std::string(name(value))).dump();
    }
    Fail(key, fmt::format("{} is not {} ({})", Json(text).dump(), what, names));
  }

  // A reader for a nested object; after a problem, a reader of nothing.
  MemberReader Object(std::string_view key) {
    if (const Json* value = Member(key, &Json::is_object, "an object")) {
      return MemberReader(*value, PathOf(key), error_);
    }
    return MemberReader(EmptyObject(), PathOf(key), error_);
  }

  // A reader for a nested object, or nothing when the member is null.
  std::optional<MemberReader> NullableObject(std::string_view key) {
    const Json* value = Find(key);
    if (value == nullptr || value->is_null()) return std::nullopt;
    if (!value->is_object()) {
      Fail(key, fmt::format("expected an object or null, found {}", DescribeFound(*value)));
      return std::nullopt;
    }
    return MemberReader(*value, PathOf(key), error_);
  }

  // Readers for an array of objects, one per element.
  std::vector<MemberReader> ObjectList(std::string_view key) {
    std::vector<MemberReader> readers;
    const Json* array = Member(key, &Json::is_array, "an array");
    if (array == nullptr) return readers;
    for (size_t index = 0; index < array->size(); ++index) {
      const Json& item = (*array)[index];
      const std::string item_key = fmt::format("{}[{}]", key, index);
      if (!item.is_object()) {
        Fail(item_key, fmt::format("expected an object, found {}", DescribeFound(item)));
        return {};
      }
      readers.emplace_back(item, PathOf(item_key), error_);
    }
    return readers;
  }

  bool failed() const { return error_.has_value(); }

 private:
  using TypeTest = bool (Json::*)() const noexcept;

  static const Json& EmptyObject() {
    static const Json empty = Json::object();
    return empty;
  }

  std::string PathOf(std::string_view key) const {
    return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
  }

  // The member `key`, or null (and the problem recorded) when it is missing.
  const Json* Find(std::string_view key) {
    if (error_) return nullptr;
    const auto found = object_.find(key);
    if (found == object_.end()) {
      Fail(key, "missing");
      return nullptr;
    }
    return &*found;
  }

  // The member `key` if it is there and passes `has_type` (`expected` says
  // what that is, for the error).
  const Json* Member(std::string_view key, TypeTest has_type, std::string_view expected) {
    const Json* value = Find(key);
    if (value == nullptr) return nullptr;
    if (!(value->*has_type)()) {
      Fail(key, fmt::format("expected {}, found {}", expected, DescribeFound(*value)));
      return nullptr;
    }
    return value;
  }

  void Fail(std::string_view key, std::string_view why) {
    if (!error_) error_ = fmt::format("{}: {}", PathOf(key), why);
  }

  const Json& object_;
  std::string path_;
  std::optional<std::string>& error_;
};

Distribution ReadDistribution(MemberReader& in, std::string_view unit) {
  Distribution distribution;
  in.Number(fmt::format("median_{}", unit), distribution.median);
  in.Number(fmt::format("p5_{}", unit), distribution.p5);
  in.Number(fmt::format("p95_{}", unit), distribution.p95);
  in.Number(fmt::format("min_{}", unit), distribution.min);
  in.Number(fmt::format("max_{}", unit), distribution.max);
  in.Number("spread", distribution.spread);
  in.Count("samples", distribution.samples);
  return distribution;
}

BandwidthResult ReadBandwidth(MemberReader in) {
  BandwidthResult result;
  in.Name("direction", ParseDirection, kAllDirections, DirectionName, "a direction",
          result.direction);
  constexpr HostMemory kAllHostMemories[] = {HostMemory::kPinned, HostMemory::kPageable,
                                             HostMemory::kNone};
  in.Name("host_memory", ParseHostMemory, kAllHostMemories, HostMemoryName, "a host memory",
          result.host_memory);
  constexpr CopyMode kAllModes[] = {CopyMode::kAsync, CopyMode::kSync};
  in.Name("mode", ParseCopyMode, kAllModes, CopyModeName, "a copy mode", result.mode);
  in.Count("bytes", result.bytes);
  result.gbps = ReadDistribution(in, "gbps");
  if (std::optional<MemberReader> timer = in.NullableObject("plugin_timer")) {
    result.plugin_timer_gbps = ReadDistribution(*timer, "gbps");
  }
  in.Number("ceiling_gbps", result.ceiling_gbps);
  in.Number("ratio_to_ceiling", result.ratio_to_ceiling);
  in.Count("warmup_copies", result.warmup_copies);
  in.Count("copies_per_sample", result.copies_per_sample);
  in.Bool("stable", result.stable);
  in.Bool("enqueue_excluded", result.enqueue_excluded);
  in.String("verification", result.verification);
  in.StringList("warnings", result.warnings);
  in.NullableString("error", result.error);
  return result;
}

CeilingResult ReadCeiling(MemberReader in) {
  CeilingResult ceiling;
  in.Count("bytes", ceiling.bytes);
  ceiling.gbps = ReadDistribution(in, "gbps");
  return ceiling;
}

LatencyResult ReadLatency(MemberReader in) {
  LatencyResult latency;
  in.String("operation", latency.operation);
  in.String("description", latency.description);
  latency.ns = ReadDistribution(in, "ns");
  in.Count("operations_per_sample", latency.operations_per_sample);
  in.NullableString("error", latency.error);
  return latency;
}

HostInfo ReadHost(MemberReader in) {
  HostInfo host;
  in.String("os", host.os);
  in.String("kernel", host.kernel);
  in.String("machine", host.machine);
  in.String("cpu_model", host.cpu_model);
  in.Count("logical_cpus", host.logical_cpus);
  in.Count("memory_bytes", host.memory_bytes);
  return host;
}

Error Malformed(std::string_view why) {
  return Error(ErrorCode::kInvalidArgument, fmt::format("not a sectl bench report: {}", why));
}

// The header first, so that a document of another kind or version is
// refused as such rather than for the first member it happens to lack.
Expected<std::string> ReadHeader(const Json& document) {
  if (!document.is_object()) {
    return tl::unexpected(
        Malformed(fmt::format("the document is {}, not an object", DescribeFound(document))));
  }
  const auto kind = document.find("kind");
  if (kind == document.end() || !kind->is_string()) {
    return tl::unexpected(Malformed("it has no \"kind\" string"));
  }
  const std::string kind_text = kind->get<std::string>();
  if (!kind_text.starts_with(kKindPrefix)) {
    return tl::unexpected(Malformed(fmt::format("its kind is {}", Json(kind_text).dump())));
  }
  const std::string bench_kind = kind_text.substr(kKindPrefix.size());
  if (std::find(kKnownKinds.begin(), kKnownKinds.end(), bench_kind) == kKnownKinds.end()) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("unknown kind of bench report {}; this sectl reads "
                            "\"sectl.bench.memcpy\" and \"sectl.bench.latency\"",
                            Json(kind_text).dump()));
  }
  const auto version = document.find("schema_version");
  if (version == document.end() || !version->is_number_integer()) {
    return Fail(ErrorCode::kInvalidArgument, "malformed bench report: schema_version: missing");
  }
  if (version->get<std::int64_t>() != kBenchSchemaVersion) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("bench report has schema_version {}; this sectl reads "
                            "schema_version {}",
                            version->dump(), kBenchSchemaVersion));
  }
  return bench_kind;
}

BenchReport ReadReport(MemberReader& in) {
  BenchReport report;
  MemberReader tool = in.Object("tool");
  tool.String("name", report.tool_name);
  tool.String("version", report.tool_version);
  MemberReader plugin = in.Object("plugin");
  plugin.String("path", report.plugin_path);
  plugin.String("sha256", report.plugin_sha256);
  plugin.String("platform", report.platform_name);
  plugin.Count("device_ordinal", report.device_ordinal);
  plugin.String("device_name", report.device_name);
  report.host = ReadHost(in.Object("host"));
  in.StringList("command_line", report.command_line);
  in.String("started_at", report.started_at);
  in.Number("duration_s", report.duration_s);
  in.Count("threads", report.threads);
  MemberReader units = in.Object("units");
  units.Constant("bandwidth", kBandwidthUnit);
  units.Constant("latency", kLatencyUnit);
  for (const MemberReader& result : in.ObjectList("results")) {
    report.results.push_back(ReadBandwidth(result));
  }
  for (const MemberReader& ceiling : in.ObjectList("ceiling")) {
    report.ceiling.push_back(ReadCeiling(ceiling));
  }
  for (const MemberReader& latency : in.ObjectList("latency")) {
    report.latency.push_back(ReadLatency(latency));
  }
  return report;
}

Expected<BenchReport> FromJson(const Json& document) {
  Expected<std::string> kind = ReadHeader(document);
  if (!kind) return tl::unexpected(kind.error());
  std::optional<std::string> error;
  MemberReader in(document, "", error);
  BenchReport report = ReadReport(in);
  if (error) return Fail(ErrorCode::kInvalidArgument, "malformed bench report: " + *error);
  report.kind = std::move(*kind);
  return report;
}

// nlohmann's messages start with "[json.exception.parse_error.101] ".
std::string WithoutExceptionId(std::string_view what) {
  const size_t end = what.starts_with('[') ? what.find("] ") : std::string_view::npos;
  return std::string(end == std::string_view::npos ? what : what.substr(end + 2));
}

Expected<std::string> ReadWholeFile(const std::string& path) {
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  if (!std::filesystem::exists(status)) {
    return Fail(ErrorCode::kNotFound, fmt::format("{}: no such file", path));
  }
  if (std::filesystem::is_directory(status)) {
    return Fail(ErrorCode::kInvalidArgument, fmt::format("{}: is a directory, not a file", path));
  }
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (!error && size > kLargestReportBytes) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("{}: not a sectl bench report: {} bytes is far too large", path, size));
  }
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  if (file) text << file.rdbuf();
  if (!file || file.bad()) {
    return Fail(ErrorCode::kIoError, fmt::format("{}: cannot read the file", path));
  }
  return std::move(text).str();
}

}  // namespace

OrderedJson BenchReportToJson(const BenchReport& report) {
  return {{"schema_version", report.schema_version},
          {"kind", fmt::format("{}{}", kKindPrefix, report.kind)},
          {"tool", {{"name", report.tool_name}, {"version", report.tool_version}}},
          {"plugin",
           {{"path", report.plugin_path},
            {"sha256", report.plugin_sha256},
            {"platform", report.platform_name},
            {"device_ordinal", report.device_ordinal},
            {"device_name", report.device_name}}},
          {"host", report::HostInfoToJson(report.host)},
          {"command_line", report.command_line},
          {"started_at", report.started_at},
          {"duration_s", report.duration_s},
          {"threads", report.threads},
          {"units", {{"bandwidth", kBandwidthUnit}, {"latency", kLatencyUnit}}},
          {"results", ArrayOf(report.results, BandwidthToJson)},
          {"ceiling", ArrayOf(report.ceiling, CeilingToJson)},
          {"latency", ArrayOf(report.latency, LatencyToJson)}};
}

std::string BenchReportToJsonText(const BenchReport& report) {
  return BenchReportToJson(report).dump(2, ' ', false, OrderedJson::error_handler_t::replace) +
         "\n";
}

Expected<BenchReport> BenchReportFromJson(const Json& document) {
  // The reader checks every type before it converts, so nothing should
  // throw; this is the guarantee for untrusted input should that ever slip.
  try {
    return FromJson(document);
  } catch (const std::exception& error) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("malformed bench report: {}",
                            EscapeControlCharacters(WithoutExceptionId(error.what()))));
  }
}

Expected<BenchReport> ParseBenchReport(std::string_view text) {
  Json document;
  try {
    document = Json::parse(text);
  } catch (const std::exception& error) {
    // nlohmann says where: "parse error at line 3, column 5: ...".
    return tl::unexpected(Malformed(
        fmt::format("not JSON: {}", EscapeControlCharacters(WithoutExceptionId(error.what())))));
  }
  return BenchReportFromJson(document);
}

Expected<BenchReport> ReadBenchReport(const std::string& path) {
  const Expected<std::string> text = ReadWholeFile(path);
  if (!text) return tl::unexpected(text.error());
  Expected<BenchReport> report = ParseBenchReport(*text);
  if (!report) return tl::unexpected(report.error().WithContext(path));
  return report;
}

}  // namespace sectl::bench
