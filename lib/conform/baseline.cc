#include "conform/baseline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "base/regular_file.h"
#include "conform/selection.h"

namespace sectl::conform {
namespace {

using std::chrono::year_month_day;

constexpr std::string_view kBlanks = " \t\r\f\v";

std::string_view Trim(std::string_view text) {
  size_t first = text.find_first_not_of(kBlanks);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kBlanks) - first + 1);
}

// The first word of `rest`, which must be trimmed.
std::string_view PeekWord(std::string_view rest) {
  return rest.substr(0, rest.find_first_of(kBlanks));
}

// Removes the first word from `rest` and returns it; `rest` stays trimmed.
std::string_view TakeWord(std::string_view& rest) {
  std::string_view word = PeekWord(rest);
  rest = Trim(rest.substr(word.size()));
  return word;
}

struct KindName {
  BaselineKind kind;
  std::string_view name;
};

constexpr KindName kKindNames[] = {
    {BaselineKind::kFail, "fail"}, {BaselineKind::kFlake, "flake"}, {BaselineKind::kSkip, "skip"}};

std::optional<BaselineKind> ParseKind(std::string_view name) {
  for (const KindName& known : kKindNames) {
    if (known.name == name) return known.kind;
  }
  return std::nullopt;
}

// Whether `word` has the shape of an option: `key=value`, the key a word of
// letters, digits, '_' and '-'. Misspelt keys count too, so that a typo such
// as `expire=` is reported rather than taken for the start of the reason.
bool IsOption(std::string_view word) {
  size_t equals = word.find('=');
  if (equals == std::string_view::npos || equals == 0) return false;
  return std::all_of(word.begin(), word.begin() + static_cast<std::ptrdiff_t>(equals), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-';
  });
}

// `text` as a number of exactly its digits; nullopt for anything else.
std::optional<unsigned> ParseDigits(std::string_view text) {
  unsigned value = 0;
  const char* end = text.data() + text.size();
  auto [stopped_at, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || stopped_at != end) return std::nullopt;
  return value;
}

// Parses "YYYY-MM-DD" into a real calendar date.
Expected<year_month_day> ParseDate(std::string_view text) {
  auto malformed = [text] {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("malformed date '{}': expected YYYY-MM-DD", text));
  };
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return malformed();
  std::optional<unsigned> year = ParseDigits(text.substr(0, 4));
  std::optional<unsigned> month = ParseDigits(text.substr(5, 2));
  std::optional<unsigned> day = ParseDigits(text.substr(8, 2));
  if (!year || !month || !day) return malformed();
  year_month_day date{std::chrono::year(static_cast<int>(*year)), std::chrono::month(*month),
                      std::chrono::day(*day)};
  if (!date.ok()) {
    return Fail(ErrorCode::kInvalidArgument, fmt::format("impossible date '{}'", text));
  }
  return date;
}

// Applies one `key=value` option to `entry`.
Expected<void> ApplyOption(std::string_view option, BaselineEntry& entry) {
  size_t equals = option.find('=');
  std::string_view key = option.substr(0, equals);
  if (key != "expires") {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("unknown option '{}': the only option is expires=YYYY-MM-DD (and a "
                            "reason cannot start with key=value)",
                            option));
  }
  if (entry.expires) {
    return Fail(ErrorCode::kInvalidArgument, "expires= is given more than once");
  }
  auto date = ParseDate(option.substr(equals + 1));
  if (!date) return tl::unexpected(date.error().WithContext("expires"));
  entry.expires = *date;
  return {};
}

// Parses the text of one entry line, its comment already removed.
Expected<BaselineEntry> ParseEntry(std::string_view line) {
  std::string_view rest = Trim(line);
  BaselineEntry entry;

  std::string_view kind_name = TakeWord(rest);
  std::optional<BaselineKind> kind = ParseKind(kind_name);
  if (!kind) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("unknown kind '{}': expected fail, flake or skip", kind_name));
  }
  entry.kind = *kind;

  if (rest.empty() || IsOption(PeekWord(rest))) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("missing the check-id glob after '{}'", kind_name));
  }
  entry.pattern = TakeWord(rest);

  while (IsOption(PeekWord(rest))) {
    auto applied = ApplyOption(TakeWord(rest), entry);
    if (!applied) return tl::unexpected(applied.error());
  }

  if (rest.empty()) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("missing the reason for '{}': say why, after the glob", entry.pattern));
  }
  entry.reason = rest;
  return entry;
}

// The whole content of the file at `path`.
Expected<std::string> ReadFile(const std::string& path) {
  auto text = ReadRegularFile(path, kMaxTextFileBytes, "baseline");
  if (!text) return tl::unexpected(text.error().WithContext("cannot read baseline"));
  return text;
}

const BaselineEntry* FirstMatchingEntry(const Baseline& baseline, std::string_view id) {
  for (const BaselineEntry& entry : baseline.entries) {
    if (GlobMatches(entry.pattern, id)) return &entry;
  }
  return nullptr;
}

