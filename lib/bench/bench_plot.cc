#include "bench/bench_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <pugixml.hpp>
#include <string_view>
#include <utility>
#include <vector>

#include "base/byte_sizes.h"
#include "base/text.h"
#include "bench/bench_series.h"

namespace sectl::bench {
namespace {

// The canvas, in SVG user units (pixels at 100% zoom).
constexpr double kWidth = 1000;
constexpr double kHeight = 620;
constexpr double kPlotLeft = 80;
constexpr double kPlotRight = 740;  // the legend is to the right of it
constexpr double kPlotTop = 80;
constexpr double kPlotBottom = 550;
constexpr int kMostXTicks = 12;
constexpr int kAboutYTicks = 6;

// Okabe and Ito's colours, told apart by people with any colour vision.
constexpr std::array<std::string_view, 7> kColours = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                                      "#E69F00", "#56B4E9", "#000000"};
// After seven paths the colours repeat, so the lines change dash instead.
constexpr std::array<std::string_view, 3> kDashes = {"", "8 4", "2 3"};
constexpr std::string_view kCeilingColour = "#777777";
// Failed verification, drawn over the marker in every series alike.
constexpr std::string_view kFailedColour = "#D00000";

// Collects pugixml's output.
class StringWriter : public pugi::xml_writer {
 public:
  void write(const void* data, size_t size) override {
    text_.append(static_cast<const char*>(data), size);
  }
  std::string Take() { return std::move(text_); }

 private:
  std::string text_;
};

std::string Coordinate(double value) { return fmt::format("{:.1f}", value); }

// An element with attributes; text set separately where there is any.
pugi::xml_node Add(pugi::xml_node parent, const char* name,
                   std::initializer_list<std::pair<const char*, std::string>> attributes) {
  pugi::xml_node node = parent.append_child(name);
  for (const auto& [key, value] : attributes) node.append_attribute(key).set_value(value.c_str());
  return node;
}

// Text from the report, safe in XML 1.0 (pugixml escapes the markup).
void SetText(pugi::xml_node node, std::string_view text) { node.text().set(OneLine(text).c_str()); }

pugi::xml_node AddText(pugi::xml_node parent, double x, double y, std::string_view text,
                       std::initializer_list<std::pair<const char*, std::string>> style = {}) {
  pugi::xml_node node = Add(parent, "text", {{"x", Coordinate(x)}, {"y", Coordinate(y)}});
  for (const auto& [key, value] : style) node.append_attribute(key).set_value(value.c_str());
  SetText(node, text);
  return node;
}

// Maps sizes (log2) and bandwidths (linear from 0) onto the plot area.
class Axes {
 public:
  Axes(int lowest_power, int highest_power, double top_gbps, double gbps_step)
      : lowest_power_(lowest_power),
        highest_power_(highest_power),
        top_gbps_(top_gbps),
        gbps_step_(gbps_step) {}

  double X(uint64_t bytes) const {
    const double span = highest_power_ - lowest_power_;
    return kPlotLeft + (std::log2(static_cast<double>(bytes)) - lowest_power_) / span *
                           (kPlotRight - kPlotLeft);
  }
  double Y(double gbps) const {
    return kPlotBottom - std::clamp(gbps / top_gbps_, 0.0, 1.0) * (kPlotBottom - kPlotTop);
  }

  int lowest_power() const { return lowest_power_; }
  int highest_power() const { return highest_power_; }
  double top_gbps() const { return top_gbps_; }
  double gbps_step() const { return gbps_step_; }

