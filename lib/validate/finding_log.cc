#include "validate/finding_log.h"

#include <fmt/format.h>

#include <cstdio>

namespace sectl::validate {
namespace {

// Findings beyond this many distinct (kind, function) pairs are counted in
// the last entry's occurrences only; there are far fewer pairs than this.
constexpr size_t kMaxDistinctFindings = 1024;

void Announce(const Finding& finding) {
  const FindingInfo& info = InfoOf(finding.kind);
  const std::string line = fmt::format("sectl-validate: {} [{} at fault] {}: {}: {}\n",
                                       SeverityName(info.severity), FaultName(info.fault), info.id,
                                       abi::QualifiedName(finding.function), finding.message);
  std::fputs(line.c_str(), stderr);
}

}  // namespace

bool FindingLog::Add(Finding finding) {
  std::lock_guard lock(mutex_);
  for (Finding& seen : findings_) {
    if (seen.kind == finding.kind && seen.function == finding.function) {
      ++seen.occurrences;
      return false;
    }
  }
  if (findings_.size() >= kMaxDistinctFindings) {
    ++findings_.back().occurrences;
    return false;
  }
  if (announce_) Announce(finding);
  findings_.push_back(std::move(finding));
  return true;
}

std::vector<Finding> FindingLog::Snapshot() const {
  std::lock_guard lock(mutex_);
  return findings_;
}

uint64_t FindingLog::ErrorCount() const {
  std::lock_guard lock(mutex_);
  uint64_t errors = 0;
  for (const Finding& finding : findings_) {
    if (InfoOf(finding.kind).severity == Severity::kError) errors += finding.occurrences;
  }
  return errors;
}

}  // namespace sectl::validate
