#include "tool/probe_command.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>

#include "abi/host_generations.h"
#include "base/regular_file.h"
#include "isolation/interruption.h"
#include "loader/plugin_library.h"
#include "probe/probe_json.h"
#include "probe/probe_table.h"
#include "probe/run_probe.h"
#include "probe/tvm_c_device_probe.h"
#include "probe/tvm_runtime_probe.h"
#include "remote/server_location.h"
#include "tool/command_support.h"
#include "tool/exit_codes.h"
#include "tool/number_flags.h"
#include "tool/plugin_argument.h"
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
  AddColorFlag(*probe, options.output_flags);
  probe->add_flag("-v,--verbose", options.verbose,
                  "List every kernel the plugin registers (op, device type, type constraints); "
                  "JSON always holds them");
  probe
      ->add_option("--tf-version", options.tf_version,
                   "TensorFlow host generation to behave as and judge against")
      ->check(CLI::IsMember(HostGenerationIds()))
      ->capture_default_str();
  probe->add_flag("--lazy", options.lazy,
                  "Bind symbols lazily (RTLD_LAZY), for plugins whose kernel code refers to "
                  "TensorFlow symbols sectl does not provide (its C++ API)");
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
                   "tvm-c-device (lists the TVM C Device API devices it exports), or "
                   "tvm-runtime (a TVM runtime library: the device types it reaches and their "
                   "attributes)")
      ->check(CLI::IsMember({"auto", "streamexecutor", "tvm-c-device", "tvm-runtime"}))
      ->capture_default_str();
  probe->add_option("--tvm-core", options.tvm_core,
                    "TVM backend library (libtvm_runtime_<name>.so, TVM v0.25+): TVM's core "
                    "library it needs (libtvm_runtime.so), where neither the dynamic linker nor "
                    "the backend's own directory has it");
  return probe;
}

namespace {

// A TVM C Device API plugin: its devices and hooks, from its symbols.
int ProbeTvmCDevicePlugin(const ProbeCommandOptions& options, const std::string& path) {
  auto probe = probe::ProbeTvmCDevicePlugin(path);
  if (const int signal = isolation::InterruptedBy(); signal != 0) return ReportInterruption(signal);
  if (!probe) return ReportError(probe.error());
  const TableLayout layout = ChooseTableLayout(options.output_flags, options.output);
  const std::string text = options.format == "json"
                               ? probe::TvmCDeviceProbeToJson(*probe)
                               : probe::RenderTvmCDeviceProbeTable(*probe, layout.width);
  if (auto written = WriteReport(options.output, text); !written) {
    return ReportError(written.error());
  }
  return probe->HasErrors() ? kExitPluginProblem : kExitSuccess;
}

// A TVM runtime library: its DeviceAPI route, device types and attributes.
int ProbeTvmRuntime(const ProbeCommandOptions& options, const std::string& path) {
  probe::TvmRuntimeProbeOptions run{
      .path = path,
      .tvm_core = AbsolutePath(options.tvm_core),
      .lazy = options.lazy,
      .isolate = options.isolation != "none",
      .timeout = std::chrono::milliseconds(static_cast<int64_t>(options.timeout_seconds * 1000))};
  if (!run.tvm_core.empty()) {
    // dlopen would block on a FIFO: only a regular file is handed on.
    if (auto core = RequireRegularFile(run.tvm_core, "TVM core library"); !core) {
      return ReportUsageError("--tvm-core " + core.error().message());
    }
  }
  auto confinement = ConfinementFromFlags(options.confinement, {path, run.tvm_core});
  if (!confinement) return ReportError(confinement.error());
  run.confinement = std::move(*confinement);
  auto probe = probe::ProbeTvmRuntime(run);
  if (const int signal = isolation::InterruptedBy(); signal != 0) return ReportInterruption(signal);
  if (!probe) return ReportError(probe.error());
  const TableLayout layout = ChooseTableLayout(options.output_flags, options.output);
  const std::string text = options.format == "json"
                               ? probe->dump(2) + "\n"
                               : probe::RenderTvmRuntimeProbeTable(*probe, layout.width);
  if (auto written = WriteReport(options.output, text); !written) {
    return ReportError(written.error());
  }
  return (*probe)["device_types"].empty() ? kExitPluginProblem : kExitSuccess;
}

}  // namespace

int RunProbeCommand(const ProbeCommandOptions& options) {
  probe::RunProbeOptions run;
  auto plugin = ChoosePluginPath(options.plugin, "sectl_cpu");
  if (!plugin) return ReportError(plugin.error());
  run.probe.plugin_path = *plugin;
  // TVM's libraries are probed by their own probes; a file that cannot be
  // read is diagnosed by the StreamExecutor probe, as before.
  const auto plugin_abi = loader::ChoosePluginAbi(options.abi, run.probe.plugin_path);
  if (plugin_abi && *plugin_abi == loader::PluginAbi::kTvmCDevice) {
    return ProbeTvmCDevicePlugin(options, run.probe.plugin_path);
  }
  if (plugin_abi && *plugin_abi == loader::PluginAbi::kTvmRuntime) {
    return ProbeTvmRuntime(options, run.probe.plugin_path);
  }
  run.probe.lazy = options.lazy;
  run.probe.generation = *abi::FindHostGeneration(options.tf_version);
  run.probe.tool_version = SECTL_VERSION;
  run.isolation =
      options.isolation == "none" ? probe::Isolation::kNone : probe::Isolation::kProcess;
  run.timeout = std::chrono::milliseconds(static_cast<int64_t>(options.timeout_seconds * 1000));
  // Isolated, the plugin runs in a server process of its own, where nothing
  // of the probe's is (docs/plugin-server.md).
  if (run.isolation == probe::Isolation::kProcess) {
    run.probe.plugin_server = remote::PluginServerExecutable();
    if (run.probe.plugin_server.empty()) {
      return ReportError(Error(ErrorCode::kInternal,
                               "sectl-plugin-server is not installed beside sectl: reinstall "
                               "sectl, or probe with --isolation none"));
    }
  }
  auto confinement =
      ConfinementFromFlags(options.confinement, {run.probe.plugin_path, run.probe.plugin_server});
  if (!confinement) return ReportError(confinement.error());
  run.confinement = std::move(*confinement);

  auto report = probe::RunProbe(run);
  // No partial probe report: what failed may be only the interruption's doing.
  if (const int signal = isolation::InterruptedBy(); signal != 0) return ReportInterruption(signal);
  if (!report) return ReportError(report.error());

  const TableLayout layout = ChooseTableLayout(options.output_flags, options.output);
  const std::string text = options.format == "json"
                               ? probe::ProbeReportToJson(*report)
                               : probe::RenderProbeTable(*report, {.color = layout.color,
                                                                   .width = layout.width,
                                                                   .verbose = options.verbose});
  if (auto written = WriteReport(options.output, text); !written) {
    return ReportError(written.error());
  }
  return report->HasErrorFindings() ? kExitPluginProblem : kExitSuccess;
}

}  // namespace sectl::tool