report::BaselineVerdict Verdict(const BaselineEntry* entry, report::CheckStatus status,
                                year_month_day today) {
  using report::BaselineVerdict;
  const bool failed = report::IsFailureStatus(status);
  if (entry == nullptr) return failed ? BaselineVerdict::kRegression : BaselineVerdict::kNone;
  if (IsExpired(*entry, today)) return BaselineVerdict::kExpired;
  switch (entry->kind) {
    case BaselineKind::kFail:
      if (failed) return BaselineVerdict::kExpected;
      return status == report::CheckStatus::kPass ? BaselineVerdict::kFixed
                                                  : BaselineVerdict::kNone;
    case BaselineKind::kFlake:
      // A flake that passed this time is not fixed: that is what flakes do.
      return failed ? BaselineVerdict::kExpected : BaselineVerdict::kNone;
    case BaselineKind::kSkip:
      return status == report::CheckStatus::kSkip ? BaselineVerdict::kExpected
                                                  : BaselineVerdict::kNone;
  }
  return BaselineVerdict::kNone;
}

// The first line of a check's message, made safe to be a baseline reason:
// a '#' would start a comment and cut the reason short when read back.
std::string ReasonText(std::string_view message) {
  std::string text(Trim(message.substr(0, message.find('\n'))));
  std::erase(text, '#');
  return text;
}

constexpr std::string_view kBaselineHeader =
    R"(# sectl conform baseline: the known problems of one plugin, so that CI fails
# on regressions only. Pass it with --baseline.
#
# One entry a line; '#' starts a comment, blank lines are ignored:
#   KIND  CHECK-ID-GLOB  [expires=YYYY-MM-DD]  REASON (the rest of the line, required)
# KIND is fail (fails every time), flake (fails some of the time) or skip
# (not run at all). The glob matches check ids with '*' and '?', as --filter
# does; the first entry that matches a check decides. An entry applies up to
# and including its expires date, and excuses nothing after it. A fail entry
# whose check passes is reported as fixed: remove the entry then. A required
# check blocked by a broken function it only uses fails the run as a failure
# does, and a fail entry excuses it the same way.
#
# sectl wrote the entries below from the failures of one run. Review each
# one: give it a real reason, an owner and an expiry date.
)";

}  // namespace

Expected<Baseline> ParseBaseline(std::string_view text, const std::string& file_name) {
  Baseline baseline;
  int line_number = 0;
  for (size_t start = 0; start < text.size();) {
    size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;

    line = Trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    std::string location = fmt::format("{}:{}", file_name, line_number);
    auto entry = ParseEntry(line);
    if (!entry) return tl::unexpected(entry.error().WithContext(location));
    entry->location = std::move(location);
    baseline.entries.push_back(std::move(*entry));
  }
  return baseline;
}

Expected<Baseline> LoadBaseline(const std::string& path) {
  auto text = ReadFile(path);
  if (!text) return tl::unexpected(text.error());
  return ParseBaseline(*text, path);
}

bool IsExpired(const BaselineEntry& entry, year_month_day today) {
  return entry.expires && today > *entry.expires;
}

const BaselineEntry* FindSkipEntry(const Baseline& baseline, std::string_view id,
                                   year_month_day today) {
  const BaselineEntry* entry = FirstMatchingEntry(baseline, id);
  if (entry == nullptr || entry->kind != BaselineKind::kSkip || IsExpired(*entry, today)) {
    return nullptr;
  }
  return entry;
}

void ApplyBaseline(const Baseline& baseline, year_month_day today,
                   std::vector<report::CheckResult>& results) {
  for (report::CheckResult& result : results) {
    const BaselineEntry* entry = FirstMatchingEntry(baseline, result.id);
    result.baseline = Verdict(entry, result.status, today);
    result.baseline_reason =
        entry == nullptr ? "" : fmt::format("{}: {}", entry->location, entry->reason);
  }
}

std::string WriteBaseline(const std::vector<report::CheckResult>& results, year_month_day today) {
  std::vector<const report::CheckResult*> failures;  // the first failure of each id
  std::set<std::string_view> seen;
  size_t id_width = 0;
  for (const report::CheckResult& result : results) {
    if (!report::IsFailureStatus(result.status) || !seen.insert(result.id).second) continue;
    failures.push_back(&result);
    id_width = std::max(id_width, result.id.size());
  }

  std::string text(kBaselineHeader);
  text += failures.empty() ? "\n# No check failed: there is nothing to excuse.\n" : "\n";
  for (const report::CheckResult* failure : failures) {
    std::string reason =
        fmt::format("observed {} on {}", report::StatusName(failure->status), FormatDate(today));
    std::string detail = ReasonText(failure->message);
    if (!detail.empty()) reason += ": " + detail;
    text += fmt::format("fail  {:<{}}  {}\n", failure->id, id_width, reason);
  }
  return text;
}

std::string FormatDate(year_month_day date) {
  return fmt::format("{:04}-{:02}-{:02}", static_cast<int>(date.year()),
                     static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()));
}

year_month_day Today() {
  // system_clock counts Unix time, so whole days since its epoch are UTC days.
  return year_month_day{std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now())};
}

}  // namespace sectl::conform
