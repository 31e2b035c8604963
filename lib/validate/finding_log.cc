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

bool FindingLog::Add(const Finding& finding) {
  std::lock_guard lock(mutex_);
  for (KeptFinding& seen : findings_) {
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
  KeptFinding kept{finding.kind,
                   finding.function,
                   std::pmr::string(finding.message, LayerHeap()),
                   std::pmr::vector<std::pmr::string>(LayerHeap()),
                   std::pmr::vector<std::pmr::string>(LayerHeap()),
                   finding.sequence,
                   finding.thread,
                   finding.os_thread,
                   finding.occurrences};
  for (const CallArgument& argument : finding.arguments) {
    kept.argument_names.emplace_back(argument.name);
    kept.argument_values.emplace_back(argument.value);
  }
  findings_.push_back(std::move(kept));
  return true;
}

std::vector<Finding> FindingLog::Snapshot() const {
  std::lock_guard lock(mutex_);
  std::vector<Finding> copies;
  copies.reserve(findings_.size());
  for (const KeptFinding& kept : findings_) {
    Finding& copy = copies.emplace_back();
    copy.kind = kept.kind;
    copy.function = kept.function;
    copy.message = kept.message;
    for (size_t i = 0; i < kept.argument_names.size(); ++i) {
      copy.arguments.push_back(
          {std::string(kept.argument_names[i]), std::string(kept.argument_values[i])});
    }
    copy.sequence = kept.sequence;
    copy.thread = kept.thread;
    copy.os_thread = kept.os_thread;
    copy.occurrences = kept.occurrences;
  }
  return copies;
}

uint64_t FindingLog::ErrorCount() const {
  std::lock_guard lock(mutex_);
  uint64_t errors = 0;
  for (const KeptFinding& finding : findings_) {
    if (InfoOf(finding.kind).severity == Severity::kError) errors += finding.occurrences;
  }
  return errors;
}

}  // namespace sectl::validate