 private:
  int lowest_power_;
  int highest_power_;
  double top_gbps_;
  double gbps_step_;
};

// A step of 1, 2 or 5 times a power of ten that divides 0..largest into
// about kAboutYTicks parts.
double NiceStep(double largest) {
  const double raw = largest / kAboutYTicks;
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  for (double multiple : {1.0, 2.0, 5.0}) {
    if (raw <= multiple * magnitude) return multiple * magnitude;
  }
  return 10 * magnitude;
}

// The ceiling per size: the report's own list, or else what the results
// carry.
std::vector<std::pair<uint64_t, double>> CeilingPoints(const BenchReport& report) {
  std::vector<std::pair<uint64_t, double>> points;
  for (const CeilingResult& ceiling : report.ceiling) {
    points.emplace_back(ceiling.bytes, ceiling.gbps.median);
  }
  if (points.empty()) {
    for (const BandwidthResult& result : report.results) {
      if (!result.error && result.ceiling_gbps > 0 && std::isfinite(result.ceiling_gbps)) {
        points.emplace_back(result.bytes, result.ceiling_gbps);
      }
    }
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end(),
                           [](const auto& a, const auto& b) { return a.first == b.first; }),
               points.end());
  std::erase_if(points, [](const auto& point) {
    return point.first == 0 || !std::isfinite(point.second) || point.second <= 0;
  });
  return points;
}

bool Plottable(const BandwidthResult& result) { return HasNumbers(result) && result.bytes > 0; }

// Hollow: a number not to be taken at face value. Failed and unverified
// copies have markers of their own.
bool Flagged(const BandwidthResult& result) { return !result.stable || !result.warnings.empty(); }

bool NotVerified(const BandwidthResult& result) {
  return result.verification.status == VerificationStatus::kNotVerified;
}

Axes ChooseAxes(const BenchReport& report,
                const std::vector<std::pair<uint64_t, double>>& ceiling) {
  uint64_t smallest = 0;
  uint64_t largest = 0;
  double top = 0;
  auto include = [&](uint64_t bytes, double gbps) {
    smallest = smallest == 0 ? bytes : std::min(smallest, bytes);
    largest = std::max(largest, bytes);
    if (std::isfinite(gbps)) top = std::max(top, gbps);
  };
  for (const BandwidthResult& result : report.results) {
    if (!Plottable(result)) continue;
    include(result.bytes, result.gbps.median);
    top = std::max(top, std::isfinite(result.gbps.p95) ? result.gbps.p95 : 0.0);
  }
  for (const auto& [bytes, gbps] : ceiling) include(bytes, gbps);
  if (smallest == 0) smallest = largest = 1;
  // Whole powers of two around the sizes, at least one apart, and each a
  // size a uint64_t can hold.
  int lowest_power = static_cast<int>(std::floor(std::log2(static_cast<double>(smallest))));
  int highest_power = static_cast<int>(std::ceil(std::log2(static_cast<double>(largest))));
  highest_power = std::clamp(highest_power, 1, 63);
  lowest_power = std::clamp(lowest_power, 0, highest_power - 1);
  if (!(top > 0)) top = 1;
  const double step = NiceStep(top);
  return Axes(lowest_power, highest_power, std::ceil(top / step) * step, step);
}

void DrawAxes(pugi::xml_node svg, const Axes& axes) {
  pugi::xml_node grid = Add(svg, "g", {{"stroke", "#dddddd"}, {"stroke-width", "1"}});
  pugi::xml_node labels = Add(svg, "g", {{"font-size", "12"}, {"fill", "#333333"}});
  // A grid line at every power of two; a label at every one, or every
  // second, fourth ... when they would crowd.
  int stride = 1;
  while ((axes.highest_power() - axes.lowest_power()) / stride > kMostXTicks) stride *= 2;
  for (int power = axes.lowest_power(); power <= axes.highest_power(); ++power) {
    const uint64_t bytes = uint64_t{1} << power;
    const double x = axes.X(bytes);
    Add(grid, "line",
        {{"x1", Coordinate(x)},
         {"y1", Coordinate(kPlotTop)},
         {"x2", Coordinate(x)},
         {"y2", Coordinate(kPlotBottom)}});
    if ((power - axes.lowest_power()) % stride == 0) {
      AddText(labels, x, kPlotBottom + 18, FormatByteSize(bytes), {{"text-anchor", "middle"}});
    }
  }
  const int y_ticks = static_cast<int>(std::lround(axes.top_gbps() / axes.gbps_step()));
  for (int tick = 0; tick <= y_ticks; ++tick) {
    const double gbps = tick * axes.gbps_step();
    const double y = axes.Y(gbps);
    Add(grid, "line",
        {{"x1", Coordinate(kPlotLeft)},
         {"y1", Coordinate(y)},
         {"x2", Coordinate(kPlotRight)},
         {"y2", Coordinate(y)}});
    AddText(labels, kPlotLeft - 8, y + 4, fmt::format("{:g}", gbps), {{"text-anchor", "end"}});
  }
  Add(svg, "rect",
      {{"x", Coordinate(kPlotLeft)},
       {"y", Coordinate(kPlotTop)},
       {"width", Coordinate(kPlotRight - kPlotLeft)},
       {"height", Coordinate(kPlotBottom - kPlotTop)},
       {"fill", "none"},
       {"stroke", "#333333"}});
  AddText(svg, (kPlotLeft + kPlotRight) / 2, kPlotBottom + 45, "copy size (log scale)",
          {{"text-anchor", "middle"}, {"font-size", "14"}});
  const double middle = (kPlotTop + kPlotBottom) / 2;
  AddText(svg, 22, middle, "bandwidth, GB/s (10^9 bytes/s)",
          {{"text-anchor", "middle"},
           {"font-size", "14"},
           {"transform", fmt::format("rotate(-90 22 {})", Coordinate(middle))}});
}

