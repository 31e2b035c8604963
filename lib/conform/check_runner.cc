#include "conform/check_runner.h"

#include <fmt/format.h>
#include <poll.h>

#include <deque>
#include <nlohmann/json.hpp>
#include <optional>

#include "isolation/child_process.h"
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

CheckResult NewResult(const PlannedCheck& planned) {
  CheckResult result;
  result.id = planned.check->id;
  result.title = planned.check->title;
  result.area = planned.check->area();
  result.severity = planned.check->severity;
  result.repetition = planned.repetition;
  return result;
}

std::string EncodeOutcome(const CheckOutcome& outcome) {
  return nlohmann::json{{"status", report::StatusName(outcome.status)},
                        {"message", outcome.message},
                        {"details", outcome.details}}
      .dump();
}

std::optional<CheckOutcome> DecodeOutcome(const std::string& text) {
  try {
    const auto document = nlohmann::json::parse(text);
    auto status = report::ParseStatus(document.at("status").get<std::string>());
    if (!status) return std::nullopt;
    return CheckOutcome{*status, document.at("message").get<std::string>(), document.at("details")};
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

std::string TruncatedLog(const std::string& output, bool truncated) {
  std::string log = output.substr(0, kMaxLogBytes);
  if (output.size() > kMaxLogBytes || truncated) log += "\n[... truncated]";
  return log;
}

// Turns how a check's process ended into its result.
void Interpret(const isolation::ChildResult& child, const host::Journal& journal,
               std::chrono::milliseconds timeout, const isolation::Confinement& confinement,
               CheckResult& result) {
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
  if (result.status != CheckStatus::kPass) {
    result.journal = journal.DescribeLast(kJournalLinesInResult);
  }
}

int RunInChild(const CheckDefinition& check, const CheckSettings& settings, host::Journal& journal,
               int result_fd) {
  const CheckOutcome outcome = RunCheckBody(check.body, settings, journal);
  isolation::WriteResult(result_fd, EncodeOutcome(outcome));
  return kChildReported;
}

CheckResult RunInProcess(const PlannedCheck& planned, const CheckSettings& settings) {
  CheckResult result = NewResult(planned);
  host::Journal journal;
  const auto started = std::chrono::steady_clock::now();
  CheckOutcome outcome = RunCheckBody(planned.check->body, settings, journal);
  result.duration_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  result.status = outcome.status;
  result.message = std::move(outcome.message);
  result.details = std::move(outcome.details);
  if (result.status != CheckStatus::kPass) {
    result.journal = journal.DescribeLast(kJournalLinesInResult);
  }
  return result;
}

// One job slot: a journal in shared memory and the child using it.
struct Slot {
  isolation::SharedObject<host::JournalRegion> region;
  std::optional<isolation::ChildProcess> child;
  size_t plan_index = 0;
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
    slots.push_back({std::move(*region), std::nullopt, 0});
  }
  std::deque<size_t> waiting;
  for (size_t i = 0; i < plan.size(); ++i) waiting.push_back(i);

  auto harness_error = [&](size_t index, const Error& error) {
    CheckResult result = NewResult(plan[index]);
    result.status = CheckStatus::kError;
    result.message = fmt::format("sectl could not run the check: {}", error.message());
    deliver(index, std::move(result));
  };

  size_t running = 0;
  while (!waiting.empty() || running > 0) {
    for (auto& slot : slots) {
      if (slot.child || waiting.empty()) continue;
      const size_t index = waiting.front();
      waiting.pop_front();
      host::Journal journal(slot.region.get());
      journal.Clear();
      const PlannedCheck& planned = plan[index];
      auto child = isolation::ChildProcess::Start(
          [&](int result_fd) {
            return RunInChild(*planned.check, options.settings, journal, result_fd);
          },
          {.timeout = options.timeout, .confinement = options.confinement});
      if (!child) {
        harness_error(index, child.error());
        continue;
      }
      slot.child.emplace(std::move(*child));
      slot.plan_index = index;
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
      CheckResult result = NewResult(plan[slot.plan_index]);
      host::Journal journal(slot.region.get());
      Interpret(slot.child->result(), journal, options.timeout, options.confinement, result);
      slot.child.reset();
      --running;
      deliver(slot.plan_index, std::move(result));
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
