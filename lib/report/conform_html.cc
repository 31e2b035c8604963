#include "report/conform_html.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

#include "base/json_text.h"
#include "report/html_page.h"

namespace sectl::report {
namespace {

constexpr size_t kShownHashLength = 16;   // of the plugin's SHA-256 in the header
constexpr size_t kShownJournalCalls = 8;  // the rest of a journal is folded away

// Filtering: the status and area select boxes (and the count buttons) show
// or hide each check's <tbody>; the state lives in location.hash
// ("#status=fail&area=memcpy") so a link, or a test, can set it. A link to
// one check ("#check-memcpy.htod") clears a filter that would hide it.
// Without a script every check shows and the filter bar stays hidden.
constexpr std::string_view kFilterScript = R"js(
(function () {
  "use strict";
  var statusSelect = document.getElementById("filter-status");
  var areaSelect = document.getElementById("filter-area");
  var shown = document.getElementById("filter-shown");
  var checks = Array.prototype.slice.call(document.querySelectorAll("tbody.check"));
  function offers(select, value) {
    return Array.prototype.some.call(select.options, function (option) {
      return option.value === value;
    });
  }
  function wanted(check) {
    var status = check.getAttribute("data-status");
    var statusWanted = statusSelect.value === "all" ||
        (statusSelect.value === "not-pass" ? status !== "pass" : status === statusSelect.value);
    return statusWanted &&
        (areaSelect.value === "all" || check.getAttribute("data-area") === areaSelect.value);
  }
  function apply() {
    var count = 0;
    checks.forEach(function (check) {
      check.hidden = !wanted(check);
      if (!check.hidden) count += 1;
    });
    shown.textContent = count + " of " + checks.length + " shown";
  }
  function readHash() {
    var hash = location.hash.slice(1);
    if (hash.indexOf("check-") === 0) {
      var target = document.getElementById(decodeURIComponent(hash));
      if (target && target.hidden) {
        statusSelect.value = "all";
        areaSelect.value = "all";
      }
      return;
    }
    var params = new URLSearchParams(hash);
    var status = params.get("status"), area = params.get("area");
    statusSelect.value = status !== null && offers(statusSelect, status) ? status : "all";
    areaSelect.value = area !== null && offers(areaSelect, area) ? area : "all";
  }
  function writeHash() {
    var parts = [];
    if (statusSelect.value !== "all") parts.push("status=" + encodeURIComponent(statusSelect.value));
    if (areaSelect.value !== "all") parts.push("area=" + encodeURIComponent(areaSelect.value));
    try {
      history.replaceState(null, "", parts.length > 0 ? "#" + parts.join("&")
                                                      : location.pathname + location.search);
    } catch (error) {
      // A viewer that refuses to change the address still filters.
    }
  }
  function changed() {
    apply();
    writeHash();
  }
  statusSelect.addEventListener("change", changed);
  areaSelect.addEventListener("change", changed);
  Array.prototype.forEach.call(document.querySelectorAll("button[data-show-status]"),
    function (button) {
      button.addEventListener("click", function () {
        statusSelect.value = button.getAttribute("data-show-status");
        changed();
        document.getElementById("checks").scrollIntoView();
      });
    });
  window.addEventListener("hashchange", function () {
    readHash();
    apply();
  });
  document.getElementById("filters").hidden = false;
  readHash();
  apply();
})();
)js";

constexpr std::string_view kConformStyle = R"css(
[hidden] { display: none !important; }
.counts { display: flex; flex-wrap: wrap; gap: 8px; margin: 0 0 8px; }
.counts button { border: 1px solid var(--line); background: var(--panel); border-radius: 6px;
  padding: 4px 10px; font: inherit; cursor: pointer; }
.counts button:hover { border-color: var(--fg); }
.counts .n { font-weight: 700; margin-right: 4px; }
.filters { display: flex; flex-wrap: wrap; align-items: center; gap: 16px; margin: 0 0 10px;
  padding: 8px 12px; background: var(--panel); border: 1px solid var(--line); border-radius: 6px; }
.filters select { font: inherit; padding: 2px 4px; }
.causes td:first-child { white-space: nowrap; }
.causes a, .findings a { color: var(--blocked); }
table.checks > tbody.check > tr > td { border-bottom: none; }
table.checks > tbody.check { border-bottom: 1px solid var(--line); }
table.checks td.status { width: 96px; }
.check-id { font-weight: 600; word-break: break-all; }
.title { color: var(--muted); }
.findings { padding: 0 8px 12px 8px; }
.message { white-space: pre-wrap; margin: 0 0 6px; }
.fact { margin: 2px 0; }
.fact .label { color: var(--muted); }
.about summary { cursor: pointer; color: var(--blocked); font-size: 13px; }
.about dl { margin: 4px 0 4px 12px; }
.about dt { font-weight: 600; font-size: 13px; }
.about dd { margin: 0 0 6px; white-space: pre-wrap; }
details.earlier summary { cursor: pointer; color: var(--muted); font-size: 13px; }
ol.timeline { list-style: none; margin: 4px 0 8px; padding: 0 0 0 14px; border-left: 2px solid var(--line); }
ol.timeline li { position: relative; padding: 2px 0 2px 10px; }
ol.timeline li::before { content: ""; position: absolute; left: -20px; top: 9px; width: 10px;
  height: 10px; border-radius: 50%; background: var(--pass); }
ol.timeline li.failed::before { background: var(--warn); }
ol.timeline li.died::before { background: var(--fail); }
ol.timeline li.died { font-weight: 700; color: var(--fail); }
ol.timeline .seq { color: var(--muted); display: inline-block; min-width: 44px; }
ol.timeline .outcome { margin-left: 6px; }
ol.backtrace { margin: 4px 0 8px; padding-left: 32px; background: var(--code);
  border: 1px solid var(--line); border-radius: 6px; }
ol.backtrace li { word-break: break-all; }
footer { margin-top: 32px; color: var(--muted); font-size: 13px; }
)css";

