#include "conform/check_runner.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <poll.h>

#include <algorithm>
#include <deque>
#include <nlohmann/json.hpp>
#include <optional>

#include "isolation/child_process.h"
#include "isolation/guard_malloc.h"
#include "isolation/shared_memory.h"

namespace sectl::conform {
namespace {

using report::CheckResult;
using report::CheckStatus;

// How much of a check's plugin output, and how many plugin calls, a result
// carries: enough to diagnose, small enough for a CI log.
constexpr size_t kMaxLogBytes = 4096;
constexpr size_t kJournalLinesInResult = 10;
constexpr int kWaitMilliseconds = 20;

// The child's exit code when it wrote an outcome.
constexpr int kChildReported = 0;

// How often a check is run again with another broken function avoided: a
// plugin with more broken basics than this has told its story already.
constexpr size_t kMaxAvoidedFunctions = 3;

bool IsPluginFunction(int number) {
  return number >= 0 && number < static_cast<int>(abi::PluginFunction::kCount);
}

CheckResult NewResult(const PlannedCheck& planned, const abi::HostGeneration& generation) {
  CheckResult result;
  result.id = planned.check->id;
  result.title = planned.check->title;
  result.area = planned.check->area();
  result.severity = planned.check->SeverityUnder(generation);
  result.repetition = planned.repetition;
  return result;
}

std::string EncodeOutcome(const CheckOutcome& outcome) {
  std::vector<int> culprits;
  for (auto function : outcome.culprits) culprits.push_back(static_cast<int>(function));
  return nlohmann::json{{"status", report::StatusName(outcome.status)},
                        {"message", outcome.message},
                        {"details", outcome.details},
                        {"culprits", culprits},
                        {"exception_across_api", outcome.exception_across_api}}
      .dump();
}

std::optional<CheckOutcome> DecodeOutcome(const std::string& text) {
  try {
    const auto document = nlohmann::json::parse(text);
    auto status = report::ParseStatus(document.at("status").get<std::string>());
    if (!status) return std::nullopt;
    CheckOutcome outcome{*status,
                         document.at("message").get<std::string>(),
                         document.at("details"),
                         {},
                         document.at("exception_across_api").get<bool>()};
    for (int number : document.at("culprits").get<std::vector<int>>()) {
      if (!IsPluginFunction(number)) return std::nullopt;
      outcome.culprits.push_back(static_cast<abi::PluginFunction>(number));
    }
    return outcome;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

std::vector<std::string> QualifiedNames(const std::vector<abi::PluginFunction>& functions) {
  std::vector<std::string> names;
  names.reserve(functions.size());
  for (auto function : functions) names.emplace_back(abi::QualifiedName(function));
  return names;
}

// The function a dead or hung check was inside, if the journal names one.
std::optional<abi::PluginFunction> StuckFunction(const host::Journal& journal) {
  auto unfinished = journal.LastUnfinished();
  if (!unfinished || !IsPluginFunction(static_cast<int>(unfinished->function))) {
    return std::nullopt;
  }
  return unfinished->function;
}

// Fills what a result says about root causes: the culprits' names, for a
// blocked result the checks where its cause is reported, and the reason
// for the check's severity.
void AttributeRootCause(const CheckDefinition& check,
                        const std::vector<abi::PluginFunction>& culprits, bool exception_across_api,
                        CheckResult& result) {
  result.culprits = QualifiedNames(culprits);
  if (result.status == CheckStatus::kBlocked && !culprits.empty()) {
    result.blocked_by_checks = CheckRegistry::Global().CheckersOf(culprits.front());
    if (!result.blocked_by_checks.empty()) {
      result.message += fmt::format(" ({} is tested by {})", result.culprits.front(),
                                    fmt::join(result.blocked_by_checks, ", "));
    }
  }
  if (result.status != CheckStatus::kPass) {
    result.severity_reason = std::string(check.traits.severity_reason);
  }
  if (exception_across_api) {
    result.severity = report::CheckSeverity::kRequired;
    result.severity_reason =
        "every TensorFlow generation (2.5 to latest) calls the plugin from C++ with no handler "
        "around the call: an exception across the C API ends the process in std::terminate";
  }
}

std::string TruncatedLog(const std::string& output, bool truncated) {
  std::string log = output.substr(0, kMaxLogBytes);
  if (output.size() > kMaxLogBytes || truncated) log += "\n[... truncated]";
  return log;
}

// Turns how a check's process ended into its result, and the plugin
// functions it blames into `culprits`.
void Interpret(const CheckDefinition& check, const isolation::ChildResult& child,
               const host::Journal& journal, std::chrono::milliseconds timeout,
               const isolation::Confinement& confinement, CheckResult& result,
               std::vector<abi::PluginFunction>& culprits, bool& exception_across_api) {
  result.duration_s = child.seconds;
  auto output = isolation::SplitBacktrace(child.output);
  result.log = TruncatedLog(output.plugin_output, child.output_truncated);
  if (!output.backtrace.empty()) result.details["backtrace"] = output.backtrace;
  switch (child.end) {
    case isolation::ChildEnd::kTimedOut:
      result.status = CheckStatus::kTimeout;
      result.message =
          fmt::format("did not finish within {:.0f} s; the plugin was {}",
                      static_cast<double>(timeout.count()) / 1e3, journal.WhereCallsStopped());
      break;
    case isolation::ChildEnd::kSignaled:
      result.status = CheckStatus::kCrash;
      result.message =
          fmt::format("the process crashed with {} {}", isolation::SignalName(child.signal),
                      journal.WhereCallsStopped());
      // What the guard-page allocator saw, when the crash was on one of its pages.
      if (auto fault = isolation::FindGuardPageFault(output.plugin_output)) {
        result.message = fmt::format("{}: {}", *fault, result.message);
        result.details["guard_page_fault"] = *fault;
      }
      break;
    case isolation::ChildEnd::kExited:
      if (child.exit_code == isolation::kConfinementFailed &&
          child.result.starts_with(isolation::kConfinementFailedPrefix)) {
        result.status = CheckStatus::kError;
        result.message = child.result;
        break;
      }
      if (child.exit_code == isolation::kResultChannelLost) {
        result.status = CheckStatus::kCrash;
        result.message = fmt::format(
            "the plugin closed or replaced the descriptor sectl reads the check's outcome from, {}",
            journal.WhereCallsStopped());
        break;
      }
      if (child.exit_code == kChildReported) {
        if (auto outcome = DecodeOutcome(child.result)) {
          result.status = outcome->status;
          result.message = std::move(outcome->message);
          result.details = std::move(outcome->details);
          culprits = std::move(outcome->culprits);
          exception_across_api = outcome->exception_across_api;
          break;
        }
        if (!child.result.empty()) {
          result.status = CheckStatus::kError;
          result.message = "sectl could not read the check's outcome";
          break;
        }
      }
      // No outcome: the plugin ended the process (exit(), _exit()).
      result.status = CheckStatus::kCrash;
      result.message = fmt::format("the process exited with status {} without reporting, {}",
                                   child.exit_code, journal.WhereCallsStopped());
      break;
  }
  // Running out of a resource sectl limited is the plugin's doing, and what
  // a reader needs to know first.
  if (auto exhaustion = isolation::DescribeExhaustion(child, confinement);
      exhaustion && result.status != CheckStatus::kPass) {
    if (isolation::ExceededCpuLimit(child, confinement)) {
      result.status = CheckStatus::kTimeout;  // a limit on time, if not on the clock's
      result.message = fmt::format("{} {}", *exhaustion, journal.WhereCallsStopped());
    } else {
      result.message = fmt::format("{}: {}", *exhaustion, result.message);
    }
    result.details["resource_limit"] = *exhaustion;
  }
  // A process that died or hung inside a plugin function: that function is
  // the culprit, and when the check only uses it, the check is blocked.
  if (result.status == CheckStatus::kCrash || result.status == CheckStatus::kTimeout) {
    if (auto stuck = StuckFunction(journal)) {
      culprits = {*stuck};
      // Blocked only where another check tests the function: else this
      // result is the only one that can report the defect.
      if (!check.Tests(*stuck) && !CheckRegistry::Global().CheckersOf(*stuck).empty()) {
        result.details["blocked_by"] = {{"status", report::StatusName(result.status)},
                                        {"message", result.message}};
        result.message = fmt::format("blocked: {}", result.message);
        result.status = CheckStatus::kBlocked;
      }
    }
  }
  if (result.status != CheckStatus::kPass) {
    result.journal = journal.DescribeLast(kJournalLinesInResult);
  }
}

int RunInChild(const CheckDefinition& check, const CheckSettings& settings, host::Journal& journal,
               int result_fd) {
  // Before the plugin is loaded: code mapped now is sectl's, anything loaded
  // later allocates against guard pages (isolation/guard_malloc.h).
  if (settings.guard_malloc) isolation::EnableGuardMalloc(settings.plugin_path.c_str());
  const CheckOutcome outcome = RunCheckBody(check, settings, journal);
  isolation::WriteResult(result_fd, EncodeOutcome(outcome));
  return kChildReported;
}

// Whether a result is worth running again without the function that
// blocked it: it died or hung inside that function, which the check only
// uses, and another route may reach what the check tests.
std::optional<abi::PluginFunction> FunctionToAvoid(
    const CheckResult& result, const std::vector<abi::PluginFunction>& culprits,
    const std::vector<abi::PluginFunction>& avoided) {
  if (result.status != CheckStatus::kBlocked || !result.details.contains("blocked_by")) {
    return std::nullopt;
  }
  if (culprits.empty() || avoided.size() >= kMaxAvoidedFunctions) return std::nullopt;
  if (std::find(avoided.begin(), avoided.end(), culprits.front()) != avoided.end()) {
    return std::nullopt;
  }
  return culprits.front();
}

CheckResult RunInProcess(const PlannedCheck& planned, const CheckSettings& settings) {
  CheckResult result = NewResult(planned, settings.generation);
  host::Journal journal;
  const auto started = std::chrono::steady_clock::now();
  CheckOutcome outcome = RunCheckBody(*planned.check, settings, journal);
  result.duration_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  result.status = outcome.status;
  result.message = std::move(outcome.message);
  result.details = std::move(outcome.details);
  AttributeRootCause(*planned.check, outcome.culprits, outcome.exception_across_api, result);
  if (result.status != CheckStatus::kPass) {
    result.journal = journal.DescribeLast(kJournalLinesInResult);
  }
  return result;
}

// One run of a planned check: the first, or another without functions
// that crashed or hung in an earlier run (see FunctionToAvoid).
struct Attempt {
  size_t plan_index = 0;
  std::vector<abi::PluginFunction> avoid;
  // What the runs before this one ended with, for the result's details.
  nlohmann::json earlier_runs = nlohmann::json::array();
};

// One job slot: a journal in shared memory and the child using it.
struct Slot {
  isolation::SharedObject<host::JournalRegion> region;
  std::optional<isolation::ChildProcess> child;
  Attempt attempt;
};

}  // namespace

std::vector<CheckResult> RunChecks(const std::vector<PlannedCheck>& plan,
                                   const RunnerOptions& options) {
  std::vector<CheckResult> results(plan.size());
  auto deliver = [&](size_t index, CheckResult result) {
    results[index] = std::move(result);
    if (options.on_result) options.on_result(results[index]);
  };
  if (!options.isolate) {
    for (size_t i = 0; i < plan.size(); ++i) deliver(i, RunInProcess(plan[i], options.settings));
    return results;
  }

  std::vector<Slot> slots;
  for (int i = 0; i < std::max(1, options.jobs); ++i) {
    auto region = isolation::SharedObject<host::JournalRegion>::Create();
    if (!region) break;
    slots.push_back({std::move(*region), std::nullopt, Attempt{}});
  }
  std::deque<Attempt> waiting;
  for (size_t i = 0; i < plan.size(); ++i) waiting.push_back({.plan_index = i});

  auto harness_error = [&](size_t index, const Error& error) {
    CheckResult result = NewResult(plan[index], options.settings.generation);
    result.status = CheckStatus::kError;
    result.message = fmt::format("sectl could not run the check: {}", error.message());
    deliver(index, std::move(result));
  };

  size_t running = 0;
  while (!waiting.empty() || running > 0) {
    for (auto& slot : slots) {
      if (slot.child || waiting.empty()) continue;
      Attempt attempt = std::move(waiting.front());
      waiting.pop_front();
      host::Journal journal(slot.region.get());
      journal.Clear();
      const PlannedCheck& planned = plan[attempt.plan_index];
      CheckSettings settings = options.settings;
      settings.avoid.insert(settings.avoid.end(), attempt.avoid.begin(), attempt.avoid.end());
      auto child = isolation::ChildProcess::Start(
          [&](int result_fd) { return RunInChild(*planned.check, settings, journal, result_fd); },
          {.timeout = options.timeout, .confinement = options.confinement});
      if (!child) {
        harness_error(attempt.plan_index, child.error());
        continue;
      }
      slot.child.emplace(std::move(*child));
      slot.attempt = std::move(attempt);
      ++running;
    }
    std::vector<pollfd> descriptors;
    for (const auto& slot : slots) {
      if (!slot.child) continue;
      auto own = slot.child->PollDescriptors();
      descriptors.insert(descriptors.end(), own.begin(), own.end());
    }
    ::poll(descriptors.data(), descriptors.size(), kWaitMilliseconds);
    for (auto& slot : slots) {
      if (!slot.child || !slot.child->Poll()) continue;
      Attempt& attempt = slot.attempt;
      const CheckDefinition& check = *plan[attempt.plan_index].check;
      CheckResult result = NewResult(plan[attempt.plan_index], options.settings.generation);
      host::Journal journal(slot.region.get());
      std::vector<abi::PluginFunction> culprits;
      bool exception_across_api = false;
      Interpret(check, slot.child->result(), journal, options.timeout, options.confinement, result,
                culprits, exception_across_api);
      slot.child.reset();
      --running;
      if (auto avoid = FunctionToAvoid(result, culprits, attempt.avoid)) {
        // Run it again on other routes; the result of the last run stands.
        attempt.earlier_runs.push_back({{"avoiding", QualifiedNames(attempt.avoid)},
                                        {"status", report::StatusName(result.status)},
                                        {"message", result.message}});
        attempt.avoid.push_back(*avoid);
        waiting.push_front(std::move(attempt));
        continue;
      }
      if (!attempt.earlier_runs.empty()) {
        result.details["earlier_runs"] = attempt.earlier_runs;
        result.details["avoided"] = QualifiedNames(attempt.avoid);
        // A run that found no other route keeps the first run's account of
        // what blocked it.
        const bool blocked_by_avoided =
            result.status == CheckStatus::kBlocked && !culprits.empty() &&
            std::find(attempt.avoid.begin(), attempt.avoid.end(), culprits.front()) !=
                attempt.avoid.end();
        if (blocked_by_avoided && !result.details.contains("blocked_by")) {
          const size_t first = static_cast<size_t>(
              std::find(attempt.avoid.begin(), attempt.avoid.end(), culprits.front()) -
              attempt.avoid.begin());
          result.message = attempt.earlier_runs.at(first)["message"].get<std::string>();
        }
      }
      AttributeRootCause(check, culprits, exception_across_api, result);
      deliver(attempt.plan_index, std::move(result));
    }
  }
  return results;
}

Expected<PluginFacts> Preflight(const CheckSettings& settings, std::chrono::milliseconds timeout,
                                bool isolate, const isolation::Confinement& confinement) {
  auto learn = [&settings](host::Journal& journal) -> Expected<PluginFacts> {
    auto library = loader::PluginLibrary::Open(settings.plugin_path, {.lazy = settings.lazy});
    if (!library) return tl::unexpected(library.error());
    auto platform = host::Platform::Create(*library, journal, {.generation = settings.generation});
    if (!platform) return tl::unexpected(platform.error().WithContext(settings.plugin_path));
    PluginFacts facts;
    facts.abi_vintage = (*platform)->AbiVintage();
    facts.device_count = (*platform)->DeviceCount().value_or(0);
    return facts;
  };
  if (!isolate) {
    host::Journal journal;
    return learn(journal);
  }
  auto region = isolation::SharedObject<host::JournalRegion>::Create();
  if (!region) return tl::unexpected(region.error());
  host::Journal journal(region->get());
  auto child = isolation::RunInChildProcess(
      [&](int result_fd) {
        auto facts = learn(journal);
        nlohmann::json answer = facts ? nlohmann::json{{"abi_vintage", facts->abi_vintage},
                                                       {"device_count", facts->device_count}}
                                      : nlohmann::json{{"error", facts.error().message()}};
        isolation::WriteResult(result_fd, answer.dump());
        return kChildReported;
      },
      {.timeout = timeout, .confinement = confinement});
  if (!child) return tl::unexpected(child.error());
  const std::string& path = settings.plugin_path;
  switch (child->end) {
    case isolation::ChildEnd::kTimedOut:
      return Fail(
          ErrorCode::kTimeout,
          fmt::format("{}: the plugin did not return within {:.0f} s {}; it was killed", path,
                      static_cast<double>(timeout.count()) / 1e3, journal.WhereCallsStopped()));
    case isolation::ChildEnd::kSignaled:
      if (auto exhaustion = isolation::DescribeExhaustion(*child, confinement)) {
        return Fail(ErrorCode::kCrashed, fmt::format("{}: the plugin {} {}", path, *exhaustion,
                                                     journal.WhereCallsStopped()));
      }
      return Fail(ErrorCode::kCrashed,
                  fmt::format("{}: the plugin crashed with {} {}", path,
                              isolation::SignalName(child->signal), journal.WhereCallsStopped()));
    case isolation::ChildEnd::kExited:
      break;
  }
  try {
    const auto answer = nlohmann::json::parse(child->result);
    if (answer.contains("error")) {
      return Fail(ErrorCode::kPluginError, answer.at("error").get<std::string>());
    }
    return PluginFacts{answer.at("abi_vintage").get<std::string>(),
                       answer.at("device_count").get<int>()};
  } catch (const nlohmann::json::exception&) {
    return Fail(ErrorCode::kPluginError,
                fmt::format("{}: the plugin ended the process with exit status {} {}", path,
                            child->exit_code, journal.WhereCallsStopped()));
  }
}

}  // namespace sectl::conform