std::string Points(const std::vector<std::pair<double, double>>& points) {
  std::string text;
  for (const auto& [x, y] : points) {
    if (!text.empty()) text += ' ';
    text += Coordinate(x) + "," + Coordinate(y);
  }
  return text;
}

std::string Tooltip(const Series& series, const BandwidthResult& result) {
  std::string text = fmt::format(
      "{} {}: median {} GB/s, p5 {}, p95 {}, ceiling {} GB/s ({:.0f}%), {} samples",
      SeriesName(series.key), FormatByteSize(result.bytes), FormatMeasurement(result.gbps.median),
      FormatMeasurement(result.gbps.p5), FormatMeasurement(result.gbps.p95),
      FormatMeasurement(result.ceiling_gbps), result.ratio_to_ceiling * 100, result.gbps.samples);
  if (!result.stable) text += "; unstable";
  text += "; verification " + result.verification.Describe();
  for (const std::string& warning : result.warnings) text += "; " + warning;
  return text;
}

// A red cross, over a marker or in the legend.
void DrawCross(pugi::xml_node parent, double x, double y, double half) {
  Add(parent, "path",
      {{"class", "failed-cross"},
       {"d", fmt::format("M{0},{1} L{2},{3} M{0},{3} L{2},{1}", Coordinate(x - half),
                         Coordinate(y - half), Coordinate(x + half), Coordinate(y + half))},
       {"stroke", std::string(kFailedColour)},
       {"stroke-width", "3"},
       {"stroke-linecap", "round"},
       {"fill", "none"},
       {"pointer-events", "none"}});  // hovering shows the marker's tooltip
}

// The marker of one result: a circle, filled unless flagged; a hollow dashed
// square for a copy that could not be verified; a red cross over the marker
// of one that failed.
// Returns the marker's title, for its tooltip.
pugi::xml_node DrawMarker(pugi::xml_node parent, double x, double y, const std::string& colour,
                          const BandwidthResult& result) {
  // A square is always hollow: its dashed outline is what tells it apart.
  const std::string fill = Flagged(result) || NotVerified(result) ? "#ffffff" : colour;
  std::string verification(VerificationStatusName(result.verification.status));
  std::replace(verification.begin(), verification.end(), '_', '-');
  const std::string kind = "marker verification-" + verification;
  pugi::xml_node marker;
  if (NotVerified(result)) {
    marker = Add(parent, "rect",
                 {{"class", kind},
                  {"x", Coordinate(x - 4.5)},
                  {"y", Coordinate(y - 4.5)},
                  {"width", "9"},
                  {"height", "9"},
                  {"stroke", colour},
                  {"stroke-width", "2"},
                  {"stroke-dasharray", "2 1.5"},
                  {"fill", fill}});
  } else {
    marker = Add(parent, "circle",
                 {{"class", kind},
                  {"cx", Coordinate(x)},
                  {"cy", Coordinate(y)},
                  {"r", "4"},
                  {"stroke", colour},
                  {"stroke-width", "2"},
                  {"fill", fill}});
  }
  if (result.verification.failed()) DrawCross(parent, x, y, 7);
  return Add(marker, "title", {});
}

