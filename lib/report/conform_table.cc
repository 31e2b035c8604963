#include "report/conform_table.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include "base/text.h"
#include "base/text_layout.h"

namespace sectl::report {
namespace {

constexpr size_t kTagWidth = 7;                      // "TIMEOUT", the longest status tag
constexpr size_t kDetailColumn = 2 + kTagWidth + 1;  // where a result's id starts
constexpr size_t kMaxIdWidth = 40;                   // longer ids push their title right
constexpr size_t kMaxShownLines = 5;                 // of a log or a journal
constexpr size_t kShownHashLength = 12;              // enough to tell builds apart
constexpr size_t kHeaderValueColumn = 12;            // after "TensorFlow  "
// How much further in than its first line a wrapped detail goes on, so
// that a long message reads as one paragraph and the next line as the next.
constexpr size_t kHangingIndent = 2;

// ---------------------------------------------------------------------------
// Text from plugins

// ---------------------------------------------------------------------------
// Rendering

std::string_view StatusTag(CheckStatus status) {
  switch (status) {
    case CheckStatus::kPass:
      return "PASS";
    case CheckStatus::kFail:
      return "FAIL";
    case CheckStatus::kWarn:
      return "WARN";
    case CheckStatus::kSkip:
      return "SKIP";
    case CheckStatus::kCrash:
      return "CRASH";
    case CheckStatus::kTimeout:
      return "TIMEOUT";
    case CheckStatus::kError:
      return "ERROR";
    case CheckStatus::kBlocked:
      return "BLOCKED";
  }
  return "ERROR";
}

// ANSI SGR parameters: the failures red, sectl's own errors magenta.
std::string_view StatusColor(CheckStatus status) {
  switch (status) {
    case CheckStatus::kPass:
      return "32";
    case CheckStatus::kWarn:
      return "33";
    case CheckStatus::kSkip:
    case CheckStatus::kBlocked:
      return "36";
    case CheckStatus::kError:
      return "35";
    case CheckStatus::kFail:
    case CheckStatus::kCrash:
    case CheckStatus::kTimeout:
      return "31";
  }
  return "0";
}

std::string_view BaselineLabel(BaselineVerdict verdict) {
  switch (verdict) {
    case BaselineVerdict::kNone:
      return "";
    case BaselineVerdict::kExpected:
      return "[expected]";
    case BaselineVerdict::kRegression:
      return "[REGRESSION]";
    case BaselineVerdict::kFixed:
      return "[fixed]";
    case BaselineVerdict::kExpired:
      return "[expired]";
  }
  return "";
}

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

// "1 fail", "2 regressions": a count and a noun, made plural when it takes
// an "s" ("fixed" and the statuses do not).
std::string Counted(int count, std::string_view noun, bool plural_s = false) {
  return fmt::format("{} {}{}", count, noun, plural_s && count != 1 ? "s" : "");
}

// Accumulates the table. Everything that came from the report passes
// through Clean, so a plugin's log cannot drive the terminal.
class Writer {
 public:
  explicit Writer(const ConformTableStyle& style) : style_(style) {}

  const ConformTableStyle& style() const { return style_; }

  // A row laid out already (LayOutRow): as it is.
  void Row(std::string_view row) {
    text_ += row;
    text_ += '\n';
  }

  // `line`, wrapped at the style's width; its continuation lines start at
  // column `hanging`.
  void Line(std::string_view line = {}, size_t hanging = 0) {
    text_ += WrapLine(line, style_.width, hanging);
    text_ += '\n';
  }

  // Each line of `text` under the result's id, `extra` spaces further in.
  void Indented(std::string_view text, size_t extra = 0) {
    const size_t column = kDetailColumn + extra;
    for (std::string_view line : SplitLines(text)) {
      Line(fmt::format("{:{}}{}", "", column, Clean(line)), column + kHangingIndent);
    }
  }

  std::string Paint(std::string_view text, std::string_view sgr) const {
    if (!style_.color) return std::string(text);
    return fmt::format("\033[{}m{}\033[0m", sgr, text);
  }

  static std::string Clean(std::string_view text) { return EscapeControlCharacters(text); }

  bool empty() const { return text_.empty(); }
  std::string Take() { return std::move(text_); }

