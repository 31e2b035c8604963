#include "report/conform_report.h"

#include <algorithm>

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
  return status == CheckStatus::kFail || status == CheckStatus::kCrash ||
         status == CheckStatus::kTimeout;
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
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  };
  // A message may list problems in several functions ("a; b"): each
  // function's line keeps the part that names it.
  auto part_about = [](const std::string& message, const std::string& function) {
    const std::string member = function.substr(function.find('.') + 1);
    size_t start = 0;
    while (start < message.size()) {
      size_t end = message.find("; ", start);
      if (end == std::string::npos) end = message.size();
      std::string part = message.substr(start, end - start);
      if (part.find(member) != std::string::npos) return part;
      start = end + 2;
    }
    return message;
  };
  for (const auto& result : results) {
    const bool failed = IsFailureStatus(result.status);
    const bool blocked = result.status == CheckStatus::kBlocked;
    const bool warned = result.status == CheckStatus::kWarn;
    if (!failed && !blocked && !warned) continue;
    for (const auto& function : result.culprits) {
      RootCause& cause = cause_of(function);
      if (cause.first_problem.empty() && !blocked) {
        cause.first_problem = part_about(result.message, function);
      }
      add_once(failed ? cause.failed : (blocked ? cause.blocked : cause.warned), result.id);
    }
  }
  for (auto& cause : causes) {
    if (cause.first_problem.empty()) {
      // Only blocked checks speak of it: say what stopped the first.
      for (const auto& result : results) {
        if (result.status == CheckStatus::kBlocked && !result.culprits.empty() &&
            result.culprits.front() == cause.function) {
          cause.first_problem = result.message;
          break;
        }
      }
    }
  }
  // Failures first, then the widest reach.
  std::stable_sort(causes.begin(), causes.end(), [](const RootCause& a, const RootCause& b) {
    if (a.failed.empty() != b.failed.empty()) return !a.failed.empty();
    return a.failed.size() + a.blocked.size() > b.failed.size() + b.blocked.size();
  });
  return causes;
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
  // Nor does a required check that ended in sectl's error: it judged nothing.
  const bool sectl_errors =
      std::any_of(report.results.begin(), report.results.end(), [](const CheckResult& r) {
        return r.severity == CheckSeverity::kRequired && r.status == CheckStatus::kError &&
               r.baseline != BaselineVerdict::kExpected;
      });
  return sectl_errors ? Verdict::kInconclusive : Verdict::kConformant;
}

bool IsConformant(const ConformReport& report) {
  return JudgeReport(report) == Verdict::kConformant;
}

}  // namespace sectl::report
