#include "conform/check_registry.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace sectl::conform {

std::string CheckDefinition::area() const { return id.substr(0, id.find('.')); }

bool CheckDefinition::InProfile(std::string_view profile) const {
  return std::find(profiles.begin(), profiles.end(), profile) != profiles.end();
}

bool CheckDefinition::Tests(abi::PluginFunction function) const {
  return traits.tests.empty() ||
         std::find(traits.tests.begin(), traits.tests.end(), function) != traits.tests.end();
}

report::CheckSeverity CheckDefinition::SeverityUnder(const abi::HostGeneration& generation) const {
  if (severity != report::CheckSeverity::kRequired || traits.required_through.empty()) {
    return severity;
  }
  // Generations are listed oldest first: required up to the named one.
  for (const auto& known : abi::AllHostGenerations()) {
    if (known.id == generation.id) return report::CheckSeverity::kRequired;
    if (known.id == traits.required_through) break;
  }
  return report::CheckSeverity::kRecommended;
}

CheckRegistry& CheckRegistry::Global() {
  static CheckRegistry registry;
  return registry;
}

void CheckRegistry::Add(CheckDefinition definition) {
  if (Find(definition.id) != nullptr) {
    // Two checks with one id would make reports and baselines ambiguous.
    std::fprintf(stderr, "sectl: internal error: check %s is declared twice (%s:%d)\n",
                 definition.id.c_str(), definition.file.c_str(), definition.line);
    std::abort();
  }
  // Where a check is declared, as reports and `sectl explain` show it:
  // "checks/memcpy_checks.cc", the same on every machine, whatever path
  // the compiler was given (absolute, or relative to a build directory).
  if (const auto at = definition.file.rfind("checks/"); at != std::string::npos) {
    definition.file.erase(0, at);
  }
  checks_.push_back(std::move(definition));
  sorted_ = false;
}

const std::vector<CheckDefinition>& CheckRegistry::checks() const {
  if (!sorted_) {
    std::sort(checks_.begin(), checks_.end(),
              [](const auto& a, const auto& b) { return a.id < b.id; });
    sorted_ = true;
  }
  return checks_;
}

const CheckDefinition* CheckRegistry::Find(std::string_view id) const {
  for (const auto& check : checks_) {
    if (check.id == id) return &check;
  }
  return nullptr;
}

std::vector<std::string> CheckRegistry::Profiles() const {
  std::vector<std::string> profiles;
  for (const auto& check : checks()) {
    for (const auto& profile : check.profiles) {
      if (std::find(profiles.begin(), profiles.end(), profile) == profiles.end()) {
        profiles.push_back(profile);
      }
    }
  }
  return profiles;
}

std::vector<std::string> CheckRegistry::CheckersOf(abi::PluginFunction function) const {
  std::vector<std::string> ids;
  for (const auto& check : checks()) {
    if (std::find(check.traits.tests.begin(), check.traits.tests.end(), function) !=
        check.traits.tests.end()) {
      ids.push_back(check.id);
    }
  }
  return ids;
}

CheckRegistrar::CheckRegistrar(CheckDefinition definition) {
  CheckRegistry::Global().Add(std::move(definition));
}

}  // namespace sectl::conform
