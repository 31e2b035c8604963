#include "tool/replay_command.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <optional>

#include "isolation/interruption.h"
#include "loader/plugin_library.h"
#include "replay/run_replay.h"
#include "tool/bundled_plugin.h"
#include "tool/command_support.h"
#include "tool/exit_codes.h"
#include "tool/number_flags.h"
#include "tool/plugin_argument.h"
#include "tool/progress_bar.h"
#include "tool/report_output.h"
#include "trace/trace_reader.h"

namespace sectl::tool {

CLI::App* AddReplayCommand(CLI::App& app, ReplayCommandOptions& options) {
  auto* replay = app.add_subcommand(
      "replay",
      "Replay a trace recorded by libsectl_validate.so against a plugin, in a child process, "
      "with deterministic data: report the first call that behaves differently (a status, a "
      "byte read back, a host callback, an event), or the record at which the plugin crashed "
      "or hung. Its process may use 4 GiB of memory unless --memory-limit says otherwise. Exit "
      "status 0 clean, 1 divergence/crash/hang, 2 bad input.");
  replay->add_option("trace", options.trace, "Trace file (SECTL_VALIDATE_TRACE's output)")
      ->required();
  replay->add_option("plugin", options.plugin,
                     "Plugin file (.so) to replay on. Default: the bundled cpu reference plugin");
  replay
      ->add_option("--timeout", options.timeout_seconds,
                   "Seconds the whole replay may take before the plugin is killed as hung")
      ->check(SecondsBetween())
      ->capture_default_str();
  replay->add_option("--format", options.format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  replay->add_option("-o,--output", options.output, "Write the report to FILE (atomically)");
  replay->add_flag("--stop-at-first", options.stop_at_first,
                   "Stop at the first divergence instead of counting the rest");
  replay->add_flag("--lazy", options.lazy, "Bind the plugin's symbols lazily (RTLD_LAZY)");
  replay
      ->add_option("--isolation", options.isolation,
                   "Run the plugin in a child process, or in sectl itself (for debugging)")
      ->check(CLI::IsMember({"process", "none"}))
      ->capture_default_str();
  AddConfinementFlags(*replay, options.confinement);
  replay->add_flag("--no-progress", options.no_progress,
                   "No progress bar (it is drawn only when stderr is a terminal anyway)");
  return replay;
}

int RunReplayCommand(const ReplayCommandOptions& options) {
  // Bad input is found before any plugin runs.
  auto trace = trace::ReadTraceFile(options.trace);
  if (!trace) return ReportUsageError(trace.error().message());
  replay::RunReplayOptions run;
  if (options.plugin.empty()) {
    auto bundled = BundledPluginPath("sectl_cpu");
    if (!bundled) return ReportError(bundled.error());
    run.replay.plugin_path = *bundled;
  } else {
    run.replay.plugin_path = AbsolutePath(loader::PluginPathFromArgument(options.plugin));
    std::error_code error;
    if (!std::filesystem::is_regular_file(run.replay.plugin_path, error)) {
      return ReportUsageError(fmt::format("{}: no such plugin file", run.replay.plugin_path));
    }
  }
  auto confinement = ConfinementFromFlags(options.confinement, {run.replay.plugin_path});
  if (!confinement) return ReportUsageError(confinement.error().message());
  run.confinement = std::move(*confinement);
#if !defined(SECTL_SANITIZED)
  // Not in a sanitized build (CMakePresets.json: asan): the sanitizer's
  // shadow memory alone is more than any such limit allows.
  if (options.confinement.memory_limit.empty()) {
    run.confinement.memory_limit_bytes = replay::kDefaultReplayMemoryLimitBytes;
    run.confinement.memory_limit_label = replay::kDefaultReplayMemoryLimitLabel;
  }
#endif
  run.trace_path = options.trace;
  run.replay.lazy = options.lazy;
  run.replay.stop_at_first = options.stop_at_first;
  run.isolate = options.isolation != "none";
  run.timeout = std::chrono::milliseconds(static_cast<int64_t>(options.timeout_seconds * 1000));

  std::optional<replay::ReplayReport> report;
  {
    ProgressBar progress(!options.no_progress);
    run.on_progress = [&](uint64_t done, uint64_t total) {
      progress.Update(static_cast<int>(done), static_cast<int>(total), "replaying");
    };
    auto replayed = replay::RunReplay(*trace, run);
    if (!replayed) {
      if (const int signal = isolation::InterruptedBy(); signal != 0) {
        return ReportInterruption(signal);
      }
      return ReportError(replayed.error());
    }
    report = std::move(*replayed);
  }
  const std::string text = options.format == "json" ? replay::ReplayReportToJson(*report)
                                                    : replay::RenderReplayText(*report);
  if (auto written = WriteReport(options.output, text); !written) {
    return ReportUsageError(written.error().message());
  }
  return report->outcome == replay::ReplayOutcome::kClean ? kExitSuccess : kExitPluginProblem;
}

}  // namespace sectl::tool
