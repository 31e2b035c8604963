// Before the checks: the plugin functions that checks use as helpers (to
// keep a stream busy, to see it get somewhere, to wait for it) are tried
// once each on an idle stream, in processes of their own, with a short
// deadline. What misbehaves (crashes, hangs, fails, or accepts work that
// never finishes: a host callback never run, an event never COMPLETE) is
// learned once per run, like a crash, and goes into every check's avoid
// list: checks that only use the function take another route at once
// instead of each waiting seconds for it, and checks that test it wait only
// briefly and say what was seen before the checks.
#pragma once

#include <chrono>
#include <string_view>
#include <vector>

#include "conform/check_runner.h"
#include "conform/common_check_context.h"
#include "conform/learned_problem.h"
#include "isolation/confinement.h"
#include "report/conform_report.h"

namespace sectl::conform {

// How long a probe waits for what a correct plugin does at once on an idle
// stream (a callback to run, an event to complete, a copy to land).
inline constexpr std::chrono::milliseconds kTriageStallWindow{1000};
// How long a probe's calls may take once its device exists: a call still
// running then is a hang, reported by the probe's own process. A helper
// that hangs so costs one short wait per run, not --timeout per check.
inline constexpr std::chrono::milliseconds kTriageHangWindow{3000};

struct TriageOptions {
  CheckSettings settings;  // the plugin, the generation and the device under test
  int jobs = 1;            // probes at once, as checks (-j)
  // The most a probe's process may take, loading the plugin included
  // (conform's --timeout): hangs in loading or registering are the checks'
  // to find; a hang in a helper ends at kTriageHangWindow.
  std::chrono::milliseconds timeout{30'000};
  isolation::Confinement confinement;
};

// Tries the helpers; returns what misbehaved, one entry per function, in a
// fixed order. Nothing for a plugin without devices, or when sectl is
// interrupted.
std::vector<LearnedProblem> TriageHelpers(const TriageOptions& options);

// Runs the triage where it applies (profile tensorflow, a StreamExecutor
// plugin, checks in processes of their own) and hands what it learned to
// every check: `runner.settings.avoid` and `.learned_before_checks`.
// Returns it as the report says it.
std::vector<report::LearnedBeforeChecks> LearnBeforeChecks(RunnerOptions& runner,
                                                           std::string_view profile);

}  // namespace sectl::conform