std::string SecondsText(double seconds) {
  if (seconds < 1) return fmt::format("{:.0f} ms", seconds * 1000);
  return fmt::format("{:.2f} s", seconds);
}

std::string Counted(size_t count, std::string_view noun) {
  return fmt::format("{} {}{}", count, noun, count == 1 ? "" : "s");
}

std::string ResultAnchor(const CheckResult& result) {
  if (result.repetition == 0) return "check-" + result.id;
  return fmt::format("check-{}-{}", result.id, result.repetition);
}

// ---------------------------------------------------------------------------
// The verdict

struct VerdictBanner {
  std::string css_class;  // good, bad, unsure
  std::string headline;
  std::string why;
};

// The report's verdict (JudgeReport) in words, as the table's summary line
// gives it (conform_table.cc).
VerdictBanner DescribeVerdict(const ConformReport& report) {
  const int failures = RequiredFailures(report);
  const std::string failed_before =
      failures > 0 ? fmt::format("; {} failed before", Counted(failures, "required check")) : "";
  switch (JudgeReport(report)) {
    case Verdict::kConformant:
      return {"good", "Conformant", "every required check ran and passed"};
    case Verdict::kNotConformant:
      if (report.load_error) return {"bad", "Not conformant", "the plugin did not load"};
      return {"bad", "Not conformant", DescribeRequiredFailures(report)};
    case Verdict::kIncomplete:
      if (report.interrupted) {
        return {"unsure", "Incomplete",
                fmt::format("sectl was interrupted by {}{}", *report.interrupted, failed_before)};
      }
      return {
          "unsure", "Incomplete",
          fmt::format("{} missing, not judged: {}{}",
                      report.missing_shards.size() == 1 ? "shard" : "shards",
                      fmt::format("{}", fmt::join(report.missing_shards, ", ")), failed_before)};
    case Verdict::kInconclusive:
      return {"unsure", "Inconclusive",
              fmt::format("{} ended in sectl's own error; nothing is known either way",
                          Counted(report.summary.error, "check"))};
  }
  return {"unsure", "Inconclusive", ""};
}

