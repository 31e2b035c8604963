// Running checks, each in a process of its own that loads the plugin
// afresh, several at a time, under a watchdog. The parent never loads
// plugin code: it forks, supervises, and reads each child's journal from
// shared memory when the child dies or hangs.
#pragma once

#include <chrono>
#include <functional>
#include <vector>

#include "conform/check_registry.h"
#include "conform/common_check_context.h"
#include "isolation/confinement.h"
#include "report/conform_report.h"

namespace sectl::conform {

struct PlannedCheck {
  const CheckDefinition* check = nullptr;
  int repetition = 0;
};

struct RunnerOptions {
  CheckSettings settings;
  int jobs = 1;
  std::chrono::milliseconds timeout{30'000};
  bool isolate = true;  // false: run in sectl's own process, one at a time
  // Called in the parent as each result arrives (progress display).
  std::function<void(const report::CheckResult&)> on_result;
  // Resource limits and environment of each check's process.
  isolation::Confinement confinement;
};

// Runs every planned check and returns the results in plan order.
std::vector<report::CheckResult> RunChecks(const std::vector<PlannedCheck>& plan,
                                           const RunnerOptions& options);

// The result of a planned check that never ran because sectl was
// interrupted by `signal` (isolation/interruption.h): a skip that says so.
report::CheckResult NotRunBecauseInterrupted(const PlannedCheck& planned,
                                             const abi::HostGeneration& generation, int signal);

// What a quick registration in a child process learned about the plugin, or
// why it could not be loaded or registered (crash and hang included).
struct PluginFacts {
  std::string abi_vintage;
  int device_count = 0;
};
Expected<PluginFacts> Preflight(const CheckSettings& settings, std::chrono::milliseconds timeout,
                                bool isolate, const isolation::Confinement& confinement = {});

}  // namespace sectl::conform