void DrawSeries(pugi::xml_node svg, const Axes& axes, const Series& series, size_t index) {
  const std::string colour(kColours[index % kColours.size()]);
  const std::string dash(kDashes[(index / kColours.size()) % kDashes.size()]);
  std::vector<const BandwidthResult*> plotted;
  for (const BandwidthResult* result : series.results) {
    if (Plottable(*result)) plotted.push_back(result);
  }
  if (plotted.empty()) return;
  pugi::xml_node group = Add(svg, "g", {{"class", "series"}});
  SetText(Add(group, "title", {}), SeriesName(series.key));

  // The p5–p95 band: along the p95s, then back along the p5s.
  std::vector<std::pair<double, double>> band;
  std::vector<std::pair<double, double>> lower_edge;
  band.reserve(2 * plotted.size());
  lower_edge.reserve(plotted.size());
  for (const BandwidthResult* result : plotted) {
    const Distribution& gbps = result->gbps;
    band.emplace_back(axes.X(result->bytes),
                      axes.Y(std::isfinite(gbps.p95) ? gbps.p95 : gbps.median));
    lower_edge.emplace_back(axes.X(result->bytes),
                            axes.Y(std::isfinite(gbps.p5) ? gbps.p5 : gbps.median));
  }
  band.insert(band.end(), lower_edge.rbegin(), lower_edge.rend());
  Add(group, "polygon",
      {{"points", Points(band)}, {"fill", colour}, {"fill-opacity", "0.15"}, {"stroke", "none"}});

  std::vector<std::pair<double, double>> line;
  line.reserve(plotted.size());
  for (const BandwidthResult* result : plotted) {
    line.emplace_back(axes.X(result->bytes), axes.Y(result->gbps.median));
  }
  pugi::xml_node polyline =
      Add(group, "polyline",
          {{"points", Points(line)}, {"fill", "none"}, {"stroke", colour}, {"stroke-width", "2"}});
  if (!dash.empty()) polyline.append_attribute("stroke-dasharray").set_value(dash.c_str());

  for (const BandwidthResult* result : plotted) {
    SetText(DrawMarker(group, axes.X(result->bytes), axes.Y(result->gbps.median), colour, *result),
            Tooltip(series, *result));
  }
}

void DrawCeiling(pugi::xml_node svg, const Axes& axes,
                 const std::vector<std::pair<uint64_t, double>>& ceiling) {
  if (ceiling.empty()) return;
  std::vector<std::pair<double, double>> line;
  line.reserve(ceiling.size());
  for (const auto& [bytes, gbps] : ceiling) line.emplace_back(axes.X(bytes), axes.Y(gbps));
  pugi::xml_node polyline = Add(svg, "polyline",
                                {{"points", Points(line)},
                                 {"fill", "none"},
                                 {"stroke", std::string(kCeilingColour)},
                                 {"stroke-width", "2"},
                                 {"stroke-dasharray", "6 4"}});
  SetText(Add(polyline, "title", {}), "host memcpy ceiling (median)");
}

// How many results of the report verified to `status`.
size_t CountVerified(const BenchReport& report, VerificationStatus status) {
  return static_cast<size_t>(
      std::count_if(report.results.begin(), report.results.end(), [&](const auto& result) {
        return Plottable(result) && result.verification.status == status;
      }));
}