void WriteHeader(HtmlWriter& out, const ConformReport& report) {
  out.Element("h1", "sectl conformance report");
  out.Element("p", report.plugin.path, {{"class", "subtitle mono"}});
  const VerdictBanner verdict = DescribeVerdict(report);
  out.Open("div", {{"class", "verdict " + verdict.css_class}, {"id", "verdict"}});
  out.Text(verdict.headline);
  out.Element("div", verdict.why, {{"class", "why"}});
  out.Close("div");

  out.Open("div", {{"class", "counts"}, {"id", "counts"}});
  out.Open("button", {{"type", "button"}, {"data-show-status", "all"}});
  out.Element("span", std::to_string(report.results.size()), {{"class", "n"}});
  out.Text("checks");
  out.Close("button");
  const Summary summary = Summarize(report.results);
  for (CheckStatus status : kAllStatuses) {
    if (summary.CountOf(status) == 0) continue;
    const std::string name(StatusName(status));
    out.Open("button", {{"type", "button"}, {"data-show-status", name}});
    out.Element("span", std::to_string(summary.CountOf(status)), {{"class", "n"}});
    out.Element("span", name, {{"class", "tag " + name}});
    out.Close("button");
  }
  out.Close("div");

  if (report.load_error) {
    out.Open("div", {{"class", "notice bad"}});
    out.Element("strong", "The plugin did not load: ");
    out.Text(*report.load_error);
    out.Element("div", "The results say nothing about the rest of the contract.");
    out.Close("div");
  }
  if (report.interrupted) {
    out.Open("div", {{"class", "notice"}});
    out.Element("strong", "The run is incomplete: ");
    out.Text(fmt::format(
        "sectl was interrupted by {}; the checks that did not finish are reported as skip.",
        *report.interrupted));
    out.Close("div");
  }
  if (!report.missing_shards.empty()) {
    out.Open("div", {{"class", "notice"}});
    out.Element("strong", "Shards are missing: ");
    out.Text(fmt::format("{}. Their checks were not judged; merge every shard's report.",
                         fmt::join(report.missing_shards, ", ")));
    out.Close("div");
  }
}

void Fact(HtmlWriter& out, std::string_view label, std::string_view value,
          std::string_view css_class = "") {
  if (value.empty()) return;
  out.Element("dt", label);
  out.Element("dd", value, {{"class", std::string(css_class)}});
}

void WriteRunFacts(HtmlWriter& out, const ConformReport& report) {
  out.Element("h2", "Run");
  out.Open("dl", {{"class", "facts"}});
  const std::string& sha256 = report.plugin.sha256;
  Fact(out, "SHA-256",
       sha256.size() > kShownHashLength ? sha256.substr(0, kShownHashLength) + "…" : sha256,
       "mono");
  Fact(out, "Entry point", report.plugin.entry, "mono");
  Fact(out, "ABI vintage", report.plugin.abi_vintage);
  if (report.plugin.device_count) {
    Fact(out, "Devices", std::to_string(*report.plugin.device_count));
  }
  Fact(out, "Profile", report.profile);
  Fact(out, "Device", report.device);
  // A TVM backend is judged by TVM's contract, not a TensorFlow generation's.
  if (IsTvmProfile(report.profile)) {
    Fact(out, "Contract", report.subject);
  } else {
    Fact(out, "TensorFlow", report.tf_version);
  }
  const HostInfo& host = report.host;
  Fact(out, "Host",
       fmt::format("{} {} {}{}", host.os, host.kernel, host.machine,
                   host.cpu_model.empty() ? "" : ", " + host.cpu_model));
  Fact(out, "Started", report.started_at);
  Fact(out, "Duration", SecondsText(report.duration_s));
  std::string command_line;
  for (const std::string& word : report.command_line) {
    command_line += (command_line.empty() ? "" : " ") + word;
  }
  Fact(out, "Command", command_line, "mono");
  std::string confinement;
  for (const std::string& layer : report.confinement) {
    confinement += (confinement.empty() ? "" : "; ") + layer;
  }
  Fact(out, "Confinement", confinement);
  Fact(out, "sectl", report.tool.version);
  out.Close("dl");
}

// ---------------------------------------------------------------------------
// Root causes

void WriteStory(HtmlWriter& out, const CheckResult& result);

std::string CauseAnchor(std::string_view function) { return fmt::format("cause-{}", function); }

// The result whose account a root cause's first problem came from.
const CheckResult* SourceOf(const ConformReport& report, const RootCause& cause) {
  for (const CheckResult& result : report.results) {
    if (result.id == cause.first_problem_check) return &result;
  }
  return nullptr;
}

void CheckLinks(HtmlWriter& out, const std::vector<std::string>& ids) {
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) out.Text(", ");
    out.Element("a", ids[i], {{"href", "#check-" + ids[i]}, {"class", "mono"}});
  }
}

