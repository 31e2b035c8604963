#include "report/conform_junit.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <pugixml.hpp>
#include <sstream>
#include <string_view>
#include <vector>

#include "base/text.h"

namespace sectl::report {
namespace {

// What a result is to JUnit, which knows four outcomes.
enum class Outcome { kPassed, kFailure, kError, kSkipped };

// A failure exactly when the result stands in the way of "conformant" (a
// settled fail, crash, timeout or blocked is a required check's), an error
// exactly when it makes the run inconclusive: the JUnit file marks the run
// failed exactly when sectl's exit status does.
Outcome OutcomeOf(const CheckResult& result) {
  const bool expected = result.baseline == BaselineVerdict::kExpected;
  if (IsFailureStatus(result.status)) return expected ? Outcome::kSkipped : Outcome::kFailure;
  switch (result.status) {
    case CheckStatus::kError:
      return expected ? Outcome::kSkipped : Outcome::kError;
    case CheckStatus::kSkip:
      return Outcome::kSkipped;
    default:
      return Outcome::kPassed;
  }
}

// The tallies a <testsuite> or <testsuites> element carries.
struct Tally {
  int tests = 0;
  int failures = 0;
  int errors = 0;
  int skipped = 0;
  double time_s = 0;

  void Add(Outcome outcome, double duration_s) {
    ++tests;
    failures += outcome == Outcome::kFailure ? 1 : 0;
    errors += outcome == Outcome::kError ? 1 : 0;
    skipped += outcome == Outcome::kSkipped ? 1 : 0;
    time_s += duration_s;
  }

