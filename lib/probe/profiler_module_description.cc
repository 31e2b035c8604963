#include "probe/profiler_module_description.h"

#include <fmt/format.h>

#include <string_view>
#include <utility>

#include "host/platform.h"

namespace sectl::probe {
namespace {

// TensorFlow aborts the process loading the plugin on any error of a module
// (TF_CHECK_OK in TF_LoadPluggableDeviceLibrary).
constexpr std::string_view kAborts =
    "TensorFlow refuses the profiler module, which aborts the process loading the plugin";

}  // namespace

ProfilerModuleDescription DescribeProfilerModule(const host::ProfilerModuleRun& run,
                                                 const std::string& platform_type,
                                                 std::vector<Finding>& findings) {
  ProfilerModuleDescription module;
  module.exported = run.present;
  if (!run.present) return module;
  module.init_error = run.init_error;
  module.device_type =
      run.device_type_set ? std::optional<std::string>(run.device_type) : std::nullopt;
  module.struct_sizes = {run.params_struct_size, run.profiler_struct_size,
                         run.profiler_fns_struct_size};
  const std::pair<bool, const char*> functions[] = {
      {run.has_start, "TP_ProfilerFns.start"},
      {run.has_stop, "TP_ProfilerFns.stop"},
      {run.has_collect_data_xspace, "TP_ProfilerFns.collect_data_xspace"},
      {run.has_destroy_profiler, "TF_ProfilerRegistrationParams.destroy_profiler"},
      {run.has_destroy_profiler_fns, "TF_ProfilerRegistrationParams.destroy_profiler_fns"}};
  for (const auto& [set, name] : functions) {
    (set ? module.functions_set : module.functions_missing).emplace_back(name);
  }

  if (run.init_error) {
    findings.push_back(
        {"error", "profiler.init_failed", fmt::format("{}: {}", *run.init_error, kAborts)});
    return module;  // TensorFlow reads nothing after a failed init
  }
  const std::pair<size_t, const char*> sizes[] = {
      {run.params_struct_size, "TF_ProfilerRegistrationParams"},
      {run.profiler_struct_size, "TP_Profiler"},
      {run.profiler_fns_struct_size, "TP_ProfilerFns"}};
  for (const auto& [size, name] : sizes) {
    if (size != 0) continue;
    findings.push_back({"error", fmt::format("profiler.struct_size.zero.{}", name),
                        fmt::format("TF_InitProfiler set {}.struct_size to 0 (TensorFlow "
                                    "pre-fills it): {} with FAILED_PRECONDITION",
                                    name, kAborts)});
  }
  for (const auto& missing : module.functions_missing) {
    findings.push_back({"error", "profiler.function_missing",
                        fmt::format("TF_InitProfiler left {} NULL: {}", missing, kAborts)});
  }
  if (!run.device_type_set) {
    findings.push_back(
        {"error", "profiler.device_type.missing",
         fmt::format("TF_InitProfiler left TP_Profiler.device_type NULL: {}", kAborts)});
  } else if (!host::IsValidDeviceTypeName(run.device_type)) {
    findings.push_back({"error", "profiler.device_type.invalid",
                        fmt::format("TP_Profiler.device_type \"{}\" does not match [A-Z][A-Z_]*: "
                                    "{}",
                                    run.device_type, kAborts)});
  } else if (run.device_type != platform_type) {
    findings.push_back(
        {"warning", "profiler.device_type.mismatch",
         fmt::format("the profiler is registered for device type \"{}\", not the platform's "
                     "\"{}\"",
                     run.device_type, platform_type)});
  }
  for (const auto& overrun : run.overruns) {
    findings.push_back({"error", "profiler.struct_overrun",
                        fmt::format("TF_InitProfiler wrote past a struct TensorFlow owns ({}): "
                                    "memory corruption in the process loading the plugin",
                                    overrun)});
  }
  return module;
}

}  // namespace sectl::probe
