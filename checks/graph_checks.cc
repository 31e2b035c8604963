// Graph optimizer: the plugin's graph module, run as TensorFlow's loader
// runs it (TF_InitGraph after TF_InitKernel, with every struct_size
// pre-filled; docs/tf-module-c-api-facts.md §7.5), and what it registered
// judged by TensorFlow's own checks and by what Grappler then does with it.
// probe describes the same run (probe/graph_module_description.h); these
// checks fail on the findings that speak of their part.
#include <string>
#include <string_view>
#include <vector>

#include "conform/check.h"
#include "host/graph_module.h"
#include "module_findings.h"
#include "probe/graph_module_description.h"

namespace sectl::checks {
namespace {

constexpr std::string_view kNoGraphModule =
    "the plugin exports no TF_InitGraph: it has no graph optimizer";

// TF_InitGraph run once in this check's process, and judged.
std::vector<probe::Finding> RunGraphModule(conform::CheckContext& check) {
  host::Platform& platform = check.platform();  // SE_InitPlugin first, as TensorFlow does
  auto run = check.Require(host::RunGraphModule(check.library(), platform.dispatcher()),
                           "looking up TF_InitGraph");
  if (!run.present) check.Skip(std::string(kNoGraphModule));
  std::vector<probe::Finding> findings;
  const auto module = probe::DescribeGraphModule(run, platform.type(), findings);
  check.details() = {{"device_type", module.device_type ? *module.device_type : ""},
                     {"platform_type", platform.type()},
                     {"struct_sizes", module.struct_sizes},
                     {"passes_turned_off", module.passes_turned_off}};
  return findings;
}

}  // namespace

SECTL_CHECK("graph.registration", kRequired,
            "TF_InitGraph registers an optimizer TensorFlow accepts", .tests = {kInitGraph},
            .needs_entry_point = "TF_InitGraph", .skip_reason = kNoGraphModule,
            .severity_reason =
                "TensorFlow calls TF_InitGraph while loading the plugin and aborts that process "
                "(TF_CHECK_OK in TF_LoadPluggableDeviceLibrary) when it fails, when any of the "
                "three structs' struct_size is 0, or when device_type or optimize_func is NULL "
                "(grappler.cc, the loader of 2.5 and later that finds TF_InitGraph)",
            .establishes =
                "`TF_InitGraph`, given `TP_OptimizerRegistrationParams` (56 bytes), `TP_Optimizer` "
                "(40) and `TP_OptimizerConfigs` (92) with `struct_size` pre-filled and version "
                "0.0.1, as TensorFlow gives them: returns OK, leaves every `struct_size` non-zero, "
                "sets `device_type` and `optimize_func`, and writes nothing past the structs",
            .common_mistakes =
                "Filling a zeroed local `TP_OptimizerConfigs` and copying it over TensorFlow's "
                "(its `struct_size` becomes 0); leaving `optimize_func` for later; returning an "
                "error status when the device is absent, which aborts TensorFlow on machines "
                "without it.",
            .how_to_fix =
                "Set only the members the plugin owns (`device_type`, the optimizer's "
                "functions, the tri-state toggles) on the structs TensorFlow passes, and return "
                "OK whenever the optimizer can be registered.",
            .proven_by =
                "`GRAPH_WITHOUT_OPTIMIZE_FUNC`, `GRAPH_CONFIGS_SIZE_ZERO`, "
                "`GRAPH_INIT_FAILS`") {
  FailOnFindings(check, RunGraphModule(check),
                 {"graph.init_failed", "graph.struct_size.zero", "graph.device_type.missing",
                  "graph.optimize_func.missing", "graph.struct_overrun"});
}

SECTL_CHECK("graph.device_type", kRecommended,
            "The optimizer is registered for the platform's device type", .tests = {kInitGraph},
            .needs_entry_point = "TF_InitGraph", .skip_reason = kNoGraphModule,
            .severity_reason =
                "TensorFlow accepts any device_type and registers the optimizer under it; "
                "Grappler then runs it only on graphs with a device of that type, so an "
                "optimizer named for another type silently never runs for the plugin's device",
            .establishes =
                "`device_type` as `TF_InitGraph` leaves it equals the `type` the "
                "platform registered in `SE_InitPlugin`",
            .common_mistakes = "A device type left from the sample plugin (\"MY_DEVICE\").",
            .how_to_fix = "Set `device_type` from the same constant as the platform's `type`.",
            .proven_by = "`GRAPH_FOR_ANOTHER_DEVICE`") {
  FailOnFindings(check, RunGraphModule(check), {"graph.device_type.mismatch"});
}

SECTL_CHECK("graph.configs_layout", kRecommended,
            "The optimizer's pass toggles are laid out as TensorFlow 2.10 and later read them",
            .tests = {kInitGraph}, .needs_entry_point = "TF_InitGraph",
            .skip_reason = kNoGraphModule,
            .severity_reason =
                "TensorFlow 2.10 inserted auto_mixed_precision_onednn_bfloat16 into "
                "TP_OptimizerConfigs without a version change and never compares struct sizes: a "
                "plugin built against the older header turns off the pass after the one it "
                "meant. Only the Grappler passes run change; the plugin still loads",
            .establishes =
                "`TP_OptimizerConfigs.struct_size` is not 88 after `TF_InitGraph`: a plugin that "
                "writes its own header's size there says which layout it set the toggles in",
            .common_mistakes =
                "Setting `struct_size = TP_OPTIMIZER_CONFIGS_STRUCT_SIZE` from a "
                "header older than TensorFlow 2.10.",
            .how_to_fix =
                "Rebuild against the TensorFlow 2.10 or newer `grappler.h`, and leave "
                "`struct_size` as TensorFlow pre-fills it.",
            .proven_by = "`GRAPH_CONFIGS_PRE_2_10`") {
  FailOnFindings(check, RunGraphModule(check), {"graph.configs.pre_2_10_layout"});
}

}  // namespace sectl::checks