void WriteRootCauses(HtmlWriter& out, const ConformReport& report) {
  if (report.root_causes.empty()) return;
  out.Element("h2", "Root causes");
  out.Element("p",
              "Each faulty plugin function once, the most far-reaching first: what went wrong "
              "in it first, the checks it failed, and the checks that could not run without it.",
              {{"class", "muted"}});
  out.Open("table", {{"class", "causes"}});
  out.Raw("<thead><tr><th>Function</th><th>First problem</th><th>Checks</th></tr></thead><tbody>");
  for (const RootCause& cause : report.root_causes) {
    out.Open("tr", {{"id", CauseAnchor(cause.function)}});
    out.Open("td");
    if (cause.cannot_tell_from.empty()) {
      out.Element("code", cause.function);
    } else {
      out.Text(DescribeSuspects(cause));
    }
    // A cause that fails or blocks a required check is why the run is not
    // conformant, whatever the severity of the check that tests it.
    const bool fails_the_run = cause.required_failed + cause.required_blocked > 0;
    out.Element("div", fails_the_run ? "required" : std::string(SeverityName(cause.severity)),
                {{"class", fails_the_run ? "tag fail" : "tag skip"}});
    out.Close("td");
    out.Open("td", {{"class", "message"}});
    if (!cause.cannot_tell_why.empty()) out.Element("p", cause.cannot_tell_why);
    out.Text(cause.first_problem);
    out.Element("div", DescribeReach(cause), {{"class", "muted"}});
    // Only checks it blocked speak of it, and their rows point here: the
    // first one's plugin calls, backtrace and output are told here, once.
    const CheckResult* source = SourceOf(report, cause);
    if (source != nullptr && cause.failed.empty()) WriteStory(out, *source);
    out.Close("td");
    out.Open("td");
    const std::pair<std::string_view, const std::vector<std::string>*> groups[] = {
        {"failed", &cause.failed}, {"blocked", &cause.blocked}, {"warned", &cause.warned}};
    for (const auto& [label, ids] : groups) {
      if (ids->empty()) continue;
      out.Open("div", {{"class", "fact"}});
      out.Element("span", fmt::format("{} {}: ", ids->size(), label), {{"class", "label"}});
      CheckLinks(out, *ids);
      out.Close("div");
    }
    out.Close("td");
    out.Close("tr");
  }
  out.Raw("</tbody>");
  out.Close("table");
}

// ---------------------------------------------------------------------------
// The checks

void WriteFilters(HtmlWriter& out, const ConformReport& report) {
  const Summary summary = Summarize(report.results);
  out.Open("div", {{"class", "filters"}, {"id", "filters"}, {"hidden", ""}});
  out.Open("label");
  out.Text("Status ");
  out.Open("select", {{"id", "filter-status"}});
  out.Element("option", fmt::format("all ({})", report.results.size()), {{"value", "all"}});
  out.Element(
      "option",
      fmt::format("not passing ({})", report.results.size() - summary.CountOf(CheckStatus::kPass)),
      {{"value", "not-pass"}});
  for (CheckStatus status : kAllStatuses) {
    const std::string name(StatusName(status));
    out.Element("option", fmt::format("{} ({})", name, summary.CountOf(status)), {{"value", name}});
  }
  out.Close("select");
  out.Close("label");
  out.Open("label");
  out.Text("Area ");
  out.Open("select", {{"id", "filter-area"}});
  out.Element("option", "all", {{"value", "all"}});
  for (const std::string& area : AreasInFirstSeenOrder(report.results)) {
    out.Element("option", area, {{"value", area}});
  }
  out.Close("select");
  out.Close("label");
  out.Element("span", "", {{"id", "filter-shown"}, {"class", "muted"}});
  out.Close("div");
}

// The catalogue's sentences mark code with `backticks`, as Markdown does:
// those spans become <code>, the rest text.
void WriteMarkedText(HtmlWriter& out, std::string_view text) {
  bool in_code = false;
  while (!text.empty()) {
    const size_t tick = text.find('`');
    const std::string_view part = text.substr(0, tick);
    if (in_code) {
      out.Element("code", part);
    } else {
      out.Text(part);
    }
    if (tick == std::string_view::npos) break;
    text.remove_prefix(tick + 1);
    in_code = !in_code;
  }
}