 private:
  const ConformTableStyle& style_;
  std::string text_;
};

void WriteHeader(Writer& out, const ConformReport& report) {
  const std::string& sha256 = report.plugin.sha256;
  const std::string hash = sha256.size() > kShownHashLength
                               ? sha256.substr(0, kShownHashLength) + "…"
                               : (sha256.empty() ? "(unknown)" : sha256);
  auto row = [&out](std::string_view key, std::string_view value) {
    out.Line(fmt::format("{:<{}}{}", key, kHeaderValueColumn, Writer::Clean(value)),
             kHeaderValueColumn);
  };
  row("Plugin", report.plugin.path);
  row("SHA-256", hash);
  row("Profile", report.profile);
  if (!report.device.empty()) row("Device", report.device);
  // A TVM backend is judged by TVM's contract, which no TensorFlow
  // generation has a say in.
  if (IsTvmProfile(report.profile)) {
    row("Contract", report.subject);
  } else {
    row("TensorFlow", report.tf_version);
  }
}

void WriteLoadError(Writer& out, const std::string& load_error) {
  out.Line();
  out.Line(out.Paint(fmt::format("THE PLUGIN DID NOT LOAD: {}", Writer::Clean(load_error)), "1;31"),
           kHangingIndent);
  out.Line("The results say nothing about the rest of the contract.");
}

// What sectl learned before the checks ran (a TVM runtime's kExist that
// crashed, handlers it replaced at load, helpers the checks routed around).
void WriteLearnedBeforeChecks(Writer& out, const ConformReport& report) {
  if (report.learned_before_checks.empty()) return;
  out.Line();
  out.Line(out.Paint("Learned before the checks", "1"));
  for (const LearnedBeforeChecks& learned : report.learned_before_checks) {
    out.Line(fmt::format("  {}: {}", Writer::Clean(learned.function),
                         Writer::Clean(SplitLines(learned.problem).front())),
             4);
  }
}

// The checks an interruption of sectl kept from finishing (their details
// name the signal; see RunChecks).
int UnfinishedByInterruption(const ConformReport& report) {
  return static_cast<int>(
      std::count_if(report.results.begin(), report.results.end(), [](const CheckResult& result) {
        return result.status == CheckStatus::kSkip && result.details.contains("interrupted");
      }));
}

void WriteInterrupted(Writer& out, const ConformReport& report) {
  out.Line();
  out.Line(out.Paint(fmt::format("THE RUN IS INCOMPLETE: sectl was interrupted by {}",
                                 Writer::Clean(*report.interrupted)),
                     "1;33"),
           kHangingIndent);
  out.Line(fmt::format("{} did not finish and {} reported as skip (\"not run\").",
                       Counted(UnfinishedByInterruption(report), "check", true),
                       UnfinishedByInterruption(report) == 1 ? "is" : "are"));
}

// What a blocked check's row says in place of its title, the longest form
// that fits in `columns`: what stopped it is told once, in the root causes
// (and by the check that tests the function).
std::string BlockedText(const CheckResult& result, size_t columns) {
  const std::string function = Writer::Clean(result.culprits.front());
  const std::string member = function.substr(function.find('.') + 1);
  for (const std::string& text : {fmt::format("blocked by {}: see Root causes", function),
                                  fmt::format("blocked by {}: see Root causes", member),
                                  fmt::format("blocked by {}", member)}) {
    if (DisplayWidth(text) <= columns) return text;
  }
  return Abbreviate(fmt::format("blocked by {}", member), columns);
}

// A result's row: status, id, title and marks. On a terminal a passing
// check's row stays one line, its title abbreviated if need be (`sectl
// explain`, --verbose and the JSON have it whole); other rows wrap, the
// title in its own column (LayOutRow): under its first character, also
// where a long id pushed it right, or under the row where that would leave
// it too narrow a column.
std::string ResultRow(const Writer& out, const CheckResult& result, size_t id_width) {
  const std::string row_start =
      fmt::format("  {} {:<{}}  ",
                  out.Paint(fmt::format("{:<{}}", StatusTag(result.status), kTagWidth),
                            StatusColor(result.status)),
                  Writer::Clean(result.id), id_width);
  std::string marks;
  if (result.repetition > 0) marks += fmt::format(" [repetition {}]", result.repetition);
  if (result.baseline != BaselineVerdict::kNone) {
    const bool alarming = result.baseline == BaselineVerdict::kRegression ||
                          result.baseline == BaselineVerdict::kExpired;
    marks += " " + out.Paint(BaselineLabel(result.baseline), alarming ? "1;31" : "36");
  }
  std::string title = Writer::Clean(result.title);
  const size_t width = out.style().width;
  // Where the title starts: after the id, or under the row.
  const size_t title_start = width > 0 && DisplayWidth(row_start) + kNarrowestTextColumn > width
                                 ? kDetailColumn
                                 : DisplayWidth(row_start);
  const size_t taken = title_start + DisplayWidth(marks);
  // A blocked check is one line, which says what blocked it; -v and the
  // JSON keep its title and its own account.
  if (BlockedByACulprit(result) && !out.style().verbose) {
    // Width 0: no wrapping, so anything fits.
    const size_t columns = width == 0 ? SIZE_MAX : (width > taken ? width - taken : 0);
    title = BlockedText(result, columns);
  } else if (width > taken && result.status == CheckStatus::kPass && !out.style().verbose) {
    title = Abbreviate(title, width - taken);
  }
  return LayOutRow(row_start, title + marks, width, kDetailColumn);
}

// The last few plugin calls before a crash or a timeout: where it happened.
void WriteJournalTail(Writer& out, const std::vector<std::string>& journal) {
  out.Indented("last plugin calls:");
  const size_t first = journal.size() > kMaxShownLines ? journal.size() - kMaxShownLines : 0;
  if (first > 0) out.Indented(fmt::format("… {} earlier", first), 2);
  for (size_t i = first; i < journal.size(); ++i) out.Indented(journal[i], 2);
}

void WriteLogHead(Writer& out, std::string_view log) {
  const std::vector<std::string_view> lines = SplitLines(log);
  out.Indented("plugin log:");
  for (size_t i = 0; i < std::min(lines.size(), kMaxShownLines); ++i) out.Indented(lines[i], 2);
  if (lines.size() > kMaxShownLines) {
    out.Indented(fmt::format("… {} more lines", lines.size() - kMaxShownLines), 2);
  }
}

void WriteDetails(Writer& out, const CheckResult& result) {
  // A blocked check's row said it all (ResultLine).
  if (BlockedByACulprit(result) && !out.style().verbose) return;
  // The JSON keeps every finding; here a finding repeated for every size
  // or offset is shown once, unless --verbose asks for all.
  if (!result.message.empty()) {
    out.Indented(out.style().verbose ? result.message : FoldRepeatedFindings(result.message));
  }
  const bool died = result.status == CheckStatus::kCrash || result.status == CheckStatus::kTimeout;
  if (died && !result.journal.empty()) WriteJournalTail(out, result.journal);
  if (!result.log.empty()) WriteLogHead(out, result.log);
  if (result.baseline != BaselineVerdict::kNone && !result.baseline_reason.empty()) {
    out.Indented(fmt::format("baseline: {}", result.baseline_reason));
  }
  if (result.severity == CheckSeverity::kRequired && IsDefectStatus(result.status) &&
      !result.severity_reason.empty()) {
    out.Indented(fmt::format("required because: {}", result.severity_reason));
  }
}

// The result whose account a root cause's first problem came from.
const CheckResult* SourceOf(const ConformReport& report, const RootCause& cause) {
  for (const CheckResult& result : report.results) {
    if (result.id == cause.first_problem_check) return &result;
  }
  return nullptr;
}

// The summary a reader needs first: each faulty plugin function once, with
// what it broke and how many checks could not run without it, so that one
// broken basic does not read as a dozen defects.
void WriteRootCauses(Writer& out, const ConformReport& report) {
  if (report.root_causes.empty()) return;
  out.Line();
  out.Line(out.Paint("Root causes", "1"));
  for (const RootCause& cause : report.root_causes) {
    // A cause that fails or blocks a required check is why the run is not
    // conformant, whatever the severity of the check that tests it.
    const bool fails_the_run = cause.required_failed + cause.required_blocked > 0;
    const std::string severity =
        fails_the_run ? out.Paint("required", "1;31") : std::string(SeverityName(cause.severity));
    out.Line(fmt::format("  {} ({}) — {}", Writer::Clean(DescribeSuspects(cause)), severity,
                         DescribeReach(cause)),
             4);
    const CheckResult* source = SourceOf(report, cause);
    if (!cause.cannot_tell_from.empty() && !cause.cannot_tell_why.empty()) {
      // Why they are named together says more than the first of many wrong
      // round trips; the check's row has those.
      out.Line(fmt::format("      {}", Writer::Clean(cause.cannot_tell_why)), 6 + kHangingIndent);
    } else if (!cause.first_problem.empty()) {
      out.Line(fmt::format("      {}", Writer::Clean(SplitLines(cause.first_problem).front())),
               6 + kHangingIndent);
    }
    // Only checks it blocked speak of it, and their rows are one line each:
    // the first one's plugin calls and log are told here, once.
    if (source != nullptr && cause.failed.empty() && !out.style().verbose) {
      if (!source->journal.empty()) WriteJournalTail(out, source->journal);
      if (!source->log.empty()) WriteLogHead(out, source->log);
    }
  }
}

// What --quiet keeps: the results a reader has to act on. A blocked check
// is left out: the failure that blocked it is shown, and the verdict line
// counts it.
bool NeedsAttention(const CheckResult& result) {
  return result.status != CheckStatus::kPass && result.status != CheckStatus::kSkip &&
         result.status != CheckStatus::kBlocked;
}

void WriteResults(Writer& out, const ConformReport& report, const ConformTableStyle& style) {
  std::vector<const CheckResult*> shown;
  for (const CheckResult& result : report.results) {
    if (!style.quiet || NeedsAttention(result)) shown.push_back(&result);
  }
  size_t id_width = 0;
  for (const CheckResult* result : shown) id_width = std::max(id_width, result->id.size());
  id_width = std::min(id_width, kMaxIdWidth);
  // On a narrow terminal the titles keep at least half the line; a longer
  // id pushes its own title right.
  constexpr size_t kShortestIdColumn = 20;
  if (style.width > 0 && kDetailColumn + id_width + 2 > style.width / 2) {
    id_width = std::max(kShortestIdColumn, style.width / 2 > kDetailColumn + 2
                                               ? style.width / 2 - kDetailColumn - 2
                                               : size_t{0});
  }
  for (const std::string& area : AreasInFirstSeenOrder(report.results)) {
    const bool any = std::any_of(shown.begin(), shown.end(), [&area](const CheckResult* result) {
      return result->area == area;
    });
    if (!any) continue;
    out.Line();
    out.Line(out.Paint(Writer::Clean(area), "1"));
    for (const CheckResult* result : shown) {
      if (result->area != area) continue;
      out.Row(ResultRow(out, *result, id_width));
      if (result->status != CheckStatus::kPass || style.verbose) WriteDetails(out, *result);
    }
  }
}

std::string Verdict(const Writer& out, const ConformReport& report) {
  const int failures = RequiredFailures(report);
  const std::string failed_before =
      failures > 0 ? fmt::format("; {} failed before", Counted(failures, "required check", true))
                   : "";
  switch (JudgeReport(report)) {
    case report::Verdict::kConformant:
      return out.Paint("conformant", "1;32");
    case report::Verdict::kIncomplete:
      if (report.interrupted) {
        return fmt::format("{} (sectl was interrupted by {}{})", out.Paint("INCOMPLETE", "1;33"),
                           Writer::Clean(*report.interrupted), failed_before);
      } else {
        return fmt::format("{} ({} {} missing: not judged{})", out.Paint("INCOMPLETE", "1;33"),
                           report.missing_shards.size() == 1 ? "shard" : "shards",
                           fmt::join(report.missing_shards, ", "),
                           failures > 0 ? fmt::format("; {} failed in the others",
                                                      Counted(failures, "required check", true))
                                        : "");
      }
    case report::Verdict::kInconclusive:
      // Only sectl's errors stand in the way: nothing is known either way.
      return fmt::format("{} ({} ended in sectl's error)", out.Paint("INCONCLUSIVE", "1;33"),
                         Counted(report.summary.error, "check", true));
    case report::Verdict::kNotConformant:
      break;
  }
  const std::string why =
      report.load_error ? std::string("the plugin did not load") : DescribeRequiredFailures(report);
  return fmt::format("{} ({})", out.Paint("NOT CONFORMANT", "1;31"), why);
}

// "; baseline: 1 regression, 0 fixed", when a baseline was applied.
std::string BaselineCounts(const ConformReport& report) {
  auto count_of = [&report](BaselineVerdict verdict) {
    return static_cast<int>(
        std::count_if(report.results.begin(), report.results.end(),
                      [verdict](const CheckResult& result) { return result.baseline == verdict; }));
  };
  if (count_of(BaselineVerdict::kNone) == static_cast<int>(report.results.size())) return "";
  std::string text = fmt::format(
      "; baseline: {}, {}", Counted(count_of(BaselineVerdict::kRegression), "regression", true),
      Counted(count_of(BaselineVerdict::kFixed), "fixed"));
  for (BaselineVerdict verdict : {BaselineVerdict::kExpected, BaselineVerdict::kExpired}) {
    if (count_of(verdict) > 0)
      text += ", " + Counted(count_of(verdict), BaselineVerdictName(verdict));
  }
  return text;
}

std::string SummaryLine(const Writer& out, const ConformReport& report) {
  const Summary summary = Summarize(report.results);
  std::string listed;
  for (CheckStatus status : kAllStatuses) {
    if (summary.CountOf(status) == 0) continue;
    listed += listed.empty() ? ": " : ", ";
    listed += Counted(summary.CountOf(status), StatusName(status));
  }
  return fmt::format("{}{} — {}{}", Counted(summary.total(), "check", true), listed,
                     Verdict(out, report), BaselineCounts(report));
}

constexpr size_t kThroughputValueColumn = 16;  // after "  d2h pageable  "

std::string ThroughputLine(const ThroughputResult& result) {
  const std::string path = result.host_memory == "none"
                               ? result.direction
                               : fmt::format("{} {}", result.direction, result.host_memory);
  if (result.error)
    return fmt::format("  {:<13} not measured: {}", path, Writer::Clean(*result.error));
  if (result.not_measurable) {
    return fmt::format("  {:<13} not measurable: {}", path, Writer::Clean(*result.not_measurable));
  }
  std::string line = fmt::format("  {:<13} {:>8.2f}  {:>4.0f}% of host memcpy", path,
                                 result.median_gbps, result.ratio_to_ceiling * 100);
  if (result.verification != "passed") line += "  " + Writer::Clean(result.verification);
  return line;
}

void WriteThroughput(Writer& out, const Throughput& throughput) {
  out.Line();
  out.Line(fmt::format("Throughput at {} MiB, GB/s (10^9 bytes/s); informational, see sectl bench "
                       "memcpy",
                       throughput.bytes >> 20),
           kHangingIndent);
  if (throughput.error) {
    out.Line(fmt::format("  not measured: {}", Writer::Clean(*throughput.error)),
             2 + kHangingIndent);
    return;
  }
  if (throughput.skipped) {
    out.Line(fmt::format("  skipped, not measurable: {}", Writer::Clean(*throughput.skipped)),
             2 + kHangingIndent);
    return;
  }
  out.Line(fmt::format("  {:<13} {:>8.2f}", "host memcpy", throughput.ceiling_gbps));
  for (const ThroughputResult& result : throughput.results) {
    out.Line(ThroughputLine(result), kThroughputValueColumn);
  }
}

}  // namespace

std::string RenderConformTable(const ConformReport& report, const ConformTableStyle& style) {
  Writer out(style);
  if (!style.quiet) WriteHeader(out, report);
  if (report.load_error) WriteLoadError(out, *report.load_error);
  if (report.interrupted) WriteInterrupted(out, report);
  if (!style.quiet) WriteLearnedBeforeChecks(out, report);
  if (!style.quiet) WriteRootCauses(out, report);
  WriteResults(out, report, style);
  if (report.throughput && !style.quiet) WriteThroughput(out, *report.throughput);
  // Quiet and with nothing above it, the verdict is the whole report.
  if (!out.empty()) out.Line();
  out.Line(SummaryLine(out, report), kHangingIndent);
  std::string text = out.Take();
  // Quiet, the first thing shown may be a section's blank line.
  if (style.quiet && text.starts_with('\n')) text.erase(0, 1);
  return text;
}

}  // namespace sectl::report
