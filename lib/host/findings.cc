#include "host/findings.h"

#include <algorithm>

namespace sectl::host {

std::string_view SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kInfo:
      return "info";
  }
  return "";
}

void FindingList::Add(Severity severity, std::string id, std::string message) {
  const std::lock_guard lock(mutex_);
  const bool known = std::any_of(findings_.begin(), findings_.end(),
                                 [&](const Finding& finding) { return finding.id == id; });
  if (!known) findings_.push_back({severity, std::move(id), std::move(message)});
}

bool FindingList::HasErrors() const {
  return std::any_of(findings_.begin(), findings_.end(),
                     [](const Finding& finding) { return finding.severity == Severity::kError; });
}

void FindingList::Append(const FindingList& other) {
  for (const auto& finding : other.all()) Add(finding.severity, finding.id, finding.message);
}

}  // namespace sectl::host