void WriteExplanation(HtmlWriter& out, const CheckResult& result, const ExplainCheck& explain) {
  CheckExplanation explanation;
  if (explain) {
    if (auto found = explain(result.id)) explanation = std::move(*found);
  }
  if (explanation.severity_reason.empty()) explanation.severity_reason = result.severity_reason;
  const std::pair<std::string_view, const std::string*> parts[] = {
      {"What it establishes", &explanation.establishes},
      {"Why it matters", &explanation.severity_reason},
      {"Common mistakes", &explanation.common_mistakes},
      {"How to fix it", &explanation.how_to_fix}};
  if (std::all_of(std::begin(parts), std::end(parts),
                  [](const auto& part) { return part.second->empty(); })) {
    return;
  }
  out.Open("details", {{"class", "about"}});
  out.Element("summary", "about this check");
  out.Open("dl");
  for (const auto& [label, text] : parts) {
    if (text->empty()) continue;
    out.Element("dt", label);
    out.Open("dd");
    WriteMarkedText(out, *text);
    out.Close("dd");
  }
  out.Close("dl");
  out.Close("details");
}

// One journal line ("#12 SP_StreamExecutor.memcpy_htod(0x1, 0x2) -> OK,
// 1.2 µs") as a point on the timeline, the call that never returned (or
// threw) in red, a call that returned an error in amber.
void WriteTimelineEntry(HtmlWriter& out, std::string_view entry) {
  std::string_view sequence;
  if (entry.starts_with('#')) {
    const size_t space = entry.find(' ');
    if (space != std::string_view::npos) {
      sequence = entry.substr(0, space);
      entry.remove_prefix(space + 1);
    }
  }
  std::string_view call = entry;
  std::string_view outcome;
  if (const size_t arrow = entry.rfind(" -> "); arrow != std::string_view::npos) {
    call = entry.substr(0, arrow);
    outcome = entry.substr(arrow + 4);
  }
  std::string css_class;
  if (outcome.starts_with("never returned") || outcome.starts_with("threw")) {
    css_class = "died";
  } else if (!outcome.empty() && !outcome.starts_with("OK") && !outcome.starts_with("0")) {
    css_class = "failed";
  }
  out.Open("li", {{"class", css_class}});
  out.Element("span", sequence, {{"class", "seq mono"}});
  out.Element("code", call);
  if (!outcome.empty()) out.Element("span", "→ " + std::string(outcome), {{"class", "outcome"}});
  out.Close("li");
}

// The last calls on the timeline, the earlier ones folded away: what
// happened just before the end is what a reader looks for.
void WriteJournal(HtmlWriter& out, const std::vector<std::string>& journal) {
  if (journal.empty()) return;
  out.Element("h3", "Last plugin calls, oldest first");
  const size_t first_shown =
      journal.size() > kShownJournalCalls ? journal.size() - kShownJournalCalls : 0;
  if (first_shown > 0) {
    out.Open("details", {{"class", "earlier"}});
    out.Element("summary",
                fmt::format("{} earlier call{}", first_shown, first_shown == 1 ? "" : "s"));
    out.Open("ol", {{"class", "timeline"}});
    for (size_t i = 0; i < first_shown; ++i) WriteTimelineEntry(out, journal[i]);
    out.Close("ol");
    out.Close("details");
  }
  out.Open("ol", {{"class", "timeline"}});
  for (size_t i = first_shown; i < journal.size(); ++i) WriteTimelineEntry(out, journal[i]);
  out.Close("ol");
}

// A crash's backtrace (details.backtrace, check_runner.cc), one frame a line.
void WriteBacktrace(HtmlWriter& out, const nlohmann::json& details) {
  const auto backtrace = details.find("backtrace");
  if (backtrace == details.end() || !backtrace->is_array() || backtrace->empty()) return;
  out.Element("h3", "Backtrace");
  out.Open("ol", {{"class", "backtrace mono"}});
  for (const auto& frame : *backtrace) {
    out.Element("li", frame.is_string() ? frame.get<std::string>() : EncodeJson(frame));
  }
  out.Close("ol");
}

