#include "probe/kernel_module_description.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string_view>
#include <tuple>

#include "tf_c_api/data_type_names.h"

namespace sectl::probe {
namespace {

// How many examples a finding about many registrations quotes.
constexpr size_t kExamples = 3;

std::string Constraint(const std::pair<std::string, int>& constraint) {
  return fmt::format("{}={}", constraint.first, tf_c_api::DataTypeName(constraint.second));
}

KernelDescription Describe(const tf_c_api::KernelRegistration& kernel) {
  KernelDescription described;
  described.op = kernel.op;
  described.device_type = kernel.device_type;
  for (const auto& constraint : kernel.type_constraints) {
    described.type_constraints.push_back(Constraint(constraint));
  }
  described.host_memory_arguments = kernel.host_memory_arguments;
  if (kernel.priority_set) described.priority = kernel.priority;
  described.label = kernel.label;
  described.has_create = kernel.has_create;
  described.has_compute = kernel.has_compute;
  described.has_delete = kernel.has_delete;
  described.async = kernel.async;
  described.registration_error = kernel.registration_error;
  return described;
}

std::string Name(const KernelDescription& kernel) {
  std::string name = fmt::format("{} on {}", kernel.op.empty() ? "(no op)" : kernel.op,
                                 kernel.device_type.empty() ? "(no device)" : kernel.device_type);
  if (!kernel.type_constraints.empty()) {
    name += fmt::format(" [{}]", fmt::join(kernel.type_constraints, ", "));
  }
  if (!kernel.label.empty()) name += fmt::format(" label \"{}\"", kernel.label);
  return name;
}

// "A, B and 3 more".
std::string Examples(const std::vector<std::string>& names) {
  std::vector<std::string> shown(
      names.begin(), names.begin() + static_cast<long>(std::min(names.size(), kExamples)));
  std::string text = fmt::format("{}", fmt::join(shown, "; "));
  if (names.size() > kExamples) text += fmt::format("; and {} more", names.size() - kExamples);
  return text;
}

void JudgeDeviceTypes(const KernelModuleDescription& module, const std::string& platform_type,
                      std::vector<Finding>& findings) {
  std::map<std::string, std::vector<std::string>> foreign;     // no device of that type
  std::map<std::string, std::vector<std::string>> tensorflow;  // TensorFlow's own devices
  for (const auto& kernel : module.kernels) {
    if (kernel.device_type == platform_type || !kernel.registration_error.empty()) continue;
    auto& bucket = IsTensorFlowDeviceType(kernel.device_type) ? tensorflow : foreign;
    bucket[kernel.device_type].push_back(Name(kernel));
  }
  for (const auto& [type, names] : foreign) {
    findings.push_back(
        {"error", "kernels.device_type.unknown",
         fmt::format("{} kernel(s) registered for device type \"{}\", which neither the plugin's "
                     "platform (type \"{}\") nor TensorFlow registers: TensorFlow never places an "
                     "op on them: {}",
                     names.size(), type, platform_type, Examples(names))});
  }
  for (const auto& [type, names] : tensorflow) {
    findings.push_back(
        {"info", "kernels.device_type.tensorflow",
         fmt::format("{} kernel(s) registered for TensorFlow's own device type \"{}\", not the "
                     "plugin's (\"{}\"): they run on TensorFlow's {} devices: {}",
                     names.size(), type, platform_type, type, Examples(names))});
  }
}

void JudgeKernels(const KernelModuleDescription& module, std::vector<Finding>& findings) {
  std::vector<std::string> aborted;
  std::vector<std::string> no_compute;
  std::vector<std::string> no_create_or_delete;
  std::vector<std::string> unknown_types;
  std::map<std::tuple<std::string, std::string, std::vector<std::string>, std::string>, int> seen;
  std::vector<std::string> duplicates;
  for (const auto& kernel : module.kernels) {
    if (!kernel.registration_error.empty()) {
      aborted.push_back(fmt::format("{}: {}", Name(kernel), kernel.registration_error));
      continue;
    }
    if (!kernel.has_compute) no_compute.push_back(Name(kernel));
    if (!kernel.has_create || !kernel.has_delete) no_create_or_delete.push_back(Name(kernel));
    for (const auto& constraint : kernel.type_constraints) {
      if (constraint.find("an unknown type") != std::string::npos) {
        unknown_types.push_back(Name(kernel));
        break;
      }
    }
    auto constraints = kernel.type_constraints;
    std::sort(constraints.begin(), constraints.end());
    if (++seen[{kernel.op, kernel.device_type, constraints, kernel.label}] == 2) {
      duplicates.push_back(Name(kernel));
    }
  }
  if (!aborted.empty()) {
    findings.push_back({"error", "kernels.registration_aborts",
                        fmt::format("{} registration(s) would abort TensorFlow's process as it "
                                    "loads the plugin: {}",
                                    aborted.size(), Examples(aborted))});
  }
  if (!no_compute.empty()) {
    findings.push_back({"error", "kernels.compute_missing",
                        fmt::format("{} kernel(s) registered without a compute function: "
                                    "TensorFlow calls it unchecked the first time the op runs: {}",
                                    no_compute.size(), Examples(no_compute))});
  }
  if (!no_create_or_delete.empty()) {
    findings.push_back(
        {"info", "kernels.create_or_delete_missing",
         fmt::format("{} kernel(s) registered without a create or delete function (TensorFlow "
                     "allows it; such a kernel keeps no state): {}",
                     no_create_or_delete.size(), Examples(no_create_or_delete))});
  }
  if (!unknown_types.empty()) {
    findings.push_back({"error", "kernels.type_constraint.unknown_type",
                        fmt::format("{} kernel(s) constrain an attribute to a number that is no "
                                    "TF_DataType: {}",
                                    unknown_types.size(), Examples(unknown_types))});
  }
  if (!duplicates.empty()) {
    findings.push_back(
        {"error", "kernels.duplicate",
         fmt::format("{} kernel(s) registered twice for the same op, device type, constraints "
                     "and label: TensorFlow fails every node of that op with \"Multiple "
                     "OpKernel registrations match NodeDef\": {}",
                     duplicates.size(), Examples(duplicates))});
  }
}

}  // namespace

bool IsTensorFlowDeviceType(const std::string& device_type) {
  static constexpr std::array<std::string_view, 7> kTypes = {
      "CPU", "GPU", "TPU", "TPU_SYSTEM", "XLA_CPU", "XLA_GPU", "DEFAULT"};
  return std::find(kTypes.begin(), kTypes.end(), device_type) != kTypes.end();
}

KernelModuleDescription DescribeKernelModule(bool exported,
                                             const tf_c_api::ModuleRecording& recording,
                                             const std::string& platform_type,
                                             std::vector<Finding>& findings) {
  KernelModuleDescription module;
  module.exported = exported;
  std::set<std::string> device_types;
  std::set<std::string> ops;
  for (const auto& kernel : recording.kernels) {
    module.kernels.push_back(Describe(kernel));
    device_types.insert(kernel.device_type);
    ops.insert(kernel.op);
  }
  module.device_types.assign(device_types.begin(), device_types.end());
  module.ops.assign(ops.begin(), ops.end());
  module.kernels_not_recorded = recording.not_recorded.kernels;
  for (const auto& op : recording.ops) module.ops_defined.push_back(op.name);
  for (const auto& call : recording.unprovided_calls) {
    module.unprovided_calls.push_back(
        fmt::format("{} ({} call{})", call.function, call.calls, call.calls == 1 ? "" : "s"));
  }
  module.log_messages = recording.log_messages.size() + recording.not_recorded.log_messages;

  if (exported && recording.kernels.empty() && recording.not_recorded.kernels == 0) {
    findings.push_back({"info", "kernels.none_registered",
                        "TF_InitKernel registered no kernel: TensorFlow can place no op on the "
                        "plugin's device, so every op falls back to the CPU"});
  }
  JudgeDeviceTypes(module, platform_type, findings);
  JudgeKernels(module, findings);
  std::vector<std::string> kernel_only;
  std::vector<std::string> unprovided;
  for (const auto& call : recording.unprovided_calls) {
    (call.needs_running_kernel ? kernel_only : unprovided).push_back(call.function);
  }
  if (!kernel_only.empty()) {
    findings.push_back(
        {"error", "kernels.running_kernel_api_called",
         fmt::format("while registering, the plugin called functions that take a kernel's "
                     "construction or context, which do not exist yet: TensorFlow follows "
                     "whatever pointer is passed, and crashes on NULL: {}",
                     fmt::join(kernel_only, ", "))});
  }
  if (!unprovided.empty()) {
    findings.push_back(
        {"warning", "kernels.api_unprovided",
         fmt::format("while registering, the plugin called TensorFlow C API functions that "
                     "sectl does not provide, and sectl answered UNIMPLEMENTED or null; what it "
                     "registered after may differ from what TensorFlow sees: {}",
                     fmt::join(unprovided, ", "))});
  }
  for (const auto& misuse : recording.misuses) {
    findings.push_back(
        {"error", "kernels.api_misuse", fmt::format("{}: {}", misuse.function, misuse.problem)});
  }
  if (recording.not_recorded.kernels > 0) {
    findings.push_back({"warning", "kernels.not_all_recorded",
                        fmt::format("{} more kernel registrations than sectl keeps were made; "
                                    "they are counted, not described",
                                    recording.not_recorded.kernels)});
  }
  return module;
}

}  // namespace sectl::probe