void DrawLegend(pugi::xml_node svg, const BenchReport& report,
                const std::vector<Series>& all_series, bool has_ceiling) {
  pugi::xml_node legend = Add(svg, "g", {{"font-size", "13"}, {"fill", "#222222"}});
  const double x = kPlotRight + 20;
  double y = kPlotTop + 10;
  auto entry = [&](std::string_view colour, std::string_view dash, std::string_view label) {
    pugi::xml_node sample = Add(legend, "line",
                                {{"x1", Coordinate(x)},
                                 {"y1", Coordinate(y)},
                                 {"x2", Coordinate(x + 28)},
                                 {"y2", Coordinate(y)},
                                 {"stroke", std::string(colour)},
                                 {"stroke-width", "2"}});
    if (!dash.empty())
      sample.append_attribute("stroke-dasharray").set_value(std::string(dash).c_str());
    AddText(legend, x + 36, y + 4, label);
    y += 22;
  };
  for (size_t i = 0; i < all_series.size(); ++i) {
    entry(kColours[i % kColours.size()], kDashes[(i / kColours.size()) % kDashes.size()],
          SeriesName(all_series[i].key));
  }
  if (has_ceiling) entry(kCeilingColour, "6 4", "host memcpy ceiling");
  y += 10;
  AddText(legend, x, y, "line: median; band: p5–p95", {{"font-size", "12"}});
  y += 20;
  // A sample of each kind of marker, beside what it means.
  const auto marker_entry = [&](VerificationStatus status, bool flagged, std::string_view label,
                                std::initializer_list<std::pair<const char*, std::string>> style) {
    BandwidthResult sample;
    sample.stable = !flagged;
    sample.verification.status = status;
    SetText(DrawMarker(legend, x + 14, y - 4, "#555555", sample), label);
    AddText(legend, x + 36, y, label, style);
    y += 20;
  };
  marker_entry(VerificationStatus::kPassed, true, "unstable, or a warning", {{"font-size", "12"}});
  if (CountVerified(report, VerificationStatus::kNotVerified) > 0) {
    marker_entry(VerificationStatus::kNotVerified, false, "not verified (hover for why)",
                 {{"font-size", "12"}});
  }
  if (CountVerified(report, VerificationStatus::kFailed) > 0) {
    marker_entry(
        VerificationStatus::kFailed, false, "verification failed:",
        {{"font-size", "12"}, {"font-weight", "bold"}, {"fill", std::string(kFailedColour)}});
    AddText(legend, x + 36, y - 4, "the bytes read back differ",
            {{"font-size", "12"}, {"font-weight", "bold"}, {"fill", std::string(kFailedColour)}});
    y += 16;
  }
  AddText(legend, x, y + 6, "hover a marker for its numbers", {{"font-size", "12"}});
}

// Under the title, a line no one can miss when copies moved wrong bytes, or
// could not be checked: the bandwidth of such copies means little.
void DrawVerificationCaption(pugi::xml_node svg, const BenchReport& report) {
  const size_t failed = CountVerified(report, VerificationStatus::kFailed);
  const size_t not_verified = CountVerified(report, VerificationStatus::kNotVerified);
  if (failed > 0) {
    pugi::xml_node caption = AddText(
        svg, kPlotLeft, 70,
        fmt::format("✕ {} of {} results failed verification: the bytes read back "
                    "differ{}",
                    failed, report.results.size(),
                    not_verified > 0 ? fmt::format("; {} not verified", not_verified) : ""),
        {{"font-size", "13"}, {"font-weight", "bold"}, {"fill", std::string(kFailedColour)}});
    caption.append_attribute("class").set_value("verification-caption");
  } else if (not_verified > 0) {
    pugi::xml_node caption = AddText(
        svg, kPlotLeft, 70,
        fmt::format("{} of {} results not verified: no verified way was left to read them back "
                    "(hover a square marker for why)",
                    not_verified, report.results.size()),
        {{"font-size", "13"}, {"fill", "#555555"}});
    caption.append_attribute("class").set_value("verification-caption");
  }
}

// At most kLongestCaptionReason characters of `text`, cut at a space: what
// fits under the title.
std::string Shortened(std::string_view text) {
  constexpr size_t kLongestCaptionReason = 90;
  if (text.size() <= kLongestCaptionReason) return std::string(text);
  const size_t cut = text.rfind(' ', kLongestCaptionReason);
  return std::string(text.substr(0, cut == std::string_view::npos ? kLongestCaptionReason : cut)) +
         "…";
}