void WriteFacts(HtmlWriter& out, const CheckResult& result) {
  auto labelled = [&out](std::string_view label) {
    out.Open("div", {{"class", "fact"}});
    out.Element("span", label, {{"class", "label"}});
  };
  if (!result.culprits.empty()) {
    labelled(result.status == CheckStatus::kBlocked ? "Blocked by: " : "Blamed: ");
    for (size_t i = 0; i < result.culprits.size(); ++i) {
      if (i > 0) out.Text(", ");
      out.Element("code", result.culprits[i]);
    }
    out.Close("div");
  }
  if (!result.blocked_by_checks.empty()) {
    labelled("The defect is reported by: ");
    CheckLinks(out, result.blocked_by_checks);
    out.Close("div");
  }
  if (result.severity == CheckSeverity::kRequired && IsDefectStatus(result.status) &&
      !result.severity_reason.empty()) {
    labelled("Required because: ");
    out.Text(result.severity_reason);
    out.Close("div");
  }
  if (result.baseline != BaselineVerdict::kNone) {
    labelled("Baseline: ");
    out.Text(BaselineVerdictName(result.baseline));
    if (!result.baseline_reason.empty()) out.Text(" — " + result.baseline_reason);
    out.Close("div");
  }
}

// A result's plugin calls, backtrace, captured output and details.
void WriteStory(HtmlWriter& out, const CheckResult& result) {
  WriteJournal(out, result.journal);
  WriteBacktrace(out, result.details);
  if (!result.log.empty()) {
    out.Element("h3", "Captured output (stdout and stderr)");
    out.Element("pre", result.log, {{"class", "log"}});
  }
  nlohmann::json details = result.details;
  if (details.is_object()) details.erase("backtrace");
  if (!details.empty()) {
    out.Element("h3", "Details");
    out.Element("pre", EncodeJson(details, 2), {{"class", "details"}});
  }
}

// Beneath a blocked check: one line that points at its root cause, where
// the calls, backtrace and output are told once; its own account folded
// away (the JSON has everything).
void WriteBlockedFindings(HtmlWriter& out, const CheckResult& result) {
  out.Open("p", {{"class", "message"}});
  out.Text("Blocked by ");
  out.Element("code", result.culprits.front());
  out.Text(": see ");
  out.Element("a", "Root causes", {{"href", "#" + CauseAnchor(result.culprits.front())}});
  out.Close("p");
  if (!result.blocked_by_checks.empty()) {
    out.Open("div", {{"class", "fact"}});
    out.Element("span", "The defect is reported by: ", {{"class", "label"}});
    CheckLinks(out, result.blocked_by_checks);
    out.Close("div");
  }
  if (!result.message.empty()) {
    out.Open("details", {{"class", "earlier"}});
    out.Element("summary", "what this check saw");
    out.Element("p", result.message, {{"class", "message"}});
    out.Close("details");
  }
}

// Beneath a result that is not a pass: everything there is to know about it.
void WriteFindings(HtmlWriter& out, const CheckResult& result) {
  out.Open("tr");
  out.Element("td", "");
  out.Open("td", {{"colspan", "4"}, {"class", "findings"}});
  if (BlockedByACulprit(result)) {
    WriteBlockedFindings(out, result);
  } else {
    if (!result.message.empty()) out.Element("p", result.message, {{"class", "message"}});
    WriteFacts(out, result);
    const bool has_story = !result.journal.empty() || !result.log.empty() ||
                           !(result.details.is_object() && result.details.empty());
    if (result.status == CheckStatus::kSkip && has_story) {
      // A skip's message says why; its calls are seldom what a reader of a
      // skip looks for, so they stay folded.
      out.Open("details", {{"class", "earlier"}});
      out.Element("summary", "plugin calls and details");
      WriteStory(out, result);
      out.Close("details");
    } else {
      WriteStory(out, result);
    }
  }
  out.Close("td");
  out.Close("tr");
}

