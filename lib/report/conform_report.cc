#include "report/conform_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sectl::report {

std::string_view StatusName(CheckStatus status) {
  switch (status) {
    case CheckStatus::kPass:
      return "pass";
    case CheckStatus::kFail:
      return "fail";
    case CheckStatus::kWarn:
      return "warn";
    case CheckStatus::kSkip:
      return "skip";
    case CheckStatus::kCrash:
      return "crash";
    case CheckStatus::kTimeout:
      return "timeout";
    case CheckStatus::kError:
      return "error";
    case CheckStatus::kBlocked:
      return "blocked";
  }
  return "error";
}

std::optional<CheckStatus> ParseStatus(std::string_view name) {
  for (CheckStatus status : kAllStatuses) {
    if (StatusName(status) == name) return status;
  }
  return std::nullopt;
}

std::string_view SeverityName(CheckSeverity severity) {
  switch (severity) {
    case CheckSeverity::kRequired:
      return "required";
    case CheckSeverity::kRecommended:
      return "recommended";
    case CheckSeverity::kInfo:
      return "info";
  }
  return "info";
}

std::optional<CheckSeverity> ParseSeverity(std::string_view name) {
  for (CheckSeverity severity : kAllSeverities) {
    if (SeverityName(severity) == name) return severity;
  }
  return std::nullopt;
}

bool IsFailureStatus(CheckStatus status) {
  return IsDefectStatus(status) || status == CheckStatus::kBlocked;
}

bool IsDefectStatus(CheckStatus status) {
  return status == CheckStatus::kFail || status == CheckStatus::kCrash ||
         status == CheckStatus::kTimeout;
}

namespace {

// "fails", "crashed", "timed out", "not run": what a settled result observed,
// at the start of its message.
std::string_view ObservedVerb(CheckStatus observed) {
  switch (observed) {
    case CheckStatus::kFail:
      return "fails";
    case CheckStatus::kCrash:
      return "crashed";
    case CheckStatus::kTimeout:
      return "timed out";
    default:
      return "not run";
  }
}

}  // namespace

void SettleStatus(CheckResult& result) {
  if (result.severity == CheckSeverity::kRequired || result.observed_status) return;
  if (!IsFailureStatus(result.status)) return;
  const CheckStatus observed = result.status;
  result.observed_status = observed;
  result.status = observed == CheckStatus::kBlocked ? CheckStatus::kSkip : CheckStatus::kWarn;
  result.message = fmt::format("{}: {}: {}", SeverityName(result.severity), ObservedVerb(observed),
                               result.message);
}

std::string_view BaselineVerdictName(BaselineVerdict verdict) {
  switch (verdict) {
    case BaselineVerdict::kNone:
      return "";
    case BaselineVerdict::kExpected:
      return "expected";
    case BaselineVerdict::kRegression:
      return "regression";
    case BaselineVerdict::kFixed:
      return "fixed";
    case BaselineVerdict::kExpired:
      return "expired";
  }
  return "";
}

std::optional<BaselineVerdict> ParseBaselineVerdict(std::string_view name) {
  for (BaselineVerdict verdict : kAllVerdicts) {
    if (BaselineVerdictName(verdict) == name) return verdict;
  }
  return std::nullopt;
}

int& Summary::CountOf(CheckStatus status) {
  switch (status) {
    case CheckStatus::kPass:
      return pass;
    case CheckStatus::kFail:
      return fail;
    case CheckStatus::kWarn:
      return warn;
    case CheckStatus::kSkip:
      return skip;
    case CheckStatus::kCrash:
      return crash;
    case CheckStatus::kTimeout:
      return timeout;
    case CheckStatus::kError:
      return error;
    case CheckStatus::kBlocked:
      return blocked;
  }
  return error;
}

int Summary::CountOf(CheckStatus status) const {
  return const_cast<Summary*>(this)->CountOf(status);
}

Summary Summarize(const std::vector<CheckResult>& results) {
  Summary summary;
  for (const auto& result : results) ++summary.CountOf(result.status);
  return summary;
}

bool BlockedByACulprit(const CheckResult& result) {
  return result.observed_status.value_or(result.status) == CheckStatus::kBlocked &&
         !result.culprits.empty();
}

namespace {

// `text` cut at each `separator` that is not inside parentheses.
std::vector<std::string> SplitOutsideParentheses(std::string_view text,
                                                 std::string_view separator) {
  std::vector<std::string> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')' && depth > 0) --depth;
    if (depth == 0 && text.substr(i).starts_with(separator)) {
      parts.emplace_back(text.substr(start, i - start));
      start = i + separator.size();
      i = start - 1;
    }
  }
  parts.emplace_back(text.substr(start));
  return parts;
}

// The other functions a result could not tell `function` from, and why
// (details.cannot_tell, written by a check whose every observation went
// through several suspects); none when it caught `function` alone.
struct CannotTell {
  std::vector<std::string> others;
  std::string why;
};

