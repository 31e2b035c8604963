#include "tool/probe_command.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>

#include "abi/host_generations.h"
#include "isolation/interruption.h"
#include "loader/plugin_library.h"
#include "probe/probe_json.h"
#include "probe/probe_table.h"
#include "probe/run_probe.h"
#include "probe/tvm_c_device_probe.h"
#include "tool/bundled_plugin.h"
#include "tool/command_support.h"
#include "tool/exit_codes.h"
#include "tool/number_flags.h"
#include "tool/report_output.h"

namespace sectl::tool {
CLI::App* AddProbeCommand(CLI::App& app, ProbeCommandOptions& options) {
  auto* probe = app.add_subcommand(
      "probe",
      "Load a plugin as TensorFlow would and describe it: platform, devices, capabilities, ABI "
      "vintage, findings. Exit status 1 if it cannot be loaded or TensorFlow would refuse it.");
  probe->add_option("plugin", options.plugin,
                    "Plugin file (.so); a bare name is a file in the current directory. "
                    "Default: the bundled cpu reference plugin");
  probe->add_option("--format", options.format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  probe->add_option("-o,--output", options.output,
                    "Write the report to FILE (atomically) instead of stdout");
  probe
      ->add_option("--tf-version", options.tf_version,
                   "TensorFlow host generation to behave as and judge against")
      ->check(CLI::IsMember(HostGenerationIds()))
      ->capture_default_str();
  probe->add_flag("--lazy", options.lazy,
                  "Bind symbols lazily (RTLD_LAZY), for plugins that also carry kernel code "
                  "referring to TensorFlow symbols");
  probe
      ->add_option("--timeout", options.timeout_seconds,
                   "Seconds before a plugin that does not return is killed")
      ->check(SecondsBetween())
      ->capture_default_str();
  probe
      ->add_option("--isolation", options.isolation,
                   "Run the plugin in a child process, or in sectl itself (for debugging)")
      ->check(CLI::IsMember({"process", "none"}))
      ->capture_default_str();
  AddConfinementFlags(*probe, options.confinement);
  probe
      ->add_option("--abi", options.abi,
                   "The plugin's API: auto (from its exported symbols), streamexecutor, or "
                   "tvm-c-device (lists the TVM C Device API devices it exports)")
      ->check(CLI::IsMember({"auto", "streamexecutor", "tvm-c-device"}))
      ->capture_default_str();
  return probe;
}

namespace {

// A TVM C Device API plugin: its devices and hooks, from its symbols.
int ProbeTvmCDevicePlugin(const ProbeCommandOptions& options, const std::string& path) {
  auto probe = probe::ProbeTvmCDevicePlugin(path);
  if (const int signal = isolation::InterruptedBy(); signal != 0) return ReportInterruption(signal);
  if (!probe) return ReportError(probe.error());
  const std::string text = options.format == "json" ? probe::TvmCDeviceProbeToJson(*probe)
                                                    : probe::RenderTvmCDeviceProbeTable(*probe);
  if (auto written = WriteReport(options.output, text); !written) {
    return ReportError(written.error());
  }
  return probe->HasErrors() ? kExitPluginProblem : kExitSuccess;
}

}  // namespace

int RunProbeCommand(const ProbeCommandOptions& options) {
  probe::RunProbeOptions run;
  if (options.plugin.empty()) {
    auto bundled = BundledPluginPath("sectl_cpu");
    if (!bundled) return ReportError(bundled.error());
    run.probe.plugin_path = *bundled;
  } else {
    run.probe.plugin_path = loader::PluginPathFromArgument(options.plugin);
  }
  if (auto abi = loader::ChoosePluginAbi(options.abi, run.probe.plugin_path);
      abi && *abi == loader::PluginAbi::kTvmCDevice) {
    return ProbeTvmCDevicePlugin(options, run.probe.plugin_path);
  }
  run.probe.lazy = options.lazy;
  run.probe.generation = *abi::FindHostGeneration(options.tf_version);
  run.probe.tool_version = SECTL_VERSION;
  run.isolation =
      options.isolation == "none" ? probe::Isolation::kNone : probe::Isolation::kProcess;
  run.timeout = std::chrono::milliseconds(static_cast<int64_t>(options.timeout_seconds * 1000));
  auto confinement = ConfinementFromFlags(options.confinement);
  if (!confinement) return ReportError(confinement.error());
  run.confinement = std::move(*confinement);

  auto report = probe::RunProbe(run);
  // No partial probe report: what failed may be only the interruption's doing.
  if (const int signal = isolation::InterruptedBy(); signal != 0) return ReportInterruption(signal);
  if (!report) return ReportError(report.error());

  const bool to_terminal = options.output.empty() || options.output == "-";
  const std::string text =
      options.format == "json"
          ? probe::ProbeReportToJson(*report)
          : probe::RenderProbeTable(*report, {.color = to_terminal && StdoutWantsColor()});
  if (auto written = WriteReport(options.output, text); !written) {
    return ReportError(written.error());
  }
  return report->HasErrorFindings() ? kExitPluginProblem : kExitSuccess;
}

}  // namespace sectl::tool
