// The catalogue of conformance checks. A check registers itself with one
// declaration (see check.h); the runner, --list and the reports all read
// the same catalogue, so listing and running never disagree.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report/conform_report.h"

namespace sectl::conform {

class CheckContext;
using CheckBody = void (*)(CheckContext& check);

// The profile every StreamExecutor check belongs to unless it says otherwise.
inline constexpr std::string_view kTensorFlowProfile = "tensorflow";

struct CheckDefinition {
  std::string id;     // dotted and hierarchical: "memcpy.round_trip"
  std::string title;  // one line
  report::CheckSeverity severity = report::CheckSeverity::kRequired;
  std::vector<std::string> profiles;
  std::string file;  // where it is declared, for people reading a report
  int line = 0;
  CheckBody body = nullptr;

  // The first component of the id: "memcpy".
  std::string area() const;
  bool InProfile(std::string_view profile) const;
};

class CheckRegistry {
 public:
  // The process-wide catalogue that SECTL_CHECK declarations add to.
  static CheckRegistry& Global();

  // Adds a check; a duplicate id is a programming error and aborts at start-up.
  void Add(CheckDefinition definition);

  // All checks, ordered by id (static initialisation order across files is
  // unspecified; ids give a stable order).
  const std::vector<CheckDefinition>& checks() const;

  const CheckDefinition* Find(std::string_view id) const;

  std::vector<std::string> Profiles() const;

 private:
  mutable std::vector<CheckDefinition> checks_;
  mutable bool sorted_ = true;
};

// Registers a check during static initialisation.
struct CheckRegistrar {
  explicit CheckRegistrar(CheckDefinition definition);
};

}  // namespace sectl::conform
