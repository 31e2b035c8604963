#include "conform/check_runner.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <poll.h>
#include <sys/mman.h>

#include <algorithm>
#include <csignal>
#include <deque>
#include <nlohmann/json.hpp>
#include <optional>

#include "base/json_text.h"
#include "conform/check_process_server.h"
#include "conform/crash_backtrace.h"
#include "conform/null_handle_crash.h"
#include "conform/run_check_body.h"
#include "host/platform.h"
#include "isolation/child_outcome.h"
#include "isolation/child_process.h"
#include "isolation/guard_malloc.h"
#include "isolation/interruption.h"
#include "isolation/shared_memory.h"
#include "loader/exported_symbols.h"

namespace sectl::conform {
namespace {

using report::CheckResult;
using report::CheckStatus;

// How much of a check's plugin output, and how many plugin calls, a result
// carries: enough to diagnose, small enough for a CI log.
constexpr size_t kMaxLogBytes = 4096;
constexpr size_t kJournalLinesInResult = 10;
constexpr int kWaitMilliseconds = 20;

using isolation::kChildReported;

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
  return EncodeJson(nlohmann::json{{"status", report::StatusName(outcome.status)},
                                   {"message", outcome.message},
                                   {"details", outcome.details},
                                   {"culprits", culprits},
                                   {"exception_across_api", outcome.exception_across_api}});
}

std::optional<CheckOutcome> DecodeOutcome(const std::string& text) {
  try {
    // Depth-bounded (a null document fails at() below): the details end up in
    // the report, whose encoder recurses.
    const auto document = ParseUntrustedJson(text).value_or(nlohmann::json());
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

// Why a check that is not required becomes required: it crashed or hung
// inside `function`, which `generation` calls in normal use, so TensorFlow
// would die or stall there too. Empty when it does not.
std::string EscalationReason(const CheckDefinition& check, const CheckResult& result,
                             const std::vector<abi::PluginFunction>& culprits,
                             const abi::HostGeneration& generation) {
  if (result.severity == report::CheckSeverity::kRequired || culprits.empty()) return {};
  if (result.status != CheckStatus::kCrash && result.status != CheckStatus::kTimeout) return {};
  if (!check.traits.unusual_use.empty() || !check.InProfile(kTensorFlowProfile)) return {};
  const abi::PluginFunction function = culprits.back();  // the one that was running
  if (!abi::CallsInNormalUse(function, generation)) return {};
  return fmt::format(
      "{} calls {} in normal use, so a {} there {} TensorFlow's process as it did this check's",
      generation.description, abi::QualifiedName(function),
      result.status == CheckStatus::kCrash ? "crash" : "hang",
      result.status == CheckStatus::kCrash ? "ends" : "stalls");
}

// A process that died inside a function handed a null handle that its
// creator returned (conform/null_handle_crash.h): on SIGSEGV or SIGBUS it
// dereferenced the handle; on an abort, or an exit without a report (the
// plugin's own assertion, a sanitizer in an instrumented plugin), it
// stopped on it. A hang is not attributed.
std::optional<NullHandleCrash> NullHandleCrashOf(const isolation::ChildResult& child,
                                                 const host::Journal& journal) {
  std::string_view how;
  if (child.end == isolation::ChildEnd::kSignaled &&
      (child.signal == SIGSEGV || child.signal == SIGBUS)) {
    how = "dereferenced";
  } else if ((child.end == isolation::ChildEnd::kSignaled && child.signal == SIGABRT) ||
             child.end == isolation::ChildEnd::kExited) {
    how = "ended the process on";
  } else {
    return std::nullopt;
  }
  auto unfinished = journal.LastUnfinished();
  if (!unfinished) return std::nullopt;
  return FindNullHandleCrash(journal, *unfinished, how);
}

// Fills what a result says about root causes: the culprits' names, for a
// blocked result the checks where its cause is reported, and the reason
// for the check's severity; then settles its status (report::SettleStatus),
// so that its one word says what it does to the verdict.
void AttributeRootCause(const CheckDefinition& check,
                        const std::vector<abi::PluginFunction>& culprits, bool exception_across_api,
                        const abi::HostGeneration& generation, CheckResult& result) {
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
  if (std::string reason = EscalationReason(check, result, culprits, generation); !reason.empty()) {
    result.severity = report::CheckSeverity::kRequired;
    result.severity_reason = std::move(reason);
  }
  if (exception_across_api) {
    result.severity = report::CheckSeverity::kRequired;
    result.severity_reason =
        !culprits.empty() && abi::IsTvmRuntimeFunction(culprits.front())
            ? "TVM's C entry points are called from C and from generated code, which cannot "
              "catch: an exception escaping one ends the process in std::terminate"
            : "every TensorFlow generation (2.5 to latest) calls the plugin from C++ with no "
              "handler around the call: an exception across the C API ends the process in "
              "std::terminate";
  }
  report::SettleStatus(result);
}

std::string TruncatedLog(const std::string& output, bool truncated) {
  std::string log = output.substr(0, kMaxLogBytes);
  if (output.size() > kMaxLogBytes || truncated) log += "\n[... truncated]";
  return log;
}

// Processes the check's process left running (a daemon it forked, an
// orphan that changed session): sectl ended them, and says so. At most a
// warning: TensorFlow itself is not harmed by them, whichever generation;
// the machine that runs it is, which is why a passing check still says so.
void ReportStrayProcesses(const isolation::ChildResult& child, CheckResult& result) {
  if (child.stray_processes <= 0) return;
  const std::string what = fmt::format(
      "the plugin left {} process(es) running after the check's process ended; sectl "
      "ended them",
      child.stray_processes);
  if (result.status == CheckStatus::kPass) {
    result.status = CheckStatus::kWarn;
    result.message = what;
  } else {
    result.message = fmt::format("{}; {}", result.message, what);
  }
}

// Turns how a check's process ended into its result, and the plugin
// functions it blames into `culprits`.
void Interpret(const CheckDefinition& check, const isolation::ChildResult& child,
               const host::Journal& journal, const CheckSettings& settings,
               const isolation::Confinement& confinement, CheckResult& result,
               std::vector<abi::PluginFunction>& culprits, bool& exception_across_api) {
  result.duration_s = child.seconds;
  result.log = TruncatedLog(child.output, child.output_truncated);
  if (!child.backtrace.empty()) {
    result.details["backtrace"] = ReadableBacktrace(child.backtrace, settings.plugin_path);
  }
  if (child.stray_processes > 0) result.details["stray_processes"] = child.stray_processes;
  const isolation::ChildOutcome judged = isolation::JudgeChild(child, confinement);
  switch (judged.blame) {
    case isolation::Blame::kSectl:
      result.status = CheckStatus::kError;
      result.message = judged.description;
      break;
    case isolation::Blame::kLimit:
      // Running out of a resource sectl limited is the plugin's doing; a
      // limit on CPU time is a limit on time, if not on the clock's.
      result.status = isolation::ExceededCpuLimit(child, confinement) ? CheckStatus::kTimeout
                                                                      : CheckStatus::kCrash;
      result.message = fmt::format("{} {}", judged.description, journal.WhereCallsStopped());
      result.details["resource_limit"] = judged.description;
      break;
    case isolation::Blame::kPlugin:
      if (child.end == isolation::ChildEnd::kTimedOut) {
        result.status = CheckStatus::kTimeout;
        result.message =
            fmt::format("{}; the plugin was {}", judged.description, journal.WhereCallsStopped());
      } else {
        result.status = CheckStatus::kCrash;
        result.message =
            fmt::format("the process {} {}", judged.description, journal.WhereCallsStopped());
      }
      // What the guard-page allocator saw, when the crash was on one of its pages.
      if (child.end == isolation::ChildEnd::kSignaled && child.guard_page_fault) {
        result.message = fmt::format("{}: {}", *child.guard_page_fault, result.message);
        result.details["guard_page_fault"] = *child.guard_page_fault;
      }
      break;
    case isolation::Blame::kNone:
      if (auto outcome = DecodeOutcome(child.result)) {
        result.status = outcome->status;
        result.message = std::move(outcome->message);
        if (!result.details.empty() && outcome->details.is_object()) {
          outcome->details.update(result.details);
        }
        result.details = std::move(outcome->details);
        culprits = std::move(outcome->culprits);
        exception_across_api = outcome->exception_across_api;
        // The check ran into a limit and said so in its own terms.
        if (auto exhaustion = isolation::DescribeExhaustion(child, confinement);
            exhaustion && result.status != CheckStatus::kPass) {
          result.message = fmt::format("{}: {}", *exhaustion, result.message);
          result.details["resource_limit"] = *exhaustion;
        }
      } else {
        // Framed with the child's key, so sectl's own code wrote it.
        result.status = CheckStatus::kError;
        result.message = "sectl could not read the check's outcome";
      }
      break;
  }
  // A process that died or hung inside a plugin function: that function is
  // the culprit, and when the check only uses it, the check is blocked.
  if (result.status == CheckStatus::kCrash || result.status == CheckStatus::kTimeout) {
    if (auto stuck = StuckFunction(journal)) {
      culprits = {*stuck};
      // Died on a handle its creator never set: the creator first.
      if (auto null_handle = NullHandleCrashOf(child, journal)) {
        culprits = {null_handle->creator, null_handle->crashed};
        result.message += "; " + null_handle->description;
      }
      const bool tested = std::any_of(culprits.begin(), culprits.end(),
                                      [&](abi::PluginFunction f) { return check.Tests(f); });
      // Blocked only where another check tests the function: else this
      // result is the only one that can report the defect.
      if (!tested && !CheckRegistry::Global().CheckersOf(culprits.front()).empty()) {
        result.details["blocked_by"] = {{"status", report::StatusName(result.status)},
                                        {"message", result.message}};
        result.message = fmt::format("blocked: {}", result.message);
        result.status = CheckStatus::kBlocked;
      }
    }
  }
  ReportStrayProcesses(child, result);
  if (result.status != CheckStatus::kPass) {
    result.journal = journal.DescribeLast(kJournalLinesInResult);
  }
}

int RunInChild(const CheckDefinition& check, const CheckSettings& settings, host::Journal& journal,
               int result_fd) {
  // Before the plugin is loaded: code mapped now is sectl's, anything loaded
  // later allocates against guard pages (isolation/guard_malloc.h).
  // With a plugin server, the guard is the server's (check_process_server.h).
  if (settings.guard_malloc && settings.plugin_server.empty()) {
    isolation::EnableGuardMalloc(settings.plugin_path.c_str());
  }
  const CheckOutcome outcome = RunCheckBody(check, settings, journal);
  isolation::WriteResult(result_fd, EncodeOutcome(outcome));
  EndCheckProcessServer();
  return kChildReported;
}

// Whether a result is worth running again without the function that
// blocked it: it died or hung inside that function, which the check only
// uses, and another route may reach what the check tests.
std::optional<abi::PluginFunction> FunctionToAvoid(
    const CheckResult& result, const std::vector<abi::PluginFunction>& culprits,
    const std::vector<abi::PluginFunction>& avoided,
    const std::vector<abi::PluginFunction>& avoided_by_the_run) {
  if (result.status != CheckStatus::kBlocked || !result.details.contains("blocked_by")) {
    return std::nullopt;
  }
  if (culprits.empty() || avoided.size() >= kMaxAvoidedFunctions) return std::nullopt;
  // Avoided already (by this check's earlier runs, or by every check since
  // before the checks): another run would take the same routes.
  for (const auto* list : {&avoided, &avoided_by_the_run}) {
    if (std::find(list->begin(), list->end(), culprits.front()) != list->end()) {
      return std::nullopt;
    }
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
  AttributeRootCause(*planned.check, outcome.culprits, outcome.exception_across_api,
                     settings.generation, result);
  if (result.status != CheckStatus::kPass) {
    result.journal = journal.DescribeLast(kJournalLinesInResult);
  }
  return result;
}

// A check whose process sectl killed because sectl itself was interrupted:
// not the plugin's doing, and no verdict on it.
CheckResult StoppedByInterruption(const PlannedCheck& planned,
                                  const abi::HostGeneration& generation,
                                  const isolation::ChildResult& child) {
  CheckResult result = NotRunBecauseInterrupted(planned, generation, child.signal);
  result.message = fmt::format(
      "not finished: sectl was interrupted by {} while the check ran, and ended its process",
      isolation::SignalName(child.signal));
  result.duration_s = child.seconds;
  result.log = TruncatedLog(child.output, child.output_truncated);
  if (child.stray_processes > 0) result.details["stray_processes"] = child.stray_processes;
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

// Marks every journal but `chosen`'s as not inherited by the next fork, so a
// check's process maps its own journal only: a plugin that overwrites every
// shared mapping it finds cannot reach the journal of a check running beside
// it (-j), which sectl would otherwise read as that check's calls.
void InheritOnlyJournalOf(const Slot& chosen, const std::vector<Slot>& slots) {
  for (const Slot& slot : slots) {
    // It fails only for a range that is not mapped, which a slot's is.
    (void)::madvise(slot.region.get(), sizeof(host::JournalRegion),
                    &slot == &chosen ? MADV_DOFORK : MADV_DONTFORK);
  }
}

// The entry points a plugin file exports, for the checks that need one
// (CheckTraits::needs_entry_point).
class ModuleExports {
 public:
  explicit ModuleExports(const std::string& plugin_path) {
    if (auto exported = loader::ExportedFunctions(plugin_path)) {
      exported_ = std::move(*exported);
      read_ = true;
    }
  }

  // A skip result for a check whose entry point the file does not export;
  // nullopt when the check runs (the file could not be read: the check
  // then finds out for itself).
  std::optional<CheckResult> SkipWithoutModule(const PlannedCheck& planned,
                                               const abi::HostGeneration& generation) const {
    const auto& traits = planned.check->traits;
    if (!read_ || traits.needs_entry_point.empty()) return std::nullopt;
    if (std::find(exported_.begin(), exported_.end(), traits.needs_entry_point) !=
        exported_.end()) {
      return std::nullopt;
    }
    CheckResult result = NewResult(planned, generation);
    result.status = CheckStatus::kSkip;
    result.message = std::string(traits.skip_reason);
    return result;
  }

 private:
  bool read_ = false;
  std::vector<std::string> exported_;
};

}  // namespace

CheckResult NotRunBecauseInterrupted(const PlannedCheck& planned,
                                     const abi::HostGeneration& generation, int signal) {
  CheckResult result = NewResult(planned, generation);
  result.status = CheckStatus::kSkip;
  result.message =
      fmt::format("not run: sectl was interrupted by {}", isolation::SignalName(signal));
  result.details["interrupted"] = isolation::SignalName(signal);
  return result;
}

std::vector<CheckResult> RunChecks(const std::vector<PlannedCheck>& plan,
                                   const RunnerOptions& options) {
  std::vector<CheckResult> results(plan.size());
  auto deliver = [&](size_t index, CheckResult result) {
    results[index] = std::move(result);
    if (options.on_result) options.on_result(results[index]);
  };
  // The module checks of a plugin without the module skip here, read from
  // the file's exported symbols; the rest run.
  const ModuleExports exports(options.settings.plugin_path);
  std::vector<PlannedCheck> to_run;
  std::vector<size_t> run_index;  // to_run[i] is plan[run_index[i]]
  for (size_t i = 0; i < plan.size(); ++i) {
    if (auto skipped = exports.SkipWithoutModule(plan[i], options.settings.generation)) {
      deliver(i, std::move(*skipped));
    } else {
      to_run.push_back(plan[i]);
      run_index.push_back(i);
    }
  }
  if (to_run.size() < plan.size()) {
    // Each of these is reported (on_result) as it arrives, in there.
    std::vector<CheckResult> ran = RunChecks(to_run, options);
    for (size_t i = 0; i < ran.size(); ++i) results[run_index[i]] = std::move(ran[i]);
    return results;
  }
  if (!options.isolate) {
    for (size_t i = 0; i < plan.size(); ++i) {
      const int signal = isolation::InterruptedBy();
      deliver(i, signal != 0
                     ? NotRunBecauseInterrupted(plan[i], options.settings.generation, signal)
                     : RunInProcess(plan[i], options.settings));
    }
    return results;
  }

  auto harness_error = [&](size_t index, const Error& error) {
    CheckResult result = NewResult(plan[index], options.settings.generation);
    result.status = CheckStatus::kError;
    result.message = fmt::format("sectl could not run the check: {}", error.message());
    deliver(index, std::move(result));
  };

  std::vector<Slot> slots;
  std::optional<Error> slot_failure;
  for (int i = 0; i < std::max(1, options.jobs); ++i) {
    auto region = isolation::SharedObject<host::JournalRegion>::Create();
    if (!region) {
      slot_failure = region.error();
      break;
    }
    slots.push_back({std::move(*region), std::nullopt, Attempt{}});
  }
  if (slots.empty()) {
    // Not one journal: nothing can run, and waiting for a free slot would
    // never end.
    for (size_t i = 0; i < plan.size(); ++i) harness_error(i, *slot_failure);
    return results;
  }
  std::deque<Attempt> waiting;
  for (size_t i = 0; i < plan.size(); ++i) waiting.push_back({.plan_index = i});

  size_t running = 0;
  while (!waiting.empty() || running > 0) {
    // Interrupted: nothing new starts; the running checks' processes are
    // dead already (isolation/interruption.h) and end below.
    if (const int signal = isolation::InterruptedBy(); signal != 0) {
      for (const Attempt& attempt : waiting) {
        deliver(attempt.plan_index, NotRunBecauseInterrupted(plan[attempt.plan_index],
                                                             options.settings.generation, signal));
      }
      waiting.clear();
    }
    for (auto& slot : slots) {
      if (slot.child || waiting.empty()) continue;
      Attempt attempt = std::move(waiting.front());
      waiting.pop_front();
      host::Journal journal(slot.region.get());
      journal.Clear();
      const PlannedCheck& planned = plan[attempt.plan_index];
      CheckSettings settings = options.settings;
      settings.avoid.insert(settings.avoid.end(), attempt.avoid.begin(), attempt.avoid.end());
      InheritOnlyJournalOf(slot, slots);
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
      if (slot.child->result().end == isolation::ChildEnd::kInterrupted) {
        deliver(attempt.plan_index,
                StoppedByInterruption(plan[attempt.plan_index], options.settings.generation,
                                      slot.child->result()));
        slot.child.reset();
        --running;
        continue;
      }
      const CheckDefinition& check = *plan[attempt.plan_index].check;
      CheckResult result = NewResult(plan[attempt.plan_index], options.settings.generation);
      host::Journal journal(slot.region.get());
      std::vector<abi::PluginFunction> culprits;
      bool exception_across_api = false;
      Interpret(check, slot.child->result(), journal, options.settings, options.confinement, result,
                culprits, exception_across_api);
      slot.child.reset();
      --running;
      if (auto avoid = FunctionToAvoid(result, culprits, attempt.avoid, options.settings.avoid)) {
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
      AttributeRootCause(check, culprits, exception_across_api, options.settings.generation,
                         result);
      deliver(attempt.plan_index, std::move(result));
    }
  }
  return results;
}

Expected<PluginFacts> Preflight(const CheckSettings& settings, std::chrono::milliseconds timeout,
                                bool isolate, const isolation::Confinement& confinement) {
  // In a plugin server when the settings name one, as the checks are: what
  // is learned here decides which checks run.
  auto learn = [&settings](host::Journal& journal,
                           remote::PluginServer* server) -> Expected<PluginFacts> {
    auto library = server != nullptr
                       ? loader::PluginLibrary::OpenInServer(settings.plugin_path,
                                                             {.lazy = settings.lazy}, *server)
                       : loader::PluginLibrary::Open(settings.plugin_path, {.lazy = settings.lazy});
    if (!library) return tl::unexpected(library.error());
    auto platform = host::Platform::Create(*library, journal,
                                           {.generation = settings.generation, .server = server});
    if (!platform) return tl::unexpected(platform.error().WithContext(settings.plugin_path));
    PluginFacts facts;
    facts.abi_vintage = (*platform)->AbiVintage();
    facts.device_count = (*platform)->DeviceCount().value_or(0);
    return facts;
  };
  if (!isolate) {
    host::Journal journal;
    return learn(journal, nullptr);
  }
  auto region = isolation::SharedObject<host::JournalRegion>::Create();
  if (!region) return tl::unexpected(region.error());
  host::Journal journal(region->get());
  auto child = isolation::RunInChildProcess(
      [&](int result_fd) {
        remote::PluginServer* server = nullptr;
        if (!settings.plugin_server.empty()) {
          auto started = StartCheckProcessServer(settings.plugin_server, false);
          if (!started) {
            const std::string why = started.error().message();
            isolation::WriteResult(result_fd, EncodeJson(nlohmann::json{{"sectl_error", why}}));
            return kChildReported;
          }
          server = *started;
        }
        auto facts = learn(journal, server);
        nlohmann::json answer = facts ? nlohmann::json{{"abi_vintage", facts->abi_vintage},
                                                       {"device_count", facts->device_count}}
                                      : nlohmann::json{{"error", facts.error().message()}};
        // The error may carry the plugin's own text, which need not be UTF-8.
        isolation::WriteResult(result_fd, EncodeJson(answer));
        EndCheckProcessServer();
        return kChildReported;
      },
      {.timeout = timeout, .confinement = confinement});
  if (!child) return tl::unexpected(child.error());
  const std::string& path = settings.plugin_path;
  const isolation::ChildOutcome judged = isolation::JudgeChild(*child, confinement);
  switch (judged.blame) {
    case isolation::Blame::kSectl:
      return Fail(ErrorCode::kInternal, judged.description);
    case isolation::Blame::kLimit:
    case isolation::Blame::kPlugin: {
      const ErrorCode code = child->end == isolation::ChildEnd::kTimedOut ? ErrorCode::kTimeout
                             : child->end == isolation::ChildEnd::kExited ? ErrorCode::kPluginError
                                                                          : ErrorCode::kCrashed;
      return Fail(code, fmt::format("{}: the plugin {} {}", path, judged.description,
                                    journal.WhereCallsStopped()));
    }
    case isolation::Blame::kNone:
      break;
  }
  try {
    const auto answer = ParseUntrustedJson(child->result).value_or(nlohmann::json());
    if (answer.contains("sectl_error")) {
      return Fail(ErrorCode::kInternal, fmt::format("{}: starting the plugin server: {}", path,
                                                    answer.at("sectl_error").get<std::string>()));
    }
    if (answer.contains("error")) {
      return Fail(ErrorCode::kPluginError, answer.at("error").get<std::string>());
    }
    return PluginFacts{answer.at("abi_vintage").get<std::string>(),
                       answer.at("device_count").get<int>()};
  } catch (const nlohmann::json::exception&) {
    return Fail(ErrorCode::kInternal, fmt::format("{}: sectl could not read what the plugin's "
                                                  "process learned",
                                                  path));
  }
}

}  // namespace sectl::conform
