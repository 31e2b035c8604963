#include "bench/bench_csv.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <string_view>
#include <vector>

#include "base/text.h"

namespace sectl::bench {
namespace {

constexpr std::string_view kLineEnd = "\r\n";

// One field, quoted when it holds a character CSV gives a meaning to.
std::string Field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  quoted += '"';
  return quoted;
}

// Text that came from the plugin or the engine: control characters escaped.
std::string TextField(std::string_view text) { return Field(EscapeControlCharacters(text)); }

// The shortest text that reads back as the same double; empty when not finite.
std::string NumberField(double value) {
  return std::isfinite(value) ? fmt::format("{}", value) : std::string();
}

std::string BoolField(bool value) { return value ? "true" : "false"; }

std::string OptionalField(const std::optional<std::string>& text) {
  return text ? TextField(*text) : std::string();
}

// median, p5, p95, min, max, spread and samples; all empty for a result
// that was not measured.
std::vector<std::string> DistributionFields(const Distribution& d, bool measured) {
  if (!measured) return std::vector<std::string>(7);
  return {NumberField(d.median),       NumberField(d.p5),  NumberField(d.p95),
          NumberField(d.min),          NumberField(d.max), NumberField(d.spread),
          fmt::format("{}", d.samples)};
}

class RowWriter {
 public:
  explicit RowWriter(std::string& out) : out_(out) {}

  RowWriter& Add(const std::string& field) {
    if (!first_) out_ += ',';
    out_ += field;
    first_ = false;
    return *this;
  }
  RowWriter& Add(const std::vector<std::string>& fields) {
    for (const std::string& field : fields) Add(field);
    return *this;
  }
  void End() {
    out_ += kLineEnd;
    first_ = true;
  }

 private:
  std::string& out_;
  bool first_ = true;
};

std::string JoinWarnings(const std::vector<std::string>& warnings) {
  std::string joined;
  for (const std::string& warning : warnings) {
    if (!joined.empty()) joined += "; ";
    joined += warning;
  }
  return joined;
}

void WriteBandwidth(std::string& out, const BenchReport& report) {
  RowWriter row(out);
  row.Add({"direction",    "host_memory",      "mode",          "bytes",
           "median_gbps",  "p5_gbps",          "p95_gbps",      "min_gbps",
           "max_gbps",     "spread",           "samples",       "plugin_timer_median_gbps",
           "ceiling_gbps", "ratio_to_ceiling", "warmup_copies", "copies_per_sample",
           "stable",       "enqueue_excluded", "verification",  "warnings",
           "error",        "not_measurable"})
      .End();
  for (const BandwidthResult& r : report.results) {
    const bool measured = HasNumbers(r);
    row.Add(std::string(DirectionName(r.direction)))
        .Add(std::string(HostMemoryName(r.host_memory)))
        .Add(std::string(CopyModeName(r.mode)))
        .Add(fmt::format("{}", r.bytes))
        .Add(DistributionFields(r.gbps, measured))
        .Add(measured && r.plugin_timer_gbps ? NumberField(r.plugin_timer_gbps->median) : "")
        .Add(!r.error && r.ceiling_gbps > 0 ? NumberField(r.ceiling_gbps) : "")
        .Add(measured ? NumberField(r.ratio_to_ceiling) : "")
        .Add(fmt::format("{}", r.warmup_copies))
        .Add(fmt::format("{}", r.copies_per_sample))
        .Add(BoolField(r.stable))
        .Add(BoolField(r.enqueue_excluded))
        .Add(TextField(r.verification.Describe()))
        .Add(TextField(JoinWarnings(r.warnings)))
        .Add(OptionalField(r.error))
        .Add(OptionalField(r.not_measurable))
        .End();
  }
}

void WriteLatency(std::string& out, const BenchReport& report) {
  RowWriter row(out);
  row.Add({"operation", "description", "median_ns", "p5_ns", "p95_ns", "min_ns", "max_ns", "spread",
           "samples", "operations_per_sample", "error", "not_measurable"})
      .End();
  for (const LatencyResult& r : report.latency) {
    row.Add(TextField(r.operation))
        .Add(TextField(r.description))
        .Add(DistributionFields(r.ns, HasNumbers(r)))
        .Add(fmt::format("{}", r.operations_per_sample))
        .Add(OptionalField(r.error))
        .Add(OptionalField(r.not_measurable))
        .End();
  }
}

}  // namespace

std::string RenderBenchCsv(const BenchReport& report) {
  std::string out;
  if (report.kind == "latency") {
    WriteLatency(out, report);
  } else {
    WriteBandwidth(out, report);
  }
  return out;
}

}  // namespace sectl::bench
