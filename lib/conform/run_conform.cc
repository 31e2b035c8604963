#include "conform/run_conform.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <filesystem>

#include "base/timestamp.h"
#include "conform/check_runner.h"
#include "conform/helper_triage.h"
#include "conform/throughput.h"
#include "conform/tvm_preflight.h"
#include "conform/tvm_runtime_preflight.h"
#include "isolation/child_process.h"
#include "isolation/interruption.h"
#include "isolation/sandbox.h"
#include "loader/plugin_file_pin.h"
#include "tvm/device_api_route.h"

namespace sectl::conform {
namespace {

using Clock = std::chrono::system_clock;

report::CheckResult SkippedByBaseline(const PlannedCheck& planned, const BaselineEntry& entry,
                                      const abi::HostGeneration& generation) {
  report::CheckResult result;
  result.id = planned.check->id;
  result.title = planned.check->title;
  result.area = planned.check->area();
  result.severity = planned.check->SeverityUnder(generation);
  result.repetition = planned.repetition;
  result.status = report::CheckStatus::kSkip;
  result.message =
      fmt::format("not run: the baseline skips it ({}: {})", entry.location, entry.reason);
  return result;
}

// A TVM C Device API plugin's facts in the StreamExecutor form the rest of
// the run uses (the --device ordinal is always 0 for it).
Expected<PluginFacts> TvmFactsAsPluginFacts(const Expected<TvmPluginFacts>& facts) {
  if (!facts) return tl::unexpected(facts.error());
  PluginFacts common;
  common.abi_vintage = "TVM C Device API (RFC 0031, TVM v0.9-v0.18)";
  common.device_count = facts->device_count;
  return common;
}

// The device under test as the report names it (ConformReport::device). A
// TVM C Device API device is named by --tvm-device until the preflight has
// resolved which device that is (RunConform).
std::string DeviceUnderTest(const CheckSettings& settings) {
  switch (settings.abi) {
    case loader::PluginAbi::kTvmRuntime:
      return fmt::format("{}({})", tvm::DeviceTypeName(settings.tvm_device_type),
                         settings.device_ordinal);
    case loader::PluginAbi::kTvmCDevice:
      return settings.tvm_device;
    case loader::PluginAbi::kStreamExecutor:
      break;
  }
  return fmt::format("ordinal {}", settings.device_ordinal);
}

}  // namespace

std::vector<PlannedCheck> PlanChecks(const std::string& profile,
                                     const SelectionOptions& selection) {
  std::vector<const CheckDefinition*> candidates;
  std::vector<std::string> ids;
  for (const auto& check : CheckRegistry::Global().checks()) {
    if (!check.InProfile(profile)) continue;
    candidates.push_back(&check);
    ids.push_back(check.id);
  }
  std::vector<PlannedCheck> plan;
  for (const PlannedRun& run : PlanRuns(ids, selection)) {
    plan.push_back({candidates[run.check_index], run.repetition});
  }
  return plan;
}

Expected<report::ConformReport> RunConform(const ConformOptions& options) {
  const auto started = Clock::now();
  const auto started_steady = std::chrono::steady_clock::now();
  report::ConformReport report;
  report.tool.version = options.tool_version;
  report.host = DescribeHost();
  report.command_line = options.command_line;
  report.confinement = options.isolate
                           ? isolation::DescribeConfinementInForce(options.confinement)
                           : std::vector<std::string>{
                                 "none: --isolation none runs the plugin inside sectl's process"};
  report.started_at = IsoTimestamp(started);
  report.profile = options.profile;
  report.tf_version = std::string(options.settings.generation.id);
  report.subject = report::ProfileSubject(report.profile, report.tf_version);
  report.device = DeviceUnderTest(options.settings);
  report.selection = report::RunSelection{
      .filter = options.selection.filter.text(),
      .shard_index = options.selection.shard.index,
      .shard_count = options.selection.shard.total,
      .repeat = options.selection.repeat,
      .seed = options.selection.shuffle ? std::optional(options.selection.seed) : std::nullopt};
  std::error_code ignored;
  report.plugin.path = std::filesystem::absolute(options.settings.plugin_path, ignored).string();
  report.plugin.entry = "SE_InitPlugin";
  // Every check's process verifies that it loads the file hashed (loader/plugin_file_pin.h).
  const auto pinned = loader::PinPluginFile(options.settings.plugin_path);
  if (pinned) report.plugin.sha256 = pinned->sha256();

  Expected<PluginFacts> facts = PluginFacts{};
  // What a TVM runtime's preflight found before the checks (a kExist that
  // crashed, fatal-signal handlers replaced at load), said once in the report.
  std::vector<report::LearnedBeforeChecks> tvm_runtime_learned;
  if (options.settings.abi == loader::PluginAbi::kTvmCDevice) {
    auto tvm_facts = PreflightTvmCDevice(options.settings, options.timeout, options.isolate,
                                         options.confinement);
    if (!tvm_facts && tvm_facts.error().code() == ErrorCode::kInvalidArgument) {
      return tl::unexpected(tvm_facts.error());  // --tvm-device names no device of the plugin
    }
    report.plugin.entry =
        tvm_facts ? fmt::format("TVMDevice{}*", tvm_facts->devices.device) : "TVMDevice*";
    if (tvm_facts) report.device = tvm_facts->devices.device;
    facts = TvmFactsAsPluginFacts(tvm_facts);
  } else if (options.settings.abi == loader::PluginAbi::kTvmRuntime) {
    auto runtime_facts = PreflightTvmRuntime(options.settings, options.timeout, options.isolate,
                                             options.confinement);
    if (!runtime_facts && runtime_facts.error().code() == ErrorCode::kInvalidArgument) {
      return tl::unexpected(runtime_facts.error());  // the device under test is absent
    }
    if (runtime_facts) {
      facts = runtime_facts->facts;
      tvm_runtime_learned = std::move(runtime_facts->learned);
    } else {
      facts = tl::unexpected(runtime_facts.error());
    }
    report.plugin.entry = "runtime.GetDeviceAttr, TVMDevice*DataSpace, TVMStream*";
  } else {
    facts = Preflight(options.settings, options.timeout, options.isolate, options.confinement);
  }
  if (const int signal = isolation::InterruptedBy(); signal != 0) {
    // Interrupted before the plugin's facts were learned (whatever the
    // preflight says then is about the interruption): no check runs, and
    // each says why.
    const auto plan = PlanChecks(options.profile, options.selection);
    if (options.on_start) options.on_start(plan.size());
    for (const PlannedCheck& planned : plan) {
      report.results.push_back(
          NotRunBecauseInterrupted(planned, options.settings.generation, signal));
      if (options.on_result) options.on_result(report.results.back());
    }
  } else if (!facts && facts.error().code() == ErrorCode::kInternal) {
    return tl::unexpected(facts.error());  // sectl's own failure, not the plugin's
  } else if (!facts) {
    report.load_error = facts.error().message();
  } else if (facts->device_count > 0 && options.settings.device_ordinal >= facts->device_count) {
    // A plugin without devices still gets its report (below); an ordinal
    // beyond the devices it has is the user's mistake.
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("--device {}: the plugin reports {} device(s)",
                            options.settings.device_ordinal, facts->device_count));
  } else {
    report.plugin.abi_vintage = facts->abi_vintage;
    report.plugin.device_count = facts->device_count;
    const auto plan = PlanChecks(options.profile, options.selection);
    if (options.on_start) options.on_start(plan.size());

    // Checks the baseline skips are not run at all.
    std::vector<PlannedCheck> to_run;
    std::vector<size_t> run_positions;
    report.results.resize(plan.size());
    for (size_t i = 0; i < plan.size(); ++i) {
      const BaselineEntry* skip =
          options.baseline ? FindSkipEntry(*options.baseline, plan[i].check->id, options.today)
                           : nullptr;
      if (skip != nullptr) {
        report.results[i] = SkippedByBaseline(plan[i], *skip, options.settings.generation);
        if (options.on_result) options.on_result(report.results[i]);
      } else {
        to_run.push_back(plan[i]);
        run_positions.push_back(i);
      }
    }
    RunnerOptions runner{options.settings, options.jobs,      options.timeout,
                         options.isolate,  options.on_result, options.confinement};
    // No devices (a CI machine without the hardware, or a negative count):
    // the platform-level checks run, and device.count fails on the count.
    runner.settings.plugin_reports_no_devices = facts->device_count < 1;
    // Helpers that misbehave are learned once, before the checks, and every
    // check routes around them at once.
    report.learned_before_checks = LearnBeforeChecks(runner, options.profile);
    report.learned_before_checks.insert(report.learned_before_checks.begin(),
                                        tvm_runtime_learned.begin(), tvm_runtime_learned.end());
    auto results = RunChecks(to_run, runner);
    for (size_t i = 0; i < results.size(); ++i) {
      report.results[run_positions[i]] = std::move(results[i]);
    }
    if (options.baseline) ApplyBaseline(*options.baseline, options.today, report.results);
    if (options.throughput && options.profile == kTensorFlowProfile &&
        isolation::InterruptedBy() == 0) {
      // What the checks found broken is not relied on, nor waited for.
      report.throughput =
          MeasureThroughput(options.settings, options.isolate, options.timeout, options.confinement,
                            KnownBrokenFunctions(report.results));
    }
  }
  if (const int signal = isolation::InterruptedBy(); signal != 0) {
    report.interrupted = isolation::SignalName(signal);
  }
  report.summary = report::Summarize(report.results);
  report.root_causes = report::SummarizeRootCauses(report.results);
  report.duration_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_steady).count();
  return report;
}

}  // namespace sectl::conform