CannotTell CannotTellOf(const CheckResult& result, const std::string& function) {
  CannotTell cannot_tell;
  if (!result.details.is_object()) return cannot_tell;
  const auto entry = result.details.find("cannot_tell");
  if (entry == result.details.end() || !entry->is_object()) return cannot_tell;
  const auto functions = entry->find("functions");
  const auto why = entry->find("why");
  if (functions == entry->end() || !functions->is_array()) return cannot_tell;
  bool named = false;
  std::vector<std::string> others;
  for (const auto& name : *functions) {
    if (!name.is_string()) continue;
    if (name.get<std::string>() == function) {
      named = true;
    } else {
      others.push_back(name.get<std::string>());
    }
  }
  // A suspect list that leaves the culprit out says nothing about it.
  if (!named) return cannot_tell;
  cannot_tell.others = std::move(others);
  if (why != entry->end() && why->is_string()) cannot_tell.why = why->get<std::string>();
  return cannot_tell;
}

}  // namespace

std::vector<RootCause> SummarizeRootCauses(const std::vector<CheckResult>& results) {
  std::vector<RootCause> causes;
  auto cause_of = [&causes](const std::string& function) -> RootCause& {
    for (auto& cause : causes) {
      if (cause.function == function) return cause;
    }
    causes.push_back({.function = function});
    return causes.back();
  };
  auto add_once = [](std::vector<std::string>& ids, const std::string& id) {
    if (std::find(ids.begin(), ids.end(), id) != ids.end()) return false;
    ids.push_back(id);
    return true;
  };
  // A message may list problems in several functions ("a; b"): each
  // function's line keeps the part that names it. A "; " inside
  // parentheses separates items of one problem, not problems.
  auto part_about = [](const std::string& message, const std::string& function) {
    const std::string member = function.substr(function.find('.') + 1);
    for (const std::string& part : SplitOutsideParentheses(message, "; ")) {
      if (part.find(member) != std::string::npos) return part;
    }
    return message;
  };
  // The severity of the check each first_problem came from: a required
  // check's account of the defect replaces a recommended one's.
  std::vector<CheckSeverity> first_problem_severity;
  // Whether some check caught the function alone: failed or warned on it
  // without naming other suspects it cannot be told from.
  std::vector<bool> caught_alone;
  for (const auto& result : results) {
    // What the check observed, whatever its settled status says.
    const CheckStatus observed = result.observed_status.value_or(result.status);
    const bool failed = IsDefectStatus(observed);
    const bool blocked = observed == CheckStatus::kBlocked;
    const bool warned = observed == CheckStatus::kWarn;
    if (!failed && !blocked && !warned) continue;
    for (const auto& function : result.culprits) {
      RootCause& cause = cause_of(function);
      const auto index = static_cast<size_t>(&cause - causes.data());
      if (first_problem_severity.size() <= index) {
        first_problem_severity.resize(index + 1, CheckSeverity::kInfo);
        caught_alone.resize(index + 1, false);
      }
      const bool better = cause.first_problem.empty() ||
                          (failed && result.severity < first_problem_severity[index]);
      if (better && !blocked) {
        cause.first_problem = part_about(result.message, function);
        cause.first_problem_check = result.id;
        first_problem_severity[index] = result.severity;
      }
      if (!blocked) {
        const CannotTell suspects = CannotTellOf(result, function);
        if (suspects.others.empty()) {
          caught_alone[index] = true;
        } else {
          for (const std::string& other : suspects.others) add_once(cause.cannot_tell_from, other);
          if (cause.cannot_tell_why.empty()) cause.cannot_tell_why = suspects.why;
        }
      }
      std::vector<std::string>& list =
          failed ? cause.failed : (blocked ? cause.blocked : cause.warned);
      if (!add_once(list, result.id) || warned) continue;
      // Lower is more severe (kRequired first).
      cause.severity = std::min(cause.severity, result.severity);
      if (result.severity == CheckSeverity::kRequired) {
        ++(failed ? cause.required_failed : cause.required_blocked);
      }
    }
  }
  for (size_t index = 0; index < causes.size(); ++index) {
    RootCause& cause = causes[index];
    // One check that caught it alone outweighs any that could not tell.
    if (index < caught_alone.size() && caught_alone[index]) {
      cause.cannot_tell_from.clear();
      cause.cannot_tell_why.clear();
    }
    if (cause.first_problem.empty()) {
      // Only blocked checks speak of it: say what stopped the first.
      for (const auto& result : results) {
        if (result.observed_status.value_or(result.status) == CheckStatus::kBlocked &&
            !result.culprits.empty() && result.culprits.front() == cause.function) {
          cause.first_problem = result.message;
          cause.first_problem_check = result.id;
          break;
        }
      }
    }
  }
  // The functions caught alone first, then what fails the run, then
  // failures, then the widest reach.
  std::stable_sort(causes.begin(), causes.end(), [](const RootCause& a, const RootCause& b) {
    if (a.cannot_tell_from.empty() != b.cannot_tell_from.empty()) {
      return a.cannot_tell_from.empty();
    }
    const bool a_required = a.required_failed + a.required_blocked > 0;
    const bool b_required = b.required_failed + b.required_blocked > 0;
    if (a_required != b_required) return a_required;
    if (a.failed.empty() != b.failed.empty()) return !a.failed.empty();
    return a.failed.size() + a.blocked.size() > b.failed.size() + b.blocked.size();
  });
  return causes;
}

