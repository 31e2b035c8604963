// Kernels: the plugin's kernel module, run as TensorFlow's loader runs it
// (TF_InitKernel once, after SE_InitPlugin), and what it registered judged
// as TensorFlow would use it. sectl's host records registrations through
// the TensorFlow C API it exports (lib/tf_c_api); probe describes the same
// recording (probe/kernel_module_description.h), and these checks fail on
// the findings that speak of their part.

#include <string>
#include <string_view>
#include <vector>

#include "conform/check.h"
#include "host/kernel_module.h"
#include "module_findings.h"
#include "probe/kernel_module_description.h"

namespace sectl::checks {
namespace {

constexpr std::string_view kNoKernelModule =
    "the plugin exports no TF_InitKernel: it has no kernel module";

using abi::PluginFunction;

// TF_InitKernel run once in this check's process, and its recording judged.
struct JudgedKernelModule {
  probe::KernelModuleDescription module;
  std::vector<probe::Finding> findings;
};

JudgedKernelModule RunKernelModule(conform::CheckContext& check) {
  host::Platform& platform = check.platform();  // SE_InitPlugin first, as TensorFlow does
  const auto address = check.Require(check.library().ModuleEntryPoint(PluginFunction::kInitKernel),
                                     "looking up TF_InitKernel");
  if (address == 0) check.Skip(std::string(kNoKernelModule));
  if (check.settings().lazy) check.Skip(std::string(host::kKernelModuleNotRunLazily));
  auto run = check.Require(host::RunKernelModule(check.library(), platform.dispatcher()),
                           "running TF_InitKernel");
  JudgedKernelModule judged;
  judged.module =
      probe::DescribeKernelModule(run.present, run.recording, platform.type(), judged.findings);
  const uint64_t registered = judged.module.kernels.size() + judged.module.kernels_not_recorded;
  check.details() = {{"kernels_registered", registered},
                     {"device_types", judged.module.device_types},
                     {"platform_type", platform.type()}};
  return judged;
}

}  // namespace

SECTL_CHECK("kernels.registration", kRequired,
            "TF_InitKernel registers its kernels as TensorFlow's kernel C API allows",
            .tests = {kInitKernel}, .needs_entry_point = "TF_InitKernel",
            .skip_reason = kNoKernelModule,
            .severity_reason =
                "TensorFlow 2.5 and later call TF_InitKernel while loading the plugin, in the "
                "process that imports TensorFlow: a crash there, a registration TensorFlow "
                "aborts on, a registered builder deleted again (a double free), or a call that "
                "needs a kernel's context that does not exist yet ends that process before any "
                "model runs",
            .establishes =
                "`TF_InitKernel()`, called once after `SE_InitPlugin` as TensorFlow's loader "
                "calls it, returns; every `TF_RegisterKernelBuilder` call is one TensorFlow "
                "accepts (an op name, a builder it handed out and not registered before, a "
                "label set at most once); no builder is used or deleted after it was "
                "registered; and no function taking a `TF_OpKernelConstruction*` or "
                "`TF_OpKernelContext*` is called while registering",
            .common_mistakes =
                "Calling `TF_DeleteKernelBuilder` after `TF_RegisterKernelBuilder`, which already "
                "took the builder over; reading an attribute or an input (`TF_GetInput`) in "
                "`TF_InitKernel` instead of in the kernel's create or compute function; a "
                "crash in a static initialiser of the kernel set that `TF_InitKernel` runs.",
            .how_to_fix =
                "Register with `TF_NewKernelBuilder`, the constraint and host-memory calls, then "
                "`TF_RegisterKernelBuilder`, and never touch the builder again; read attributes "
                "in the create function and inputs in the compute function.",
            .proven_by =
                "`KERNEL_INIT_CRASHES`, `KERNEL_BUILDER_USED_AFTER_REGISTERING`, "
                "`KERNEL_INIT_READS_INPUT`") {
  const JudgedKernelModule judged = RunKernelModule(check);
  FailOnFindings(
      check, judged.findings,
      {"kernels.registration_aborts", "kernels.api_misuse", "kernels.running_kernel_api_called"});
}

SECTL_CHECK("kernels.device_type", kRequired,
            "Every kernel is registered for a device type that exists", .tests = {kInitKernel},
            .needs_entry_point = "TF_InitKernel", .skip_reason = kNoKernelModule,
            .severity_reason =
                "TensorFlow 2.5 and later place an op on the plugin's device only through a "
                "kernel registered for the platform's type (SP_Platform.type): a kernel for a "
                "type no device has never runs, and the op falls back to the CPU or fails to "
                "place",
            .establishes =
                "Every registration's device type is the `type` the plugin's platform "
                "registers, or one of TensorFlow's own (`CPU`, `GPU`, ...; noted in the details, "
                "since such a kernel runs on TensorFlow's devices, not the plugin's)",
            .common_mistakes =
                "A device type left from the sample plugin (\"MY_DEVICE\") or from an earlier "
                "name of the platform, or the platform's `name` used where its `type` belongs.",
            .how_to_fix =
                "Register every kernel with the same string the platform sets as `type`, from "
                "one constant.",
            .proven_by = "`KERNEL_FOR_UNKNOWN_DEVICE`") {
  const JudgedKernelModule judged = RunKernelModule(check);
  FailOnFindings(check, judged.findings, {"kernels.device_type.unknown"});
  for (const auto& finding : judged.findings) {
    if (finding.id == "kernels.device_type.tensorflow") check.details()["note"] = finding.message;
  }
}

SECTL_CHECK("kernels.unique", kRequired,
            "No kernel is registered twice for the same op, device type, constraints and label",
            .tests = {kInitKernel}, .needs_entry_point = "TF_InitKernel",
            .skip_reason = kNoKernelModule,
            .severity_reason =
                "TensorFlow 2.5 and later refuse to run a node when two kernels match it "
                "(\"Multiple OpKernel registrations match NodeDef\"): every node of that op on "
                "the plugin's device fails",
            .establishes =
                "No two registrations share op, device type, label and the same set of type "
                "constraints",
            .common_mistakes =
                "A registration macro expanded for a list of types that names a type twice, or "
                "a kernel registered both generically and for a specific type with the same "
                "constraints.",
            .how_to_fix = "Register each (op, device type, constraints, label) once.",
            .proven_by = "`KERNEL_REGISTERED_TWICE`") {
  const JudgedKernelModule judged = RunKernelModule(check);
  FailOnFindings(check, judged.findings, {"kernels.duplicate"});
}

SECTL_CHECK("kernels.functions", kRequired,
            "Every kernel has a compute function, and its type constraints name real types",
            .tests = {kInitKernel}, .needs_entry_point = "TF_InitKernel",
            .skip_reason = kNoKernelModule,
            .severity_reason =
                "TensorFlow 2.5 and later call a kernel's compute function without a null check "
                "the first time the op runs on the plugin's device (the process crashes), and a "
                "type constraint on a number that is no TF_DataType matches no node, so that "
                "kernel never runs",
            .establishes =
                "Every registration has a `compute_func` (or, for `TF_NewAsyncKernelBuilder`, a "
                "`compute_async_func`), and every `TF_KernelBuilder_TypeConstraint` value is a "
                "`TF_DataType` TensorFlow defines; a NULL create or delete function is allowed, "
                "as TensorFlow allows it",
            .common_mistakes =
                "A kernel registered before its compute function was written (NULL), or a "
                "`TF_DataType` cast from the plugin's own type enumeration.",
            .how_to_fix = "Pass a compute function for every kernel; pass TF_DataType values only.",
            .proven_by = "`KERNEL_WITHOUT_COMPUTE`") {
  const JudgedKernelModule judged = RunKernelModule(check);
  FailOnFindings(check, judged.findings,
                 {"kernels.compute_missing", "kernels.type_constraint.unknown_type"});
}

}  // namespace sectl::checks