  void Add(const Tally& other) {
    tests += other.tests;
    failures += other.failures;
    errors += other.errors;
    skipped += other.skipped;
    time_s += other.time_s;
  }
};

std::string Seconds(double seconds) { return fmt::format("{:.3f}", seconds); }

std::string_view FirstLine(std::string_view text) { return text.substr(0, text.find('\n')); }

// Every string that reaches the document goes through here: plugins print
// anything, and XML 1.0 forbids most control characters even as references.
void SetAttribute(pugi::xml_node node, const char* name, std::string_view value) {
  node.append_attribute(name).set_value(EscapeControlCharacters(value).c_str());
}

void SetText(pugi::xml_node node, std::string_view text) {
  node.text().set(EscapeControlCharacters(text).c_str());
}

// The element that says why a test did not pass: <failure>, <error> or
// <skipped>, with a one-line message and the whole story as its text.
void AppendProblem(pugi::xml_node testcase, const char* element, std::string_view type,
                   std::string_view message, std::string_view body) {
  pugi::xml_node problem = testcase.append_child(element);
  SetAttribute(problem, "message", message);
  if (!type.empty()) SetAttribute(problem, "type", type);
  if (!body.empty()) SetText(problem, body);
}

// The message, then for a crash or a timeout the plugin calls before it:
// where the plugin was when it died or hung.
std::string Story(const CheckResult& result) {
  std::string story = result.message;
  const bool died = result.status == CheckStatus::kCrash || result.status == CheckStatus::kTimeout;
  if (!died || result.journal.empty()) return story;
  story += "\nlast plugin calls:";
  for (const std::string& call : result.journal) story += "\n  " + call;
  return story;
}

std::string ExpectedFailureMessage(const CheckResult& result) {
  if (result.baseline_reason.empty()) return "expected failure (baseline)";
  return fmt::format("expected failure (baseline): {}", result.baseline_reason);
}

std::string BaselineNote(const CheckResult& result) {
  switch (result.baseline) {
    case BaselineVerdict::kNone:
    case BaselineVerdict::kExpected:
      return "";
    case BaselineVerdict::kRegression:
      return "baseline: a regression (no baseline entry excuses this failure)";
    case BaselineVerdict::kFixed:
      return fmt::format("baseline: fixed (the baseline still excuses it: {})",
                         result.baseline_reason);
    case BaselineVerdict::kExpired:
      return fmt::format("baseline: the entry that excused this has expired ({})",
                         result.baseline_reason);
  }
  return "";
}

// What the test printed: a warning's message, a baseline note and the
// plugin's own output.
void AppendSystemOut(pugi::xml_node testcase, const CheckResult& result) {
  std::vector<std::string> parts;
  if (result.status == CheckStatus::kWarn && !result.message.empty()) {
    parts.push_back("warning: " + result.message);
  }
  if (std::string note = BaselineNote(result); !note.empty()) parts.push_back(std::move(note));
  if (!result.log.empty()) parts.push_back("plugin log:\n" + result.log);
  if (parts.empty()) return;
  std::string text;
  for (const std::string& part : parts) text += part + (part.ends_with('\n') ? "" : "\n");
  SetText(testcase.append_child("system-out"), text);
}

void AppendOutcome(pugi::xml_node testcase, const CheckResult& result, Outcome outcome) {
  const std::string_view message = FirstLine(result.message);
  switch (outcome) {
    case Outcome::kPassed:
      return;
    case Outcome::kFailure:
      AppendProblem(testcase, "failure", StatusName(result.status), message, Story(result));
      return;
    case Outcome::kError:
      AppendProblem(testcase, "error", "error", message, result.message);
      return;
    case Outcome::kSkipped:
      if (IsFailureStatus(result.status)) {
        AppendProblem(testcase, "skipped", "", ExpectedFailureMessage(result), Story(result));
      } else {
        AppendProblem(testcase, "skipped", "", message, result.message);
      }
      return;
  }
}

Outcome AppendTestcase(pugi::xml_node suite, const CheckResult& result) {
  pugi::xml_node testcase = suite.append_child("testcase");
  SetAttribute(testcase, "classname", "sectl." + result.area);
  SetAttribute(
      testcase, "name",
      result.repetition > 0 ? fmt::format("{}#{}", result.id, result.repetition) : result.id);
  SetAttribute(testcase, "time", Seconds(result.duration_s));
  const Outcome outcome = OutcomeOf(result);
  AppendOutcome(testcase, result, outcome);
  AppendSystemOut(testcase, result);
  return outcome;
}

// A plugin that did not load fails one test of its own, so that a CI job
// notices even when there are no results at all.
Outcome AppendLoadFailure(pugi::xml_node suite, const std::string& load_error) {
  pugi::xml_node testcase = suite.append_child("testcase");
  SetAttribute(testcase, "classname", "sectl.plugin");
  SetAttribute(testcase, "name", "plugin.load");
  SetAttribute(testcase, "time", Seconds(0));
  AppendProblem(testcase, "failure", "load", FirstLine(load_error), load_error);
  return Outcome::kFailure;
}

// An interrupted run is an error of its own, so that a CI job does not
// mistake the checks it never ran for skips of the plugin's.
Outcome AppendInterruption(pugi::xml_node suite, const ConformReport& report) {
  const auto unfinished =
      std::count_if(report.results.begin(), report.results.end(), [](const CheckResult& result) {
        return result.status == CheckStatus::kSkip && result.details.contains("interrupted");
      });
  pugi::xml_node testcase = suite.append_child("testcase");
  SetAttribute(testcase, "classname", "sectl.run");
  SetAttribute(testcase, "name", "run.complete");
  SetAttribute(testcase, "time", Seconds(0));
  AppendProblem(testcase, "error", "interrupted",
                fmt::format("the run is incomplete: sectl was interrupted by {}; {} check(s) did "
                            "not finish",
                            *report.interrupted, unfinished),
                "");
  return Outcome::kError;
}

// A merged report missing shards fails a test of its own, as `sectl report`
// exits 1 for it: the checks of those shards were never judged.
Outcome AppendMissingShards(pugi::xml_node suite, const ConformReport& report) {
  pugi::xml_node testcase = suite.append_child("testcase");
  SetAttribute(testcase, "classname", "sectl.run");
  SetAttribute(testcase, "name", "run.complete");
  SetAttribute(testcase, "time", Seconds(0));
  AppendProblem(testcase, "failure", "incomplete",
                fmt::format("the run is incomplete: shard(s) {} missing, their checks not judged",
                            fmt::join(report.missing_shards, ", ")),
                "");
  return Outcome::kFailure;
}

// Attributes are added in this order before any child, so they read in a
// sensible order; their values are filled in once the children are counted.
pugi::xml_node AppendSuite(pugi::xml_node parent, const char* element, std::string_view name) {
  pugi::xml_node suite = parent.append_child(element);
  SetAttribute(suite, "name", name);
  for (const char* counter : {"tests", "failures", "errors", "skipped", "time"}) {
    suite.append_attribute(counter);
  }
  return suite;
}

void SetTally(pugi::xml_node suite, const Tally& tally) {
  suite.attribute("tests").set_value(tally.tests);
  suite.attribute("failures").set_value(tally.failures);
  suite.attribute("errors").set_value(tally.errors);
  suite.attribute("skipped").set_value(tally.skipped);
  suite.attribute("time").set_value(Seconds(tally.time_s).c_str());
}

// Areas in first-seen order; a load failure belongs to "plugin", first.
std::vector<std::string> Areas(const ConformReport& report) {
  std::vector<std::string> areas;
  if (report.interrupted || !report.missing_shards.empty()) areas.emplace_back("run");
  if (report.load_error) areas.emplace_back("plugin");
  for (const CheckResult& result : report.results) {
    if (std::find(areas.begin(), areas.end(), result.area) == areas.end()) {
      areas.push_back(result.area);
    }
  }
  return areas;
}

}  // namespace

std::string RenderConformJunit(const ConformReport& report) {
  pugi::xml_document document;
  pugi::xml_node declaration = document.append_child(pugi::node_declaration);
  declaration.append_attribute("version").set_value("1.0");
  declaration.append_attribute("encoding").set_value("UTF-8");

  pugi::xml_node suites = AppendSuite(document, "testsuites", "sectl");
  SetAttribute(suites, "timestamp", report.started_at);
  Tally total;
  for (const std::string& area : Areas(report)) {
    pugi::xml_node suite = AppendSuite(suites, "testsuite", area);
    SetAttribute(suite, "timestamp", report.started_at);
    Tally tally;
    if (area == "run" && report.interrupted) tally.Add(AppendInterruption(suite, report), 0);
    if (area == "run" && !report.interrupted && !report.missing_shards.empty()) {
      tally.Add(AppendMissingShards(suite, report), 0);
    }
    if (area == "plugin" && report.load_error) {
      tally.Add(AppendLoadFailure(suite, *report.load_error), 0);
    }
    for (const CheckResult& result : report.results) {
      if (result.area == area) tally.Add(AppendTestcase(suite, result), result.duration_s);
    }
    SetTally(suite, tally);
    total.Add(tally);
  }
  // The run's wall-clock time, not the sum: checks may run in parallel.
  total.time_s = report.duration_s;
  SetTally(suites, total);

  std::ostringstream xml;
  document.save(xml, "  ", pugi::format_default, pugi::encoding_utf8);
  return xml.str();
}

}  // namespace sectl::report
