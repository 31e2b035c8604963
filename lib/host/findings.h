// Findings: what the host runtime noticed about a plugin while using it.
#pragma once

#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace sectl::host {

enum class Severity {
  kError,    // TensorFlow would refuse the plugin, crash, or corrupt memory
  kWarning,  // works in TensorFlow, but breaks a documented rule or a newer/older host
  kInfo,     // worth knowing; nothing wrong
};

std::string_view SeverityName(Severity severity);  // "error", "warning", "info"

struct Finding {
  Severity severity;
  std::string id;       // stable, dotted: "platform.name.invalid"
  std::string message;  // one sentence a vendor understands
};

// Findings in the order they were made, each id at most once. Safe to add
// to from several threads (checks allocate from many at once); read it once
// the threads are done.
class FindingList {
 public:
  void Add(Severity severity, std::string id, std::string message);
  const std::vector<Finding>& all() const { return findings_; }
  bool HasErrors() const;
  void Append(const FindingList& other);

 private:
  std::mutex mutex_;
  std::vector<Finding> findings_;
};

}  // namespace sectl::host
