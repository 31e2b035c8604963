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

bool IsConformant(const ConformReport& report) {
  if (report.load_error) return false;
  return std::none_of(report.results.begin(), report.results.end(), [](const CheckResult& r) {
    return r.severity == CheckSeverity::kRequired && IsFailureStatus(r.status) &&
           r.baseline != BaselineVerdict::kExpected;
  });
}

}  // namespace sectl::report
