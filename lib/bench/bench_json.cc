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

#include "base/json_reading.h"
#include "base/json_text.h"
#include "base/regular_file.h"
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

// ---------------------------------------------------------------------------
// Writing

// The members of a Distribution, flat in `object`: "median_gbps", "p5_gbps",
// ..., "spread", "samples", "values_gbps". `unit` is the suffix of the
// measured values.
void AppendDistribution(OrderedJson& object, const Distribution& distribution,
                        std::string_view unit) {
  object[fmt::format("median_{}", unit)] = distribution.median;
  object[fmt::format("p5_{}", unit)] = distribution.p5;
  object[fmt::format("p95_{}", unit)] = distribution.p95;
  object[fmt::format("min_{}", unit)] = distribution.min;
  object[fmt::format("max_{}", unit)] = distribution.max;
  object["spread"] = distribution.spread;
  object["samples"] = distribution.samples;
  object[fmt::format("values_{}", unit)] = distribution.values;
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
  // "verification" is the one-line description every report has carried;
  // the status and reason say the same for programs.
  object["verification"] = result.verification.Describe();
  object["verification_status"] = VerificationStatusName(result.verification.status);
  object["verification_reason"] = result.verification.reason;
  object["warnings"] = result.warnings;
  object["error"] = NullableString(result.error);
  object["not_measurable"] = NullableString(result.not_measurable);
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
  object["stable"] = latency.stable;
  object["error"] = NullableString(latency.error);
  object["not_measurable"] = NullableString(latency.not_measurable);
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

// Reports from before schema version 2 hold no values (nor latency's
// "stable", nor "runs").
bool HasSamples(int schema_version) { return schema_version >= 2; }
// Reports from before schema version 3 have no "not_measurable": every
// result in them was taken as a measurement.
bool HasNotMeasurable(int schema_version) { return schema_version >= 3; }
// Reports from before schema version 4 have no "stopped": every run in them
// went through.
bool HasStopped(int schema_version) { return schema_version >= 4; }

Distribution ReadDistribution(JsonReader& in, std::string_view unit, int schema_version) {
  Distribution distribution;
  in.NumberOrNull(fmt::format("median_{}", unit), distribution.median);
  in.NumberOrNull(fmt::format("p5_{}", unit), distribution.p5);
  in.NumberOrNull(fmt::format("p95_{}", unit), distribution.p95);
  in.NumberOrNull(fmt::format("min_{}", unit), distribution.min);
  in.NumberOrNull(fmt::format("max_{}", unit), distribution.max);
  in.NumberOrNull("spread", distribution.spread);
  in.Count("samples", distribution.samples);
  if (HasSamples(schema_version))
    in.NumberList(fmt::format("values_{}", unit), distribution.values);
  return distribution;
}

BandwidthResult ReadBandwidth(JsonReader in, int schema_version) {
  BandwidthResult result;
  in.Name<Direction>("direction", kAllDirections, DirectionName, "a direction", result.direction);
  constexpr HostMemory kAllHostMemories[] = {HostMemory::kPinned, HostMemory::kPageable,
                                             HostMemory::kNone};
  in.Name<HostMemory>("host_memory", kAllHostMemories, HostMemoryName, "a host memory",
                      result.host_memory);
  constexpr CopyMode kAllModes[] = {CopyMode::kAsync, CopyMode::kSync};
  in.Name<CopyMode>("mode", kAllModes, CopyModeName, "a copy mode", result.mode);
  in.Count("bytes", result.bytes);
  result.gbps = ReadDistribution(in, "gbps", schema_version);
  if (std::optional<JsonReader> timer = in.NullableObject("plugin_timer")) {
    result.plugin_timer_gbps = ReadDistribution(*timer, "gbps", schema_version);
  }
  in.NumberOrNull("ceiling_gbps", result.ceiling_gbps);
  in.NumberOrNull("ratio_to_ceiling", result.ratio_to_ceiling);
  in.Count("warmup_copies", result.warmup_copies);
  in.Count("copies_per_sample", result.copies_per_sample);
  in.Bool("stable", result.stable);
  in.Bool("enqueue_excluded", result.enqueue_excluded);
  std::string verification;
  in.String("verification", verification);
  if (in.Has("verification_status")) {
    constexpr VerificationStatus kAllVerificationStatuses[] = {
        VerificationStatus::kPassed, VerificationStatus::kFailed, VerificationStatus::kNotVerified,
        VerificationStatus::kSkipped};
    in.Name<VerificationStatus>("verification_status", kAllVerificationStatuses,
                                VerificationStatusName, "a verification status",
                                result.verification.status);
    in.String("verification_reason", result.verification.reason);
  } else {
    // Reports written before the status had its own field.
    result.verification = Verification::FromDescription(verification);
  }
  in.StringList("warnings", result.warnings);
  in.NullableString("error", result.error);
  if (HasNotMeasurable(schema_version)) in.NullableString("not_measurable", result.not_measurable);
  return result;
}

CeilingResult ReadCeiling(JsonReader in, int schema_version) {
  CeilingResult ceiling;
  in.Count("bytes", ceiling.bytes);
  ceiling.gbps = ReadDistribution(in, "gbps", schema_version);
  return ceiling;
}

LatencyResult ReadLatency(JsonReader in, int schema_version) {
  LatencyResult latency;
  in.String("operation", latency.operation);
  in.String("description", latency.description);
  latency.ns = ReadDistribution(in, "ns", schema_version);
  in.Count("operations_per_sample", latency.operations_per_sample);
  if (HasSamples(schema_version)) in.Bool("stable", latency.stable);
  in.NullableString("error", latency.error);
  if (HasNotMeasurable(schema_version)) in.NullableString("not_measurable", latency.not_measurable);
  return latency;
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

Error Malformed(std::string_view why) {
  return Error(ErrorCode::kInvalidArgument, fmt::format("not a sectl bench report: {}", why));
}

// The header first, so that a document of another kind or version is
// refused as such rather than for the first member it happens to lack.
struct Header {
  std::string kind;  // "memcpy" or "latency"
  int schema_version = kBenchSchemaVersion;
};

Expected<Header> ReadHeader(const Json& document) {
  if (!document.is_object()) {
    return tl::unexpected(
        Malformed(fmt::format("the document is {}, not an object", DescribeJsonValue(document))));
  }
  const auto kind = document.find("kind");
  if (kind == document.end() || !kind->is_string()) {
    return tl::unexpected(Malformed("it has no \"kind\" string"));
  }
  const std::string kind_text = kind->get<std::string>();
  if (!kind_text.starts_with(kKindPrefix)) {
    return tl::unexpected(Malformed(fmt::format("its kind is {}", QuoteJson(kind_text))));
  }
  const std::string bench_kind = kind_text.substr(kKindPrefix.size());
  if (std::find(kKnownKinds.begin(), kKnownKinds.end(), bench_kind) == kKnownKinds.end()) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("unknown kind of bench report {}; this sectl reads "
                            "\"sectl.bench.memcpy\" and \"sectl.bench.latency\"",
                            QuoteJson(kind_text)));
  }
  const auto version = document.find("schema_version");
  if (version == document.end() || !version->is_number_integer()) {
    return Fail(ErrorCode::kInvalidArgument, "malformed bench report: schema_version: missing");
  }
  const auto schema_version = version->get<std::int64_t>();
  if (schema_version < kOldestReadableBenchSchemaVersion || schema_version > kBenchSchemaVersion) {
    return Fail(
        ErrorCode::kInvalidArgument,
        fmt::format("bench report has schema_version {}; this sectl reads "
                    "schema_version {} to {}",
                    EncodeJson(*version), kOldestReadableBenchSchemaVersion, kBenchSchemaVersion));
  }
  return Header{bench_kind, static_cast<int>(schema_version)};
}