void WriteResult(HtmlWriter& out, const CheckResult& result, const ExplainCheck& explain) {
  const std::string status(StatusName(result.status));
  out.Open("tbody", {{"class", "check"},
                     {"id", ResultAnchor(result)},
                     {"data-status", status},
                     {"data-area", result.area}});
  out.Open("tr");
  out.Open("td", {{"class", "status"}});
  out.Element("span", status, {{"class", "tag " + status}});
  out.Close("td");
  out.Open("td");
  out.Element("div", result.id, {{"class", "check-id mono"}});
  out.Open("div", {{"class", "title"}});
  out.Text(result.title);
  if (result.repetition > 0) out.Text(fmt::format(" (repetition {})", result.repetition));
  if (result.baseline == BaselineVerdict::kRegression ||
      result.baseline == BaselineVerdict::kExpired) {
    out.Text(" ");
    out.Element("span", BaselineVerdictName(result.baseline), {{"class", "tag flag"}});
  } else if (result.baseline != BaselineVerdict::kNone) {
    out.Text(" ");
    out.Element("span", BaselineVerdictName(result.baseline), {{"class", "tag note"}});
  }
  out.Close("div");
  WriteExplanation(out, result, explain);
  out.Close("td");
  out.Element("td", result.area);
  out.Element("td", SeverityName(result.severity));
  out.Element("td", SecondsText(result.duration_s), {{"class", "number"}});
  out.Close("tr");
  if (result.status != CheckStatus::kPass) WriteFindings(out, result);
  out.Close("tbody");
}

void WriteChecks(HtmlWriter& out, const ConformReport& report, const ExplainCheck& explain) {
  out.Element("h2", "Checks", {{"id", "checks"}});
  WriteFilters(out, report);
  out.Open("table", {{"class", "checks"}});
  out.Raw(
      "<thead><tr><th>Status</th><th>Check</th><th>Area</th><th>Severity</th>"
      "<th class=\"number\">Time</th></tr></thead>");
  for (const CheckResult& result : report.results) WriteResult(out, result, explain);
  out.Close("table");
}

// ---------------------------------------------------------------------------
// Throughput

void WriteThroughput(HtmlWriter& out, const Throughput& throughput) {
  out.Element("h2", fmt::format("Throughput at {} MiB", throughput.bytes >> 20));
  out.Element("p",
              "Informational: it never changes the verdict. GB/s are 10^9 bytes/s; sectl bench "
              "memcpy gives the whole picture.",
              {{"class", "muted"}});
  if (throughput.error) {
    out.Element("p", "Not measured: " + *throughput.error);
    return;
  }
  if (throughput.skipped) {
    out.Element("p", "Skipped, not measurable: " + *throughput.skipped);
    return;
  }
  out.Open("table");
  out.Raw(
      "<thead><tr><th>Path</th><th class=\"number\">GB/s</th><th class=\"number\">Of host "
      "memcpy</th><th>Verification</th></tr></thead><tbody>");
  out.Raw("<tr><td>host memcpy</td>");
  out.Element("td", fmt::format("{:.2f}", throughput.ceiling_gbps), {{"class", "number"}});
  out.Raw("<td></td><td></td></tr>");
  for (const ThroughputResult& result : throughput.results) {
    out.Open("tr");
    out.Element("td", result.host_memory == "none"
                          ? result.direction
                          : fmt::format("{} {}", result.direction, result.host_memory));
    if (result.error) {
      out.Element("td", "not measured: " + *result.error, {{"colspan", "3"}});
    } else if (result.not_measurable) {
      out.Element("td", "not measurable: " + *result.not_measurable, {{"colspan", "3"}});
    } else {
      out.Element("td", fmt::format("{:.2f}", result.median_gbps), {{"class", "number"}});
      out.Element("td", fmt::format("{:.0f}%", result.ratio_to_ceiling * 100),
                  {{"class", "number"}});
      out.Element("td", result.verification);
    }
    out.Close("tr");
  }
  out.Raw("</tbody>");
  out.Close("table");
}

void WriteFooter(HtmlWriter& out, const ConformReport& report) {
  out.Element("footer",
              fmt::format("Written by {} {}; schema_version {}. Every text that came from the "
                          "plugin is shown as text.",
                          report.tool.name, report.tool.version, report.schema_version));
}

}  // namespace

std::string RenderConformHtml(const ConformReport& report, const ExplainCheck& explain) {
  HtmlWriter out;
  WriteHeader(out, report);
  WriteRootCauses(out, report);
  WriteChecks(out, report, explain);
  if (report.throughput) WriteThroughput(out, *report.throughput);
  WriteRunFacts(out, report);
  WriteFooter(out, report);
  return RenderHtmlPage({.title = fmt::format("sectl conform: {} — {}", report.plugin.path,
                                              DescribeVerdict(report).headline),
                         .body = out.Take(),
                         .extra_style = std::string(kConformStyle),
                         .script = std::string(kFilterScript)});
}

}  // namespace sectl::report
