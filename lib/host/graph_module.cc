#include "host/graph_module.h"

#include <fmt/format.h>

#include "tensorflow/c/experimental/grappler/grappler.h"

namespace sectl::host {
namespace {

using InitGraphFunction = void (*)(TP_OptimizerRegistrationParams*, TF_Status*);

// The toggles of TP_OptimizerConfigs, in the newest header's order.
std::vector<std::pair<std::string, int>> Toggles(const TP_OptimizerConfigs& configs) {
  return {{"disable_model_pruning", configs.disable_model_pruning},
          {"implementation_selector", configs.implementation_selector},
          {"function_optimization", configs.function_optimization},
          {"common_subgraph_elimination", configs.common_subgraph_elimination},
          {"arithmetic_optimization", configs.arithmetic_optimization},
          {"debug_stripper", configs.debug_stripper},
          {"constant_folding", configs.constant_folding},
          {"shape_optimization", configs.shape_optimization},
          {"auto_mixed_precision", configs.auto_mixed_precision},
          {"auto_mixed_precision_onednn_bfloat16", configs.auto_mixed_precision_onednn_bfloat16},
          {"auto_mixed_precision_mkl", configs.auto_mixed_precision_mkl},
          {"pin_to_host_optimization", configs.pin_to_host_optimization},
          {"layout_optimizer", configs.layout_optimizer},
          {"remapping", configs.remapping},
          {"loop_optimization", configs.loop_optimization},
          {"dependency_optimization", configs.dependency_optimization},
          {"auto_parallel", configs.auto_parallel},
          {"memory_optimization", configs.memory_optimization},
          {"scoped_allocator_optimization", configs.scoped_allocator_optimization}};
}

}  // namespace

Expected<GraphModuleRun> RunGraphModule(const loader::PluginLibrary& library,
                                        const Dispatcher& dispatcher) {
  GraphModuleRun run;
  auto address = library.ModuleEntryPoint(abi::PluginFunction::kInitGraph);
  if (!address) return tl::unexpected(address.error());
  run.present = *address != 0;
  if (!run.present) return run;

  GuardedStruct<TP_OptimizerRegistrationParams> params(
      kHostOptimizerParamsSize, sizeof(TP_OptimizerRegistrationParams), dispatcher.arena());
  GuardedStruct<TP_Optimizer> optimizer(kHostOptimizerSize, sizeof(TP_Optimizer),
                                        dispatcher.arena());
  GuardedStruct<TP_OptimizerConfigs> configs(kHostOptimizerConfigsSize, sizeof(TP_OptimizerConfigs),
                                             dispatcher.arena());
  params->major_version = GO_MAJOR;
  params->minor_version = GO_MINOR;
  params->patch_version = GO_PATCH;
  params->optimizer = optimizer.get();
  params->optimizer_configs = configs.get();

  // NOLINTNEXTLINE(performance-no-int-to-ptr): the plugin's entry point, maybe in the server
  const auto init_graph = reinterpret_cast<InitGraphFunction>(*address);
  if (auto called = dispatcher.CallInitGraph(init_graph, params.get()); !called) {
    run.init_error = called.error().message();
  }

  run.params_struct_size = params->struct_size;
  run.optimizer_struct_size = optimizer->struct_size;
  run.configs_struct_size = configs->struct_size;
  run.device_type_set = params->device_type != nullptr;
  run.device_type = dispatcher.ReadPluginText(params->device_type);
  run.has_create = optimizer->create_func != nullptr;
  run.has_optimize = optimizer->optimize_func != nullptr;
  run.has_destroy = optimizer->destroy_func != nullptr;
  run.configs = Toggles(*configs.get());
  if (auto overrun = DescribeWritePastEnd(params, "TP_OptimizerRegistrationParams");
      !overrun.empty()) {
    run.overruns.push_back(std::move(overrun));
  }
  if (auto overrun = DescribeWritePastEnd(optimizer, "TP_Optimizer"); !overrun.empty()) {
    run.overruns.push_back(std::move(overrun));
  }
  if (auto overrun = DescribeWritePastEnd(configs, "TP_OptimizerConfigs"); !overrun.empty()) {
    run.overruns.push_back(std::move(overrun));
  }
  return run;
}

}  // namespace sectl::host
