// `sectl conform` as one library call: select the checks, run them isolated,
// apply the baseline, and return the report.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "conform/baseline.h"
#include "conform/check_context.h"
#include "conform/check_registry.h"
#include "conform/check_runner.h"
#include "conform/selection.h"
#include "report/conform_report.h"

namespace sectl::conform {

struct ConformOptions {
  CheckSettings settings;
  std::string profile = std::string(kTensorFlowProfile);
  SelectionOptions selection;
  int jobs = 1;
  std::chrono::milliseconds timeout{30'000};
  bool isolate = true;
  std::optional<Baseline> baseline;
  // End the report with copy bandwidth at one size (tensorflow profile).
  bool throughput = true;
  std::chrono::year_month_day today = Today();
  std::vector<std::string> command_line;
  std::string tool_version;
  // Called as checks start (with the number planned) and as each finishes.
  std::function<void(size_t planned)> on_start;
  std::function<void(const report::CheckResult&)> on_result;
  // Resource limits and environment of the plugin's processes.
  isolation::Confinement confinement;
};

// The checks of `profile` that the selection keeps, in run order.
std::vector<PlannedCheck> PlanChecks(const std::string& profile, const SelectionOptions& selection);

// The report; an error only for a request the plugin cannot answer at all
// (a --device ordinal it does not have). A plugin that cannot be loaded is
// not an error here: the report says so in load_error.
Expected<report::ConformReport> RunConform(const ConformOptions& options);

}  // namespace sectl::conform