// Under the title (below the verification caption, if any), the results
// that are no bandwidth and the first reason why; each one's reason in the
// caption's tooltip. They have no marker: there is no number to place.
void DrawNotMeasurableCaption(pugi::xml_node svg, const BenchReport& report) {
  std::vector<const BandwidthResult*> not_measurable;
  for (const BandwidthResult& result : report.results) {
    if (result.not_measurable) not_measurable.push_back(&result);
  }
  if (not_measurable.empty()) return;
  const bool below_verification = CountVerified(report, VerificationStatus::kFailed) > 0 ||
                                  CountVerified(report, VerificationStatus::kNotVerified) > 0;
  pugi::xml_node caption =
      AddText(svg, kPlotLeft, below_verification ? 88 : 70,
              fmt::format("✕ {} of {} results not measurable, not plotted: {} (hover for all)",
                          not_measurable.size(), report.results.size(),
                          Shortened(*not_measurable.front()->not_measurable)),
              {{"font-size", "13"}, {"font-weight", "bold"}, {"fill", std::string(kFailedColour)}});
  caption.append_attribute("class").set_value("not-measurable-caption");
  std::string every;
  for (const BandwidthResult* result : not_measurable) {
    if (!every.empty()) every += "; ";
    every += fmt::format("{} {}: not measurable: {}", SeriesName(SeriesKeyOf(*result)),
                         FormatByteSize(result->bytes), *result->not_measurable);
  }
  SetText(Add(caption, "title", {}), every);
}

void DrawTitle(pugi::xml_node svg, const BenchReport& report) {
  std::string device = fmt::format("{} device {}", report.platform_name, report.device_ordinal);
  if (!report.device_name.empty()) device += fmt::format(" \"{}\"", report.device_name);
  AddText(svg, kPlotLeft, 30, fmt::format("Copy bandwidth — {}", device),
          {{"font-size", "18"}, {"font-weight", "bold"}});
  AddText(svg, kPlotLeft, 52,
          fmt::format("{} · {} {} · {} host thread{} · {}", report.plugin_path,
                      report.host.cpu_model.empty() ? report.host.machine : report.host.cpu_model,
                      report.host.kernel, report.threads, report.threads == 1 ? "" : "s",
                      report.started_at),
          {{"font-size", "12"}, {"fill", "#555555"}});
}

}  // namespace

std::string RenderBandwidthSvg(const BenchReport& report) {
  pugi::xml_document document;
  pugi::xml_node svg = Add(document, "svg",
                           {{"xmlns", "http://www.w3.org/2000/svg"},
                            {"width", Coordinate(kWidth)},
                            {"height", Coordinate(kHeight)},
                            {"viewBox", fmt::format("0 0 {} {}", kWidth, kHeight)},
                            {"font-family", "sans-serif"}});
  SetText(Add(svg, "title", {}),
          fmt::format("sectl bench {}: {}", report.kind, report.plugin_path));
  Add(svg, "rect", {{"width", "100%"}, {"height", "100%"}, {"fill", "#ffffff"}});
  DrawTitle(svg, report);

  const std::vector<std::pair<uint64_t, double>> ceiling = CeilingPoints(report);
  const Axes axes = ChooseAxes(report, ceiling);
  DrawAxes(svg, axes);
  const std::vector<Series> all_series = GroupIntoSeries(report.results);
  const bool any_plottable = std::any_of(report.results.begin(), report.results.end(), Plottable);
  if (!any_plottable) {
    AddText(svg, (kPlotLeft + kPlotRight) / 2, (kPlotTop + kPlotBottom) / 2,
            report.kind == "latency"   ? "a latency report has no bandwidth to plot"
            : AnyNotMeasurable(report) ? "no bandwidth was measurable"
                                       : "no bandwidth was measured",
            {{"text-anchor", "middle"}, {"font-size", "16"}});
  }
  DrawCeiling(svg, axes, ceiling);
  for (size_t i = 0; i < all_series.size(); ++i) DrawSeries(svg, axes, all_series[i], i);
  DrawLegend(svg, report, all_series, !ceiling.empty());
  DrawVerificationCaption(svg, report);
  DrawNotMeasurableCaption(svg, report);

  StringWriter writer;
  document.save(writer, "  ", pugi::format_default, pugi::encoding_utf8);
  return writer.Take();
}

}  // namespace sectl::bench
