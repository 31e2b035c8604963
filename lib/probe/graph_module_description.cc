#include "probe/graph_module_description.h"

#include <fmt/format.h>

namespace sectl::probe {
namespace {

// TP_OptimizerConfigs's size before TensorFlow 2.10 inserted
// auto_mixed_precision_onednn_bfloat16 after auto_mixed_precision.
constexpr size_t kConfigsSizeBefore2_10 = 88;

// TensorFlow aborts the process loading the plugin on any error of a module
// (TF_CHECK_OK in TF_LoadPluggableDeviceLibrary).
constexpr std::string_view kAborts =
    "TensorFlow refuses the graph module, which aborts the process loading the plugin";

void JudgeStructSize(size_t size, std::string_view struct_name, std::vector<Finding>& findings) {
  if (size != 0) return;
  findings.push_back({"error", fmt::format("graph.struct_size.zero.{}", struct_name),
                      fmt::format("TF_InitGraph set {}.struct_size to 0 (TensorFlow pre-fills it): "
                                  "{} with FAILED_PRECONDITION",
                                  struct_name, kAborts)});
}

}  // namespace

GraphModuleDescription DescribeGraphModule(const host::GraphModuleRun& run,
                                           const std::string& platform_type,
                                           std::vector<Finding>& findings) {
  GraphModuleDescription module;
  module.exported = run.present;
  if (!run.present) return module;
  module.init_error = run.init_error;
  module.device_type =
      run.device_type_set ? std::optional<std::string>(run.device_type) : std::nullopt;
  module.has_create = run.has_create;
  module.has_optimize = run.has_optimize;
  module.has_destroy = run.has_destroy;
  module.struct_sizes = {run.params_struct_size, run.optimizer_struct_size,
                         run.configs_struct_size};
  for (const auto& [pass, value] : run.configs) {
    if (pass == "disable_model_pruning") {
      module.model_pruning_disabled = value == 2;  // TF_TriState_On
    } else if (value == 1) {                       // TF_TriState_Off
      module.passes_turned_off.push_back(pass);
    }
  }

  if (run.init_error) {
    findings.push_back(
        {"error", "graph.init_failed", fmt::format("{}: {}", *run.init_error, kAborts)});
    return module;  // TensorFlow reads nothing after a failed init
  }
  JudgeStructSize(run.params_struct_size, "TP_OptimizerRegistrationParams", findings);
  JudgeStructSize(run.optimizer_struct_size, "TP_Optimizer", findings);
  JudgeStructSize(run.configs_struct_size, "TP_OptimizerConfigs", findings);
  if (!run.device_type_set) {
    findings.push_back({"error", "graph.device_type.missing",
                        fmt::format("TF_InitGraph left device_type NULL: {}", kAborts)});
  } else if (run.device_type != platform_type) {
    findings.push_back(
        {"warning", "graph.device_type.mismatch",
         fmt::format("the optimizer is registered for device type \"{}\", not the platform's "
                     "\"{}\": Grappler runs a plugin's optimizer only on graphs with a device of "
                     "its type, so it never runs for the plugin's device",
                     run.device_type, platform_type)});
  }
  if (!run.has_optimize) {
    findings.push_back(
        {"error", "graph.optimize_func.missing",
         fmt::format("TF_InitGraph left TP_Optimizer.optimize_func NULL: {}", kAborts)});
  }
  for (const auto& overrun : run.overruns) {
    findings.push_back({"error", "graph.struct_overrun",
                        fmt::format("TF_InitGraph wrote past a struct TensorFlow owns ({}): memory "
                                    "corruption in the process loading the plugin",
                                    overrun)});
  }
  if (run.configs_struct_size == kConfigsSizeBefore2_10) {
    findings.push_back(
        {"warning", "graph.configs.pre_2_10_layout",
         "TF_InitGraph set TP_OptimizerConfigs.struct_size to 88, the size before TensorFlow 2.10 "
         "inserted auto_mixed_precision_onednn_bfloat16: a plugin built against that header sets "
         "every toggle after auto_mixed_precision one member early in TensorFlow 2.10 and later "
         "(its auto_mixed_precision_mkl lands on auto_mixed_precision_onednn_bfloat16, its "
         "remapping on layout_optimizer, ...), and TensorFlow does not compare sizes"});
  }
  return module;
}

}  // namespace sectl::probe
