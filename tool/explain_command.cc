#include "tool/explain_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string_view>

#include "abi/plugin_functions.h"
#include "base/json_text.h"
#include "conform/check_registry.h"
#include "conform/selection.h"
#include "report/conform_report.h"
#include "tool/command_support.h"
#include "tool/exit_codes.h"

namespace sectl::tool {
namespace {

using conform::CheckDefinition;

// Text for people wraps here.
constexpr size_t kTextWidth = 80;
// Where the values of "Severity", "Profile", ... start.
constexpr size_t kLabelWidth = 14;
// The profile of the README's table.
constexpr std::string_view kMarkdownDefaultProfile = conform::kTensorFlowProfile;

// ---- Words ------------------------------------------------------------------

// The traits mark code with `backticks`, as Markdown does; plain text drops them.
std::string WithoutCodeMarks(std::string_view text) {
  std::string plain;
  plain.reserve(text.size());
  for (char c : text) {
    if (c != '`') plain += c;
  }
  return plain;
}

// Columns on a terminal: UTF-8 characters, not bytes ("×", "§").
size_t Columns(std::string_view text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

// `text` wrapped at kTextWidth: the first line after `first_indent`, every
// other line after `indent`. Words longer than a line stay whole.
std::string Wrap(std::string_view text, std::string_view first_indent, std::string_view indent) {
  std::string wrapped(first_indent);
  size_t column = first_indent.size();
  bool line_empty = true;
  size_t start = 0;
  while (start < text.size()) {
    if (text[start] == ' ') {
      ++start;
      continue;
    }
    size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(start, end - start);
    if (!line_empty && column + 1 + Columns(word) > kTextWidth) {
      wrapped += '\n';
      wrapped += indent;
      column = indent.size();
      line_empty = true;
    }
    if (!line_empty) {
      wrapped += ' ';
      ++column;
    }
    wrapped += word;
    column += Columns(word);
    line_empty = false;
    start = end;
  }
  return wrapped + '\n';
}

// "checks/memcpy_checks.cc:88": where the check is declared, from the top of
// the source tree (every check is declared in checks/), whatever directory
// sectl was built in.
std::string DeclaredAt(const CheckDefinition& check) {
  std::string_view file = check.file;
  constexpr std::string_view kChecksDirectory = "checks/";
  if (const size_t at = file.rfind(fmt::format("/{}", kChecksDirectory));
      at != std::string_view::npos) {
    file.remove_prefix(at + 1);
  }
  return fmt::format("{}:{}", file, check.line);
}

// "required", or "required through 2.10".
std::string SeverityText(const CheckDefinition& check) {
  std::string severity(report::SeverityName(check.severity));
  if (check.severity == report::CheckSeverity::kRequired &&
      !check.traits.required_through.empty()) {
    severity += fmt::format(" through {}", check.traits.required_through);
  }
  return severity;
}

std::vector<std::string> TestedFunctions(const CheckDefinition& check) {
  std::vector<std::string> names;
  for (auto function : check.traits.tests) names.emplace_back(abi::QualifiedName(function));
  return names;
}

// The verdict's rule, as the README's "How a run is judged" gives it.
constexpr std::string_view kHowRunsAreJudged = R"(
How a run is judged
  conformant      every required check of the selected --tf-version ran to a
                  verdict and passed (exit status 0)
  not conformant  a required check failed, crashed, timed out or was blocked
                  (a function it only uses is broken, so what it establishes
                  is unproven), or the plugin did not load (exit status 1)
  inconclusive    a check ended in sectl's own error (exit status 2)
  A recommended or info check never fails the run: what it observed is shown
  as warn (it failed, crashed or timed out) or skip (it was blocked), with
  observed_status in the JSON. But a crash or hang inside a function the
  selected TensorFlow calls in normal use makes the check required, and a
  root cause that blocks a required check is itself required.
)";

// ---- Choosing the checks ----------------------------------------------------

std::vector<const CheckDefinition*> ChecksOfProfile(std::string_view profile) {
  std::vector<const CheckDefinition*> checks;
  for (const auto& check : conform::CheckRegistry::Global().checks()) {
    if (profile.empty() || check.InProfile(profile)) checks.push_back(&check);
  }
  return checks;
}

bool IsGlob(std::string_view pattern) {
  return pattern.find_first_of("*?[") != std::string_view::npos;
}

// "; did you mean 'memcpy.htod'?", or nothing when no id is close.
std::string Suggestion(const std::string& pattern,
                       const std::vector<const CheckDefinition*>& candidates) {
  const auto filter = conform::CheckFilter::Parse(pattern);
  if (!filter) return {};
  std::vector<std::string> ids;
  ids.reserve(candidates.size());
  for (const auto* check : candidates) ids.push_back(check->id);
  std::vector<std::string> quoted;
  for (const auto& suggestion : conform::SuggestSelections(*filter, ids, 3)) {
    quoted.push_back(fmt::format("'{}'", suggestion));
  }
  if (quoted.empty()) return {};
  return fmt::format("; did you mean {}?", fmt::join(quoted, " or "));
}

// The checks `patterns` name, in the order named, each once; or the error
// for the first pattern that names none.
Expected<std::vector<const CheckDefinition*>> SelectChecks(const std::vector<std::string>& patterns,
                                                           const std::string& profile) {
  const auto candidates = ChecksOfProfile(profile);
  std::vector<const CheckDefinition*> selected;
  for (const std::string& pattern : patterns) {
    bool matched = false;
    for (const auto* check : candidates) {
      if (!conform::GlobMatches(pattern, check->id)) continue;
      matched = true;
      if (std::find(selected.begin(), selected.end(), check) == selected.end()) {
        selected.push_back(check);
      }
    }
    if (matched) continue;
    const std::string where = profile.empty() ? "" : fmt::format(" of the {} profile", profile);
    const std::string unknown = IsGlob(pattern)
                                    ? fmt::format("'{}' matches no check{}", pattern, where)
                                    : fmt::format("no check{} is called '{}'", where, pattern);
    return Fail(
        ErrorCode::kInvalidArgument,
        fmt::format("{}{} ('sectl explain{}' lists them)", unknown, Suggestion(pattern, candidates),
                    profile.empty() ? "" : " --profile " + profile));
  }
  return selected;
}

// ---- Text ---------------------------------------------------------------------

std::string Labelled(std::string_view label, std::string_view value) {
  return Wrap(value, fmt::format("{:<{}}", label, kLabelWidth), std::string(kLabelWidth, ' '));
}

// `text` under its heading, or `absent` when there is none.
std::string Section(std::string_view heading, std::string_view text, std::string_view absent) {
  std::string body = text.empty() ? std::string(absent) : WithoutCodeMarks(text);
  return fmt::format("\n{}\n{}", heading, Wrap(body, "  ", "  "));
}

// A trait as a paragraph. The traits are written to sit in a table cell
// too, so one may start in lower case and end without a full stop.
std::string Paragraph(std::string_view heading, std::string_view text) {
  std::string sentence(text);
  if (!sentence.empty() && sentence.front() >= 'a' && sentence.front() <= 'z') {
    sentence.front() = static_cast<char>(sentence.front() - 'a' + 'A');
  }
  if (!sentence.empty() && sentence.back() != '.') sentence += '.';
  return Section(heading, sentence, "(not documented)");
}

// For a TensorFlow check that is not required: whether a crash or hang can
// make it required (conform/check_runner.cc, EscalationReason).
std::string EscalationText(const CheckDefinition& check) {
  if (check.severity == report::CheckSeverity::kRequired ||
      !check.InProfile(conform::kTensorFlowProfile)) {
    return {};
  }
  if (!check.traits.unusual_use.empty()) {
    return fmt::format("Never: {}, so a crash or hang here is not one TensorFlow meets.",
                       check.traits.unusual_use);
  }
  return "When it crashes or hangs inside a plugin function the selected TensorFlow generation "
         "calls in normal use: TensorFlow's process would die or stall there too.";
}

std::string ExplainAsText(const CheckDefinition& check) {
  const auto& traits = check.traits;
  std::string text = fmt::format("{}\n", check.id);
  text += Wrap(check.title, "  ", "  ");
  text += '\n';
  text += Labelled("Severity", SeverityText(check));
  if (!traits.required_through.empty()) {
    text += Labelled("", fmt::format("(recommended under a --tf-version newer than {})",
                                     traits.required_through));
  }
  text += Labelled(check.profiles.size() == 1 ? "Profile" : "Profiles",
                   fmt::format("{}", fmt::join(check.profiles, ", ")));
  const auto tested = TestedFunctions(check);
  text += Labelled("Tests", tested.empty() ? std::string("every plugin function it calls")
                                           : fmt::format("{}", fmt::join(tested, ", ")));
  text += Labelled("Declared in", DeclaredAt(check));
  text += Paragraph("What it establishes", traits.establishes);
  text += Paragraph("Why this severity", traits.severity_reason);
  if (std::string escalation = EscalationText(check); !escalation.empty()) {
    text += Paragraph("When a crash makes it required", escalation);
  }
  text += Paragraph("Common mistakes", traits.common_mistakes);
  text += Paragraph("How to fix", traits.how_to_fix);
  text += Section("Proven by (the faulty reference plugins that make it fail)", traits.proven_by,
                  "no faulty plugin yet");
  return text;
}

// The checks by profile, one per line: the id, then the title wrapped beside it.
std::string ListAsText(const std::vector<const CheckDefinition*>& checks) {
  std::string text;
  for (const std::string& profile : conform::CheckRegistry::Global().Profiles()) {
    std::vector<const CheckDefinition*> listed;
    size_t id_width = 0;
    for (const auto* check : checks) {
      if (!check->InProfile(profile)) continue;
      listed.push_back(check);
      id_width = std::max(id_width, check->id.size());
    }
    if (listed.empty()) continue;
    text +=
        fmt::format("{}Profile {} ({} checks)\n", text.empty() ? "" : "\n", profile, listed.size());
    const std::string indent(id_width + 4, ' ');
    for (const auto* check : listed) {
      text += Wrap(check->title, fmt::format("  {:<{}}  ", check->id, id_width), indent);
    }
  }
  return text + std::string(kHowRunsAreJudged) +
         "\n'sectl explain CHECK_ID' explains one; a glob ('memcpy.*') explains each.\n";
}

// ---- JSON ---------------------------------------------------------------------

nlohmann::ordered_json ExplainAsJson(const CheckDefinition& check) {
  const auto& traits = check.traits;
  nlohmann::ordered_json required_through = nullptr;
  if (!traits.required_through.empty()) required_through = traits.required_through;
  return {{"id", check.id},
          {"title", check.title},
          {"area", check.area()},
          {"severity", report::SeverityName(check.severity)},
          {"required_through", required_through},
          {"profiles", check.profiles},
          {"tests", TestedFunctions(check)},
          {"establishes", traits.establishes},
          {"severity_reason", traits.severity_reason},
          {"common_mistakes", traits.common_mistakes},
          {"how_to_fix", traits.how_to_fix},
          {"proven_by", traits.proven_by},
          {"required_when_it_crashes", EscalationText(check)},
          {"source", DeclaredAt(check)}};
}

std::string ListAsJson(const std::vector<const CheckDefinition*>& checks) {
  nlohmann::ordered_json listed = nlohmann::ordered_json::array();
  for (const auto* check : checks) {
    listed.push_back({{"id", check->id},
                      {"title", check->title},
                      {"severity", report::SeverityName(check->severity)},
                      {"profiles", check->profiles}});
  }
  return EncodeJson(listed, 2) + "\n";
}

// ---- Markdown -----------------------------------------------------------------

// A table cell: one line, with no `|` to end it early.
std::string Cell(std::string_view text) {
  std::string cell;
  for (char c : text) {
    if (c == '|') cell += '\\';
    cell += c == '\n' ? ' ' : c;
  }
  return cell;
}

std::string MarkdownTable(const std::vector<const CheckDefinition*>& checks) {
  std::string table =
      "| check | severity | establishes | why this severity | the fault that proves it |\n"
      "|---|---|---|---|---|\n";
  for (const auto* check : checks) {
    const auto& traits = check->traits;
    table +=
        fmt::format("| `{}` | {} | {} | {} | {} |\n", check->id, Cell(SeverityText(*check)),
                    Cell(traits.establishes), Cell(traits.severity_reason), Cell(traits.proven_by));
  }
  return table;
}

int Print(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  return std::fflush(stdout) == 0 ? kExitSuccess : kExitUsageOrInternal;
}

}  // namespace

CLI::App* AddExplainCommand(CLI::App& app, ExplainCommandOptions& options) {
  auto* explain = app.add_subcommand(
      "explain",
      "Explain conformance checks: what each establishes, why it has its severity, the plugin "
      "functions it tests, common mistakes, how to fix them, and the faulty plugin that proves "
      "it. With no CHECK_ID, list every check.");
  explain->add_option("checks", options.checks,
                      "Check ids or globs ('memcpy.*'); sectl explain with none lists them");
  explain->add_option("--format", options.format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  explain->add_flag("--markdown", options.markdown,
                    "Print the Markdown table of the README's \"Checks\" section instead "
                    "(default profile: tensorflow)");
  explain->add_option("--profile", options.profile, "Only the checks of this profile")
      ->check(CLI::IsMember(conform::CheckRegistry::Global().Profiles()));
  return explain;
}

int RunExplainCommand(const ExplainCommandOptions& options) {
  if (options.markdown && options.format != "text") {
    return ReportUsageError(fmt::format(
        "--markdown and --format {}: the table is Markdown; give one of them", options.format));
  }
  std::string profile = options.profile;
  if (options.markdown && profile.empty()) profile = kMarkdownDefaultProfile;

  auto checks = options.checks.empty()
                    ? Expected<std::vector<const CheckDefinition*>>(ChecksOfProfile(profile))
                    : SelectChecks(options.checks, profile);
  if (!checks) return ReportUsageError(checks.error().message());

  if (options.markdown) return Print(MarkdownTable(*checks));
  if (options.checks.empty()) {
    return Print(options.format == "json" ? ListAsJson(*checks) : ListAsText(*checks));
  }
  if (options.format == "json") {
    nlohmann::ordered_json explained = nlohmann::ordered_json::array();
    for (const auto* check : *checks) explained.push_back(ExplainAsJson(*check));
    return Print(EncodeJson(explained, 2) + "\n");
  }
  std::string text;
  for (const auto* check : *checks) {
    if (!text.empty()) text += "\n\n";
    text += ExplainAsText(*check);
  }
  return Print(text);
}

}  // namespace sectl::tool
