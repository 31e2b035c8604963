#include "bench/bench_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>
#include <vector>

#include "base/byte_sizes.h"
#include "bench/bench_series.h"

namespace sectl::bench {
namespace {

constexpr size_t kBarWidth = 32;         // characters for the largest median
constexpr size_t kShownHashLength = 12;  // enough to tell builds apart

// Why a row should not be taken at face value, one character each, in the
// order they are shown.
struct Marker {
  char symbol;
  std::string_view meaning;
  bool (*applies)(const BandwidthResult&);
};

constexpr std::array<Marker, 4> kMarkers = {{
    {'X', "verification FAILED: the copied bytes were wrong",
     [](const BandwidthResult& r) { return r.verification.starts_with("failed"); }},
    {'!', "implausible or suspicious: see the warnings below the block",
     [](const BandwidthResult& r) { return !r.warnings.empty(); }},
    {'~', "unstable: the median had not settled when the time budget ran out",
     [](const BandwidthResult& r) { return !r.stable; }},
    {'?', "not verified (--no-verify)",
     [](const BandwidthResult& r) { return r.verification == "skipped"; }},
}};

std::string MarkersOf(const BandwidthResult& result) {
  std::string symbols;
  for (const Marker& marker : kMarkers) {
    if (marker.applies(result)) symbols += marker.symbol;
  }
  return symbols;
}

// A horizontal bar `value / largest` of kBarWidth long, to an eighth of a
// character.
std::string Bar(double value, double largest) {
  constexpr std::array<std::string_view, 8> kPartialBlocks = {"",  "▏", "▎", "▍",
                                                              "▌", "▋", "▊", "▉"};
  if (!(largest > 0) || !std::isfinite(value) || value <= 0) return "";
  const double fraction = std::min(value / largest, 1.0);
  const auto eighths = static_cast<size_t>(std::lround(fraction * kBarWidth * 8));
  std::string bar;
  for (size_t i = 0; i < eighths / 8; ++i) bar += "█";
  bar += kPartialBlocks[eighths % 8];
  // Something measured is never drawn as nothing.
  if (bar.empty()) bar = kPartialBlocks[1];
  return bar;
}

double LargestMedian(const std::vector<BandwidthResult>& results) {
  double largest = 0;
  for (const BandwidthResult& result : results) {
    if (!result.error && std::isfinite(result.gbps.median)) {
      largest = std::max(largest, result.gbps.median);
    }
  }
  return largest;
}

std::string Percent(double ratio) {
  if (!std::isfinite(ratio)) return "n/a";
  return fmt::format("{:.0f}%", ratio * 100);
}

void WriteHeader(std::string& out, const BenchReport& report) {
  const std::string hash = report.plugin_sha256.size() > kShownHashLength
                               ? report.plugin_sha256.substr(0, kShownHashLength) + "…"
                               : report.plugin_sha256;
  out += fmt::format("sectl bench {}\n", OneLine(report.kind));
  out += fmt::format("{:<9} {}{}\n", "Plugin", OneLine(report.plugin_path),
                     hash.empty() ? "" : fmt::format(" (sha256 {})", OneLine(hash)));
  out += fmt::format(
      "{:<9} {} device {}{}\n", "Device", OneLine(report.platform_name), report.device_ordinal,
      report.device_name.empty() ? "" : fmt::format(" \"{}\"", OneLine(report.device_name)));
  const HostInfo& host = report.host;
  out += fmt::format("{:<9} {} {} {}, {}{} logical CPUs, {} host thread{}\n", "Host",
                     OneLine(host.os), OneLine(host.kernel), OneLine(host.machine),
                     host.cpu_model.empty() ? "" : OneLine(host.cpu_model) + ", ",
                     host.logical_cpus, report.threads, report.threads == 1 ? "" : "s");
  out += fmt::format("{:<9} {}, took {} s\n", "Started", OneLine(report.started_at),
                     FormatMeasurement(report.duration_s));
}

// What every block of a report shows alike.
struct Layout {
  double largest_median = 0;  // the full length of a bar
  bool plugin_timer = false;  // a column for the plugin's own timers
};

std::string HeaderRow(const Layout& layout) {
  return fmt::format("  {:>9}  {:>8}  {:>15}  {}{:>8}  {:>6}\n", "size", "median", "p5–p95",
                     layout.plugin_timer ? fmt::format("{:>8}  ", "timer") : "", "ceiling",
                     "ratio");
}

// The row of one size: numbers, markers and the bar.
std::string SizeRow(const BandwidthResult& result, const Layout& layout) {
  const std::string size = FormatByteSize(result.bytes);
  if (result.error) {
    return fmt::format("  {:>9}  not measured: {}\n", size, OneLine(*result.error));
  }
  const std::string range =
      fmt::format("{}–{}", FormatMeasurement(result.gbps.p5), FormatMeasurement(result.gbps.p95));
  std::string timer;
  if (layout.plugin_timer) {
    timer = fmt::format("{:>8}  ", result.plugin_timer_gbps
                                       ? FormatMeasurement(result.plugin_timer_gbps->median)
                                       : "—");
  }
  // fmt pads by display width, and the en dash is one column wide.
  return fmt::format("  {:>9}  {:>8}  {:>15}  {}{:>8}  {:>6}  {:<4} {}\n", size,
                     FormatMeasurement(result.gbps.median), range, timer,
                     FormatMeasurement(result.ceiling_gbps), Percent(result.ratio_to_ceiling),
                     MarkersOf(result), Bar(result.gbps.median, layout.largest_median));
}

void WriteSeries(std::string& out, const Series& series, const Layout& layout) {
  out += fmt::format("\n{}\n", SeriesName(series.key));
  out += HeaderRow(layout);
  for (const BandwidthResult* result : series.results) out += SizeRow(*result, layout);
  // The warnings and verification failures in words, under the block.
  for (const BandwidthResult* result : series.results) {
    const std::string size = FormatByteSize(result->bytes);
    if (result->verification.starts_with("failed")) {
      out += fmt::format("  {:>9}  X verification {}\n", size, OneLine(result->verification));
    }
    for (const std::string& warning : result->warnings) {
      out += fmt::format("  {:>9}  ! {}\n", size, OneLine(warning));
    }
  }
}

void WriteLegend(std::string& out, const std::vector<BandwidthResult>& results,
                 const Layout& layout) {
  std::string legend;
  for (const Marker& marker : kMarkers) {
    const bool used = std::any_of(results.begin(), results.end(), [&marker](const auto& result) {
      return !result.error && marker.applies(result);
    });
    if (used) legend += fmt::format("  {}  {}\n", marker.symbol, marker.meaning);
  }
  out +=
      "\nBandwidth in GB/s (10^9 bytes/s) by the host's clock; ceiling is the host's own "
      "memcpy at the same size; bars share one scale.\n";
  if (layout.plugin_timer) out += "timer: the median by the plugin's own timers (SP_TimerFns).\n";
  if (!legend.empty()) out += "Markers:\n" + legend;
}

void WriteMemcpy(std::string& out, const BenchReport& report) {
  if (report.results.empty()) {
    out += "\nNo results.\n";
    return;
  }
  const Layout layout{
      .largest_median = LargestMedian(report.results),
      .plugin_timer = std::any_of(report.results.begin(), report.results.end(),
                                  [](const auto& result) { return result.plugin_timer_gbps; })};
  for (const Series& series : GroupIntoSeries(report.results)) WriteSeries(out, series, layout);
  WriteLegend(out, report.results, layout);
}

void WriteLatency(std::string& out, const BenchReport& report) {
  if (report.latency.empty()) {
    out += "\nNo results.\n";
    return;
  }
  size_t name_width = std::string_view("operation").size();
  for (const LatencyResult& latency : report.latency) {
    name_width = std::max(name_width, OneLine(latency.operation).size());
  }
  out += fmt::format("\n  {:<{}}  {:>10}  {:>10}  {:>8}  {}\n", "operation", name_width,
                     "median ns", "p95 ns", "samples", "what is timed");
  for (const LatencyResult& latency : report.latency) {
    const std::string name = OneLine(latency.operation);
    if (latency.error) {
      out += fmt::format("  {:<{}}  not measured: {}\n", name, name_width, OneLine(*latency.error));
      continue;
    }
    out += fmt::format("  {:<{}}  {:>10}  {:>10}  {:>8}  {}\n", name, name_width,
                       FormatMeasurement(latency.ns.median), FormatMeasurement(latency.ns.p95),
                       latency.ns.samples, OneLine(latency.description));
  }
  out += "\nNanoseconds per operation by the host's monotonic clock.\n";
}

}  // namespace

std::string RenderBenchTable(const BenchReport& report) {
  std::string out;
  WriteHeader(out, report);
  if (report.kind == "latency") {
    WriteLatency(out, report);
  } else {
    WriteMemcpy(out, report);
  }
  return out;
}

}  // namespace sectl::bench
