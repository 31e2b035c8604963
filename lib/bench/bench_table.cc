#include "bench/bench_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>
#include <vector>

#include "base/byte_sizes.h"
#include "base/text_layout.h"
#include "bench/bench_series.h"

namespace sectl::bench {
namespace {

constexpr size_t kBarWidth = 32;       // characters for the largest median, width unknown
constexpr size_t kSizeColumnEnd = 13;  // "  {size:>9}  ": where a row's text starts
constexpr size_t kHeaderValueColumn = 10;
constexpr size_t kShownHashLength = 12;  // enough to tell builds apart
// Rows not measured for the same reason as the row above them, from which
// on they are folded into one line.
constexpr size_t kFewestFoldedRows = 2;
// Where a latency row's description starts when it goes under the row.
constexpr size_t kLatencyTextBelow = 4;

// Why a row should not be taken at face value, one character each, in the
// order they are shown.
struct Marker {
  char symbol;
  std::string_view meaning;
  bool (*applies)(const BandwidthResult&);
};

constexpr std::array<Marker, 4> kMarkers = {{
    {'X', "verification FAILED: the copied bytes were wrong",
     [](const BandwidthResult& r) { return r.verification.failed(); }},
    {'!', "implausible or suspicious: see the warnings below the block",
     [](const BandwidthResult& r) { return !r.warnings.empty(); }},
    {'~', "unstable: the median had not settled when the time budget ran out",
     [](const BandwidthResult& r) { return !r.stable; }},
    {'?', "not verified: no verified way to check the bytes was left (see below), or --no-verify",
     [](const BandwidthResult& r) {
       return r.verification.status == VerificationStatus::kNotVerified ||
              r.verification.status == VerificationStatus::kSkipped;
     }},
}};

std::string MarkersOf(const BandwidthResult& result) {
  std::string symbols;
  for (const Marker& marker : kMarkers) {
    if (marker.applies(result)) symbols += marker.symbol;
  }
  return symbols;
}

// A horizontal bar `value / largest` of `length` characters, to an eighth
// of a character.
std::string Bar(double value, double largest, size_t length) {
  constexpr std::array<std::string_view, 8> kPartialBlocks = {"",  "▏", "▎", "▍",
                                                              "▌", "▋", "▊", "▉"};
  if (!(largest > 0) || !std::isfinite(value) || value <= 0) return "";
  const double fraction = std::min(value / largest, 1.0);
  const auto eighths = static_cast<size_t>(std::lround(fraction * static_cast<double>(length) * 8));
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
    if (HasNumbers(result)) largest = std::max(largest, result.gbps.median);
  }
  return largest;
}

std::string Percent(double ratio) {
  if (!std::isfinite(ratio)) return "n/a";
  return fmt::format("{:.0f}%", ratio * 100);
}

// Appends `line` and a newline, wrapped at `width` (0: not at all) with
// its continuation lines starting at column `hanging`.
void Put(std::string& out, std::string_view line, size_t width, size_t hanging) {
  out += WrapLine(line, width, hanging);
  out += '\n';
}

std::string Paint(std::string_view text, std::string_view sgr, bool color) {
  if (!color || text.empty()) return std::string(text);
  return fmt::format("\033[{}m{}\033[0m", sgr, text);
}

void WriteHeader(std::string& out, const BenchReport& report, size_t width) {
  const std::string hash = report.plugin_sha256.size() > kShownHashLength
                               ? report.plugin_sha256.substr(0, kShownHashLength) + "…"
                               : report.plugin_sha256;
  auto row = [&out, width](const std::string& line) { Put(out, line, width, kHeaderValueColumn); };
  row(fmt::format("sectl bench {}", OneLine(report.kind)));
  row(fmt::format("{:<9} {}{}", "Plugin", OneLine(report.plugin_path),
                  hash.empty() ? "" : fmt::format(" (sha256 {})", OneLine(hash))));
  row(fmt::format(
      "{:<9} {} device {}{}", "Device", OneLine(report.platform_name), report.device_ordinal,
      report.device_name.empty() ? "" : fmt::format(" \"{}\"", OneLine(report.device_name))));
  const HostInfo& host = report.host;
  row(fmt::format("{:<9} {} {} {}, {}{} logical CPUs, {} host thread{}", "Host", OneLine(host.os),
                  OneLine(host.kernel), OneLine(host.machine),
                  host.cpu_model.empty() ? "" : OneLine(host.cpu_model) + ", ", host.logical_cpus,
                  report.threads, report.threads == 1 ? "" : "s"));
  row(fmt::format("{:<9} {}, took {} s", "Started", OneLine(report.started_at),
                  FormatMeasurement(report.duration_s)));
}

// What every block of a report shows alike.
struct Layout {
  double largest_median = 0;      // the full length of a bar
  bool plugin_timer = false;      // a column for the plugin's own timers
  size_t bar_length = kBarWidth;  // characters for the largest median
  // The numbers take more than half the line: the bars go under them, in
  // a chart of their own, rather than start past the middle.
  bool bars_below = false;
  bool color = false;
  size_t width = 0;  // 0: no wrapping
};

// The columns a row's numbers and markers take, up to where its bar
// starts: "  size  median  p5–p95  [timer  ]ceiling  ratio  XXXX ".
size_t NumbersWidth(bool plugin_timer) {
  constexpr size_t kWithoutTimer = 2 + 9 + 2 + 8 + 2 + 15 + 2 + 8 + 2 + 6 + 2 + 4 + 1;
  constexpr size_t kTimer = 8 + 2;
  return kWithoutTimer + (plugin_timer ? kTimer : 0);
}

// Where the bars go and how long they are, for `width` columns.
void FitBars(Layout& layout) {
  if (layout.width == 0) return;
  const size_t numbers = NumbersWidth(layout.plugin_timer);
  layout.bars_below = numbers > layout.width / 2;
  const size_t start = layout.bars_below ? kSizeColumnEnd : numbers;
  // One column spare: a line that fills the terminal exactly wraps in some.
  layout.bar_length = layout.width > start + 1 ? layout.width - start - 1 : 1;
}

// The markers padded to their column, each in its colour.
std::string PaintedMarkers(const BandwidthResult& result, bool color) {
  const std::string symbols = MarkersOf(result);
  std::string painted;
  for (char symbol : symbols) {
    const std::string_view sgr = symbol == 'X' ? "1;31" : symbol == '!' ? "33" : "36";
    painted += Paint(std::string(1, symbol), sgr, color);
  }
  return painted + std::string(symbols.size() < 4 ? 4 - symbols.size() : 0, ' ');
}

std::string HeaderRow(const Layout& layout) {
  return fmt::format("  {:>9}  {:>8}  {:>15}  {}{:>8}  {:>6}\n", "size", "median", "p5–p95",
                     layout.plugin_timer ? fmt::format("{:>8}  ", "timer") : "", "ceiling",
                     "ratio");
}

// The row of one size: numbers, markers and the bar.
std::string SizeRow(const BandwidthResult& result, const Layout& layout) {
  const std::string size = FormatByteSize(result.bytes);
  if (result.error) {
    return fmt::format("  {:>9}  not measured: {}", size, OneLine(*result.error));
  }
  if (result.not_measurable) {
    return fmt::format("  {:>9}  not measurable: {}", size, OneLine(*result.not_measurable));
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
  const std::string bar =
      layout.bars_below ? "" : Bar(result.gbps.median, layout.largest_median, layout.bar_length);
  std::string row = fmt::format(
      "  {:>9}  {:>8}  {:>15}  {}{:>8}  {:>6}  {} {}", size, FormatMeasurement(result.gbps.median),
      range, timer, FormatMeasurement(result.ceiling_gbps), Percent(result.ratio_to_ceiling),
      PaintedMarkers(result, layout.color), bar);
  // No trailing spaces where no bar follows.
  row.erase(row.find_last_not_of(' ') + 1);
  return row;
}

// The bars of a block under its numbers, one per size, when the numbers
// leave too little of the line beside them.
void WriteBarChart(std::string& out, const Series& series, const Layout& layout) {
  if (std::none_of(series.results.begin(), series.results.end(),
                   [](const BandwidthResult* result) { return HasNumbers(*result); })) {
    return;  // no bar to draw
  }
  out += '\n';
  for (const BandwidthResult* result : series.results) {
    if (!HasNumbers(*result)) continue;
    out += fmt::format("  {:>9}  {}\n", FormatByteSize(result->bytes),
                       Bar(result->gbps.median, layout.largest_median, layout.bar_length));
  }
}

void WriteSeries(std::string& out, const Series& series, const Layout& layout) {
  out += fmt::format("\n{}\n", Paint(SeriesName(series.key), "1", layout.color));
  out += HeaderRow(layout);
  const std::vector<const BandwidthResult*>& results = series.results;
  for (size_t i = 0; i < results.size(); ++i) {
    Put(out, SizeRow(*results[i], layout), layout.width, kSizeColumnEnd + 2);
    // The sizes after it that were not measured for the same reason (a
    // run that stopped: every size left) are one line, not one each.
    size_t alike = 0;
    while (results[i]->error && i + alike + 1 < results.size() &&
           results[i + alike + 1]->error == results[i]->error) {
      ++alike;
    }
    if (alike >= kFewestFoldedRows) {
      Put(out,
          fmt::format("  {:>9}  not measured, the same: {} more sizes, {} to {}", "…", alike,
                      FormatByteSize(results[i + 1]->bytes),
                      FormatByteSize(results[i + alike]->bytes)),
          layout.width, kSizeColumnEnd + 2);
      i += alike;
    }
  }
  if (layout.bars_below) WriteBarChart(out, series, layout);
  // The warnings and verification failures in words, under the block,
  // each wrapped to go on after its marker.
  const size_t notes_start = out.size();
  for (const BandwidthResult* result : series.results) {
    const std::string size = FormatByteSize(result->bytes);
    if (result->verification.failed()) {
      out += fmt::format("  {:>9}  X verification {}\n", size,
                         OneLine(result->verification.Describe()));
    } else if (result->verification.status == VerificationStatus::kNotVerified) {
      out += fmt::format("  {:>9}  ? {}\n", size, OneLine(result->verification.Describe()));
    }
    for (const std::string& warning : result->warnings) {
      out += fmt::format("  {:>9}  ! {}\n", size, OneLine(warning));
    }
  }
  out.replace(
      notes_start, std::string::npos,
      WrapText(std::string_view(out).substr(notes_start), layout.width, kSizeColumnEnd + 2));
}

void WriteLegend(std::string& out, const std::vector<BandwidthResult>& results,
                 const Layout& layout) {
  std::string legend;
  for (const Marker& marker : kMarkers) {
    const bool used = std::any_of(results.begin(), results.end(), [&marker](const auto& result) {
      return HasNumbers(result) && marker.applies(result);
    });
    if (used) legend += fmt::format("  {}  {}\n", marker.symbol, marker.meaning);
  }
  out += WrapText(
      "\nBandwidth in GB/s (10^9 bytes/s) by the host's clock; ceiling is the host's own "
      "memcpy at the same size; bars share one scale.\n",
      layout.width, 0);
  if (layout.plugin_timer) {
    out +=
        WrapText("timer: the median by the plugin's own timers (SP_TimerFns).\n", layout.width, 0);
  }
  // A wrapped meaning goes on after its marker.
  if (!legend.empty()) out += "Markers:\n" + WrapText(legend, layout.width, 5);
  if (std::any_of(results.begin(), results.end(),
                  [](const auto& result) { return result.not_measurable.has_value(); })) {
    out += WrapText(
        "not measurable: what the clock measured is no bandwidth (the copies' completion was "
        "signalled before their bytes arrived, rests on a function known broken, or is faster "
        "than any machine can copy); sectl bench exits with status 1.\n",
        layout.width, 0);
  }
}

void WriteMemcpy(std::string& out, const BenchReport& report, const BenchTableStyle& style) {
  if (report.results.empty()) {
    out += "\nNo results.\n";
    return;
  }
  Layout layout{
      .largest_median = LargestMedian(report.results),
      .plugin_timer = std::any_of(report.results.begin(), report.results.end(),
                                  [](const auto& result) { return result.plugin_timer_gbps; }),
      .color = style.color,
      .width = style.width};
  FitBars(layout);
  for (const Series& series : GroupIntoSeries(report.results)) WriteSeries(out, series, layout);
  WriteLegend(out, report.results, layout);
}

void WriteLatency(std::string& out, const BenchReport& report, size_t width) {
  if (report.latency.empty()) {
    out += "\nNo results.\n";
    return;
  }
  size_t name_width = std::string_view("operation").size();
  for (const LatencyResult& latency : report.latency) {
    name_width = std::max(name_width, DisplayWidth(OneLine(latency.operation)));
  }
  // What is timed, or why nothing was, goes on in its own column where the
  // line leaves room for one, else under the row's numbers.
  auto row = [&out, width](const std::string& cells, std::string_view text) {
    out += LayOutRow(cells, text, width, kLatencyTextBelow) + "\n";
  };
  out += "\n";
  row(fmt::format("  {:<{}}  {:>10}  {:>10}  {:>8}  ", "operation", name_width, "median ns",
                  "p95 ns", "samples"),
      "what is timed");
  for (const LatencyResult& latency : report.latency) {
    const std::string name = fmt::format("  {:<{}}  ", OneLine(latency.operation), name_width);
    if (latency.not_measurable) {
      row(name, "not measurable: " + OneLine(*latency.not_measurable));
    } else if (latency.error) {
      row(name, "not measured: " + OneLine(*latency.error));
    } else {
      row(fmt::format("{}{:>10}  {:>10}  {:>8}  ", name, FormatMeasurement(latency.ns.median),
                      FormatMeasurement(latency.ns.p95), latency.ns.samples),
          OneLine(latency.description));
    }
  }
  out += "\nNanoseconds per operation by the host's monotonic clock.\n";
  if (std::any_of(report.latency.begin(), report.latency.end(),
                  [](const auto& latency) { return latency.not_measurable.has_value(); })) {
    out += WrapText(
        "not measurable: the operation never completed, so it has no latency; sectl bench "
        "exits with status 1.\n",
        width, 0);
  }
}

}  // namespace

std::string RenderBenchTable(const BenchReport& report, const BenchTableStyle& style) {
  std::string out;
  WriteHeader(out, report, style.width);
  if (report.stopped) {
    out += "\n";
    Put(out,
        Paint(fmt::format("THE BENCH STOPPED EARLY: {}", OneLine(*report.stopped)), "1;33",
              style.color),
        style.width, 2);
    Put(out,
        "The steps it did not begin are not measured (their rows say so); sectl bench exits "
        "with status 1.",
        style.width, 0);
  }
  if (report.kind == "latency") {
    WriteLatency(out, report, style.width);
  } else {
    WriteMemcpy(out, report, style);
  }
  return out;
}

}  // namespace sectl::bench