std::string DescribeSuspects(const RootCause& cause) {
  if (cause.cannot_tell_from.empty()) return cause.function;
  // The others by their member name where they share the cause's struct.
  const std::string prefix = cause.function.substr(0, cause.function.find('.') + 1);
  std::string others;
  for (size_t i = 0; i < cause.cannot_tell_from.size(); ++i) {
    const std::string& other = cause.cannot_tell_from[i];
    if (i > 0) others += i + 1 == cause.cannot_tell_from.size() ? " or " : ", ";
    others += !prefix.empty() && other.starts_with(prefix) ? other.substr(prefix.size()) : other;
  }
  return fmt::format("cannot tell {} from {}", cause.function, others);
}

std::string DescribeReach(const RootCause& cause) {
  std::vector<std::string> parts;
  auto counted = [](size_t count, std::string_view what) {
    return fmt::format("{} {}{}", count, what, count == 1 ? "" : "s");
  };
  auto reach = [&](std::string_view verb, size_t all, int required) {
    if (all == 0) return;
    const auto others = all - static_cast<size_t>(required);
    if (required > 0 && others > 0) {
      parts.push_back(fmt::format("{} {} and {} not required", verb,
                                  counted(static_cast<size_t>(required), "required check"),
                                  others));
    } else if (required > 0) {
      parts.push_back(fmt::format("{} {}", verb, counted(all, "required check")));
    } else {
      parts.push_back(fmt::format("{} {} (not required)", verb, counted(all, "check")));
    }
  };
  reach("fails", cause.failed.size(), cause.required_failed);
  reach("blocks", cause.blocked.size(), cause.required_blocked);
  if (!cause.warned.empty()) parts.push_back(counted(cause.warned.size(), "warning"));
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "" : ", ") + part;
  return text;
}

std::vector<std::string> AreasInFirstSeenOrder(const std::vector<CheckResult>& results) {
  std::vector<std::string> areas;
  for (const CheckResult& result : results) {
    if (std::find(areas.begin(), areas.end(), result.area) == areas.end()) {
      areas.push_back(result.area);
    }
  }
  return areas;
}

bool IsTvmProfile(std::string_view profile) { return profile.starts_with("tvm-"); }

std::string ProfileSubject(std::string_view profile, std::string_view tf_version) {
  if (profile == "tvm-device-api") return "TVM's DeviceAPI contract";
  if (profile == "tvm-c-device") return "TVM's C Device API (RFC 0031)";
  return fmt::format("TensorFlow {}", tf_version);
}

std::string_view VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kConformant:
      return "conformant";
    case Verdict::kNotConformant:
      return "not_conformant";
    case Verdict::kIncomplete:
      return "incomplete";
    case Verdict::kInconclusive:
      return "inconclusive";
  }
  return "inconclusive";
}

int RequiredFailures(const ConformReport& report) {
  return static_cast<int>(
      std::count_if(report.results.begin(), report.results.end(), [](const CheckResult& result) {
        return result.severity == CheckSeverity::kRequired && IsFailureStatus(result.status) &&
               result.baseline != BaselineVerdict::kExpected;
      }));
}

Verdict JudgeReport(const ConformReport& report) {
  if (report.load_error) return Verdict::kNotConformant;
  // An interrupted run, or a merge missing shards, establishes nothing
  // about the checks that did not run; the failures found before are named
  // beside the verdict.
  if (report.interrupted || !report.missing_shards.empty()) return Verdict::kIncomplete;
  if (RequiredFailures(report) > 0) return Verdict::kNotConformant;
  // Nor does a check that ended in sectl's own error: it judged nothing, and
  // sectl failing is never reported as a pass.
  const bool sectl_errors =
      std::any_of(report.results.begin(), report.results.end(), [](const CheckResult& r) {
        return r.status == CheckStatus::kError && r.baseline != BaselineVerdict::kExpected;
      });
  return sectl_errors ? Verdict::kInconclusive : Verdict::kConformant;
}

std::string DescribeRequiredFailures(const ConformReport& report) {
  int blocked = 0;
  for (const CheckResult& result : report.results) {
    blocked += result.severity == CheckSeverity::kRequired &&
               result.status == CheckStatus::kBlocked &&
               result.baseline != BaselineVerdict::kExpected;
  }
  const int failed = RequiredFailures(report) - blocked;
  const auto checks = [](int count) {
    return fmt::format("{} required check{}", count, count == 1 ? "" : "s");
  };
  if (blocked == 0) return fmt::format("{} failed", checks(failed));
  if (failed == 0) return fmt::format("{} blocked, so not verified", checks(blocked));
  return fmt::format("{} failed, {} blocked", checks(failed), blocked);
}

bool IsConformant(const ConformReport& report) {
  return JudgeReport(report) == Verdict::kConformant;
}

}  // namespace sectl::report