BenchReport ReadReport(JsonReader& in, int schema_version) {
  BenchReport report;
  report.schema_version = schema_version;
  JsonReader tool = in.Object("tool");
  tool.String("name", report.tool_name);
  tool.String("version", report.tool_version);
  JsonReader plugin = in.Object("plugin");
  plugin.String("path", report.plugin_path);
  plugin.String("sha256", report.plugin_sha256);
  plugin.String("platform", report.platform_name);
  plugin.Count("device_ordinal", report.device_ordinal);
  plugin.String("device_name", report.device_name);
  report.host = ReadHost(in.Object("host"));
  in.StringList("command_line", report.command_line);
  in.String("started_at", report.started_at);
  in.NumberOrNull("duration_s", report.duration_s);
  in.Count("threads", report.threads);
  if (HasSamples(schema_version)) in.Count("runs", report.runs);
  if (HasStopped(schema_version)) in.NullableString("stopped", report.stopped);
  JsonReader units = in.Object("units");
  units.Constant("bandwidth", kBandwidthUnit);
  units.Constant("latency", kLatencyUnit);
  for (const JsonReader& result : in.ObjectList("results")) {
    report.results.push_back(ReadBandwidth(result, schema_version));
  }
  for (const JsonReader& ceiling : in.ObjectList("ceiling")) {
    report.ceiling.push_back(ReadCeiling(ceiling, schema_version));
  }
  for (const JsonReader& latency : in.ObjectList("latency")) {
    report.latency.push_back(ReadLatency(latency, schema_version));
  }
  return report;
}

Expected<BenchReport> FromJson(const Json& document) {
  Expected<Header> header = ReadHeader(document);
  if (!header) return tl::unexpected(header.error());
  std::optional<std::string> error;
  JsonReader in(document, "", error);
  BenchReport report = ReadReport(in, header->schema_version);
  if (error) return Fail(ErrorCode::kInvalidArgument, "malformed bench report: " + *error);
  report.kind = std::move(header->kind);
  return report;
}

}  // namespace

OrderedJson BenchReportToJson(const BenchReport& report) {
  // Every member of this version is written, whichever version the report
  // was read from.
  return {{"schema_version", kBenchSchemaVersion},
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
          {"runs", report.runs},
          {"stopped", NullableString(report.stopped)},
          {"units", {{"bandwidth", kBandwidthUnit}, {"latency", kLatencyUnit}}},
          {"results", ArrayOf(report.results, BandwidthToJson)},
          {"ceiling", ArrayOf(report.ceiling, CeilingToJson)},
          {"latency", ArrayOf(report.latency, LatencyToJson)}};
}

std::string BenchReportToJsonText(const BenchReport& report) {
  return EncodeJson(BenchReportToJson(report), 2) + "\n";
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
  // nlohmann says where: "parse error at line 3, column 5: ...".
  const Expected<Json> document = ParseUntrustedJson(text);
  if (!document) {
    return tl::unexpected(Malformed(
        fmt::format("not JSON: {}", EscapeControlCharacters(document.error().message()))));
  }
  return BenchReportFromJson(*document);
}

Expected<BenchReport> ReadBenchReport(const std::string& path) {
  const Expected<std::string> text = ReadRegularFile(path, kMaxReportFileBytes, "bench report");
  if (!text) return tl::unexpected(text.error());
  Expected<BenchReport> report = ParseBenchReport(*text);
  if (!report) return tl::unexpected(report.error().WithContext(path));
  return report;
}

}  // namespace sectl::bench
