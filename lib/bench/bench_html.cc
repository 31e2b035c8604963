#include "bench/bench_html.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string_view>
#include <vector>

#include "base/byte_sizes.h"
#include "bench/bench_plot.h"
#include "bench/bench_series.h"
#include "report/html_page.h"

namespace sectl::bench {
namespace {

using report::HtmlWriter;

constexpr size_t kShownHashLength = 16;  // of the plugin's SHA-256 in the header

constexpr std::string_view kBenchStyle = R"css(
.plot { margin: 8px 0 16px; overflow-x: auto; }
.plot svg { max-width: 100%; height: auto; border: 1px solid var(--line); border-radius: 6px; }
tr.series th { background: #eef1f6; color: var(--fg); font-size: 14px; }
tr.flagged td { background: #fdecec; }
.notes .tag { margin: 0 4px 2px 0; }
.notes div { white-space: pre-wrap; }
)css";

bool VerificationFailed(const BandwidthResult& result) { return result.verification.failed(); }

bool VerificationSkipped(const BandwidthResult& result) {
  return result.verification.status == VerificationStatus::kSkipped;
}

// Whether the run would make `sectl bench` fail on its own (bench_command.cc:
// a copy that was not verified fails it), and what there is to say first.
struct Verdict {
  std::string css_class;  // good, bad, unsure
  std::string headline;
  std::string why;
};

// A run that stopped before its last step (step_deadline.h).
std::optional<Verdict> StoppedEarly(const BenchReport& report) {
  if (!report.stopped) return std::nullopt;
  return Verdict{"bad", "Stopped early",
                 *report.stopped + "; the steps it did not begin are not measured"};
}

Verdict JudgeMemcpy(const BenchReport& report) {
  const auto failed = std::count_if(report.results.begin(), report.results.end(),
                                    [](const auto& result) { return VerificationFailed(result); });
  const auto unmeasured =
      std::count_if(report.results.begin(), report.results.end(),
                    [](const auto& result) { return result.error.has_value(); });
  const auto skipped =
      std::count_if(report.results.begin(), report.results.end(),
                    [](const auto& result) { return VerificationSkipped(result); });
  const auto not_verified =
      std::count_if(report.results.begin(), report.results.end(), [](const auto& result) {
        return result.verification.status == VerificationStatus::kNotVerified;
      });
  const auto not_measurable =
      std::count_if(report.results.begin(), report.results.end(),
                    [](const auto& result) { return result.not_measurable.has_value(); });
  if (failed > 0) {
    return {"bad", "Verification failed",
            fmt::format("{} of {} results copied the wrong bytes", failed, report.results.size())};
  }
  if (not_measurable > 0) {
    return {"bad", "Not measurable",
            fmt::format("{} of {} results are no bandwidth: the plugin's completion of its "
                        "copies cannot be believed (see the notes)",
                        not_measurable, report.results.size())};
  }
  if (auto stopped = StoppedEarly(report)) return *stopped;
  if (report.results.empty() || unmeasured == static_cast<long>(report.results.size())) {
    return {"unsure", "Nothing measured", "no copy path could be measured"};
  }
  std::string why = fmt::format("{} results", report.results.size());
  if (unmeasured > 0) why += fmt::format(", {} not measured", unmeasured);
  if (skipped > 0) {
    return {"unsure", "Measured, not verified", why + "; copies were not verified (--no-verify)"};
  }
  if (not_verified > 0) {
    return {"unsure", "Measured, partly verified",
            why + fmt::format("; {} could not be verified (see the notes)", not_verified)};
  }
  // Verified bytes say nothing of whether the numbers can be trusted: a
  // page of mostly unsettled medians gets no green banner.
  const auto measured = std::count_if(report.results.begin(), report.results.end(),
                                      [](const auto& result) { return HasNumbers(result); });
  const auto unstable =
      std::count_if(report.results.begin(), report.results.end(),
                    [](const auto& result) { return HasNumbers(result) && !result.stable; });
  if (2 * unstable > measured) {
    return {"unsure", "Verified, but mostly unstable",
            why + fmt::format("; the median of {} of {} measured results had not settled "
                              "(unstable): measure again on a quieter machine",
                              unstable, measured)};
  }
  if (unstable > 0) why += fmt::format(", {} unstable", unstable);
  return {"good", "Every copy verified", why};
}

Verdict JudgeLatency(const BenchReport& report) {
  const auto not_measurable =
      std::count_if(report.latency.begin(), report.latency.end(),
                    [](const auto& result) { return result.not_measurable.has_value(); });
  if (not_measurable > 0) {
    return {
        "bad",
        fmt::format("{} of {} operations not measurable", not_measurable, report.latency.size()),
        "they never complete (see the table)"};
  }
  if (auto stopped = StoppedEarly(report)) return *stopped;
  const auto unmeasured =
      std::count_if(report.latency.begin(), report.latency.end(),
                    [](const auto& result) { return result.error.has_value(); });
  if (unmeasured == 0 && !report.latency.empty()) {
    return {"good", "Every operation measured",
            fmt::format("{} operations", report.latency.size())};
  }
  return {"unsure",
          fmt::format("{} of {} operations not measured", unmeasured, report.latency.size()),
          "the plugin lacks them, or a call failed (see the table)"};
}

void Fact(HtmlWriter& out, std::string_view label, std::string_view value,
          std::string_view css_class = "") {
  if (value.empty()) return;
  out.Element("dt", label);
  out.Element("dd", value, {{"class", std::string(css_class)}});
}

void WriteHeader(HtmlWriter& out, const BenchReport& report) {
  out.Element("h1", fmt::format("sectl bench {}", report.kind));
  out.Element("p", report.plugin_path, {{"class", "subtitle mono"}});
  const Verdict verdict = report.kind == "latency" ? JudgeLatency(report) : JudgeMemcpy(report);
  out.Open("div", {{"class", "verdict " + verdict.css_class}, {"id", "verdict"}});
  out.Text(verdict.headline);
  out.Element("div", verdict.why, {{"class", "why"}});
  out.Close("div");
}

void WriteRunFacts(HtmlWriter& out, const BenchReport& report) {
  out.Element("h2", "Run");
  out.Open("dl", {{"class", "facts"}});
  std::string device = fmt::format("{} device {}", report.platform_name, report.device_ordinal);
  if (!report.device_name.empty()) device += fmt::format(" \"{}\"", report.device_name);
  Fact(out, "Device", device);
  const std::string& sha256 = report.plugin_sha256;
  Fact(out, "SHA-256",
       sha256.size() > kShownHashLength ? sha256.substr(0, kShownHashLength) + "…" : sha256,
       "mono");
  const HostInfo& host = report.host;
  Fact(out, "Host",
       fmt::format("{} {} {}{}", host.os, host.kernel, host.machine,
                   host.cpu_model.empty() ? "" : ", " + host.cpu_model));
  Fact(out, "Host threads", std::to_string(report.threads));
  if (report.runs > 1) Fact(out, "Runs", fmt::format("{} (medians of the runs)", report.runs));
  // Also where a worse verdict (a failed verification) heads the page.
  if (report.stopped) Fact(out, "Stopped early", *report.stopped);
  Fact(out, "Started", report.started_at);
  Fact(out, "Duration", fmt::format("{:.1f} s", report.duration_s));
  std::string command_line;
  for (const std::string& word : report.command_line) {
    command_line += (command_line.empty() ? "" : " ") + word;
  }
  Fact(out, "Command", command_line, "mono");
  Fact(out, "Measured by", fmt::format("{} {}", report.tool_name, report.tool_version));
  out.Close("dl");
}

// The plot's SVG document without its XML declaration, which HTML does not
// take; the plot escaped every text from the report itself (pugixml).
std::string InlineSvg(const BenchReport& report) {
  std::string svg = RenderBandwidthSvg(report);
  if (svg.starts_with("<?xml")) svg.erase(0, svg.find("?>") + 2);
  return svg;
}

void WriteNotes(HtmlWriter& out, const BandwidthResult& result) {
  out.Open("td", {{"class", "notes"}});
  if (result.error) {
    out.Element("span", "not measured", {{"class", "tag flag"}});
    out.Element("div", *result.error);
  }
  if (result.not_measurable) {
    out.Element("span", "not measurable", {{"class", "tag flag"}});
    out.Element("div", *result.not_measurable);
  }
  switch (result.verification.status) {
    case VerificationStatus::kFailed:
      out.Element("span", "verification failed", {{"class", "tag flag"}});
      out.Element("div", result.verification.reason);
      break;
    case VerificationStatus::kNotVerified:
      out.Element("span", "not verified", {{"class", "tag note"}});
      out.Element("div", result.verification.reason);
      break;
    case VerificationStatus::kSkipped:
      out.Element("span", "not verified (--no-verify)", {{"class", "tag note"}});
      break;
    case VerificationStatus::kPassed:
      break;
  }
  if (HasNumbers(result) && !result.stable)
    out.Element("span", "unstable", {{"class", "tag note"}});
  for (const std::string& warning : result.warnings) {
    out.Element("span", "warning", {{"class", "tag note"}});
    out.Element("div", warning);
  }
  out.Close("td");
}

void WriteMemcpyTable(HtmlWriter& out, const BenchReport& report) {
  const bool plugin_timer =
      std::any_of(report.results.begin(), report.results.end(),
                  [](const auto& result) { return result.plugin_timer_gbps; });
  out.Element("h2", "Results");
  out.Element("p",
              "GB/s are 10^9 bytes/s by the host's monotonic clock: the median, and the p5–p95 "
              "range of the samples. Unstable: the median had not settled when the time budget "
              "ran out.",
              {{"class", "muted"}});
  out.Open("table", {{"class", "results"}});
  out.Raw(fmt::format(
      "<thead><tr><th class=\"number\">Size</th><th class=\"number\">Median GB/s</th>"
      "<th class=\"number\">p5–p95</th>{}<th class=\"number\">Host memcpy</th>"
      "<th class=\"number\">Of host</th><th class=\"number\">Samples</th><th>Notes</th></tr>"
      "</thead>",
      plugin_timer ? "<th class=\"number\">Plugin timer</th>" : ""));
  const int columns = plugin_timer ? 8 : 7;
  for (const Series& series : GroupIntoSeries(report.results)) {
    out.Open("tbody");
    out.Open("tr", {{"class", "series"}});
    out.Element("th", SeriesName(series.key), {{"colspan", std::to_string(columns)}});
    out.Close("tr");
    for (const BandwidthResult* result : series.results) {
      const bool flagged = VerificationFailed(*result) || !HasNumbers(*result);
      out.Open("tr", {{"class", flagged ? "flagged" : ""}});
      out.Element("td", FormatByteSize(result->bytes), {{"class", "number"}});
      if (!HasNumbers(*result)) {
        out.Element("td", "—", {{"class", "number"}});
        out.Element("td", "", {{"class", "number"}});
      } else {
        out.Element("td", FormatMeasurement(result->gbps.median), {{"class", "number"}});
        out.Element("td",
                    fmt::format("{} – {}", FormatMeasurement(result->gbps.p5),
                                FormatMeasurement(result->gbps.p95)),
                    {{"class", "number"}});
      }
      if (plugin_timer) {
        out.Element(
            "td",
            result->plugin_timer_gbps ? FormatMeasurement(result->plugin_timer_gbps->median) : "",
            {{"class", "number"}});
      }
      out.Element("td", FormatMeasurement(result->ceiling_gbps), {{"class", "number"}});
      out.Element("td",
                  HasNumbers(*result) ? fmt::format("{:.0f}%", result->ratio_to_ceiling * 100) : "",
                  {{"class", "number"}});
      out.Element("td", std::to_string(result->gbps.samples), {{"class", "number"}});
      WriteNotes(out, *result);
      out.Close("tr");
    }
    out.Close("tbody");
  }
  out.Close("table");
}

void WriteLatencyTable(HtmlWriter& out, const BenchReport& report) {
  out.Element("h2", "Results");
  out.Element("p", "Nanoseconds per operation by the host's monotonic clock.",
              {{"class", "muted"}});
  out.Open("table", {{"class", "results"}});
  out.Raw(
      "<thead><tr><th>Operation</th><th>What is timed</th><th class=\"number\">Median ns</th>"
      "<th class=\"number\">p95 ns</th><th class=\"number\">Min ns</th>"
      "<th class=\"number\">Max ns</th><th class=\"number\">Samples</th><th>Notes</th></tr>"
      "</thead><tbody>");
  for (const LatencyResult& latency : report.latency) {
    out.Open("tr", {{"class", !HasNumbers(latency) ? "flagged" : ""}});
    out.Element("td", latency.operation, {{"class", "mono"}});
    out.Element("td", latency.description);
    if (latency.not_measurable) {
      out.Element("td", "not measurable: " + *latency.not_measurable, {{"colspan", "6"}});
    } else if (latency.error) {
      out.Element("td", "not measured: " + *latency.error, {{"colspan", "6"}});
    } else {
      for (const double value :
           {latency.ns.median, latency.ns.p95, latency.ns.min, latency.ns.max}) {
        out.Element("td", FormatMeasurement(value), {{"class", "number"}});
      }
      out.Element("td", std::to_string(latency.ns.samples), {{"class", "number"}});
      out.Open("td", {{"class", "notes"}});
      if (!latency.stable) out.Element("span", "unstable", {{"class", "tag note"}});
      out.Close("td");
    }
    out.Close("tr");
  }
  out.Raw("</tbody>");
  out.Close("table");
}

// How a comparison row reads in the page, and whether it stands out.
bool FailsTheGate(const ComparisonRow& row) { return row.verdict == ChangeVerdict::kRegression; }

void WriteComparison(HtmlWriter& out, const Comparison& comparison) {
  out.Element("h2", "Compared with the saved report");
  const GateVerdict gate = JudgeGate(comparison);
  const char* tone = gate == GateVerdict::kFailed         ? "bad"
                     : gate == GateVerdict::kInconclusive ? "unsure"
                                                          : "good";
  out.Open("div", {{"class", std::string("verdict ") + tone}, {"id", "comparison"}});
  switch (gate) {
    case GateVerdict::kFailed:
      out.Text(fmt::format("Gate failed: {} regression{}", comparison.regressions,
                           comparison.regressions == 1 ? "" : "s"));
      break;
    case GateVerdict::kInconclusive:
      out.Text(fmt::format("Gate inconclusive: {} of {} results could not be judged",
                           ResultsNotJudged(comparison), ResultsInBoth(comparison)));
      break;
    case GateVerdict::kPassed:
      out.Text("Gate passed");
      break;
  }
  out.Element(
      "div",
      fmt::format("{} improved, {} within tolerance ({:g}%), {} within noise, {} "
                  "unstable, {} not comparable",
                  comparison.improvements, comparison.within_tolerance, comparison.tolerance * 100,
                  comparison.not_significant, comparison.unstable, comparison.not_comparable),
      {{"class", "why"}});
  out.Close("div");
  std::string how = fmt::format(
      "Old: {}. A regression is worse by more than {:g}% and beyond the noise of the two runs "
      "(two-sided Mann-Whitney U at {:g} for all results together, Holm-Bonferroni).",
      comparison.old_label, comparison.tolerance * 100, comparison.significance_level);
  if (comparison.confirmation_runs > 0) {
    how += fmt::format(
        " Results that looked regressed were measured again in {} fresh run{}: each must be "
        "worse in every run, and in the median of all of them.",
        comparison.confirmation_runs, comparison.confirmation_runs == 1 ? "" : "s");
  }
  out.Element("p", how, {{"class", "muted"}});
  out.Open("table", {{"class", "results"}});
  out.Raw(
      "<thead><tr><th>Result</th><th class=\"number\">Old</th><th class=\"number\">New</th>"
      "<th class=\"number\">Change</th><th class=\"number\">p</th><th>Verdict</th></tr>"
      "</thead><tbody>");
  // Regressions first: what failed the gate is what a reader came for.
  std::vector<const ComparisonRow*> rows;
  for (const ComparisonRow& row : comparison.rows) rows.push_back(&row);
  std::stable_partition(rows.begin(), rows.end(),
                        [](const ComparisonRow* row) { return FailsTheGate(*row); });
  auto number = [](const std::optional<double>& value) {
    return value ? FormatMeasurement(*value) : std::string("—");
  };
  for (const ComparisonRow* row : rows) {
    out.Open("tr", {{"class", FailsTheGate(*row) ? "flagged" : ""}});
    out.Element("td", RowName(*row));
    out.Element("td", number(row->old_median), {{"class", "number"}});
    out.Element("td", number(row->new_median), {{"class", "number"}});
    out.Element("td", row->change ? fmt::format("{:+.1f}%", *row->change * 100) : "",
                {{"class", "number"}});
    out.Element("td", row->p_value ? FormatPValue(*row->p_value) : "—", {{"class", "number"}});
    out.Open("td", {{"class", "notes"}});
    out.Element("span", ChangeVerdictName(row->verdict),
                {{"class", FailsTheGate(*row) ? "tag flag" : "tag note"}});
    if (!row->note.empty()) out.Element("div", row->note);
    out.Close("td");
    out.Close("tr");
  }
  out.Raw("</tbody>");
  out.Close("table");
}

}  // namespace

std::string RenderBenchHtml(const BenchReport& report, const Comparison* comparison) {
  HtmlWriter out;
  WriteHeader(out, report);
  if (comparison != nullptr) WriteComparison(out, *comparison);
  if (report.kind == "latency") {
    WriteLatencyTable(out, report);
  } else {
    out.Element("h2", "Bandwidth against copy size");
    out.Open("div", {{"class", "plot"}});
    out.Raw(InlineSvg(report));
    out.Close("div");
    WriteMemcpyTable(out, report);
  }
  WriteRunFacts(out, report);
  return report::RenderHtmlPage(
      {.title = fmt::format("sectl bench {}: {}", report.kind, report.plugin_path),
       .body = out.Take(),
       .extra_style = std::string(kBenchStyle),
       .script = {}});
}

}  // namespace sectl::bench
