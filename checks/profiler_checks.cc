// Profiler: the plugin's profiler module, run as TensorFlow's loader runs
// it (TF_InitProfiler after TF_InitGraph, with every struct_size pre-filled;
// docs/tf-module-c-api-facts.md §8.2), and what it registered judged by the
// checks TensorFlow makes after it. probe describes the same run
// (probe/profiler_module_description.h); these checks fail on the findings
// that speak of their part.
#include <algorithm>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "conform/check.h"
#include "host/profiler_module.h"
#include "probe/profiler_module_description.h"

namespace sectl::checks {
namespace {

// TF_InitProfiler run once in this check's process, and judged.
std::vector<probe::Finding> RunProfilerModule(conform::CheckContext& check) {
  host::Platform& platform = check.platform();  // SE_InitPlugin first, as TensorFlow does
  auto run = check.Require(host::RunProfilerModule(check.library(), platform.dispatcher()),
                           "looking up TF_InitProfiler");
  if (!run.present) check.Skip("the plugin exports no TF_InitProfiler: it has no profiler");
  std::vector<probe::Finding> findings;
  const auto module = probe::DescribeProfilerModule(run, platform.type(), findings);
  check.details() = {{"device_type", module.device_type ? *module.device_type : ""},
                     {"platform_type", platform.type()},
                     {"struct_sizes", module.struct_sizes},
                     {"functions_missing", module.functions_missing}};
  return findings;
}

// Fails with every finding whose id starts with one of `prefixes`.
void FailOnFindings(conform::CheckContext& check, const std::vector<probe::Finding>& findings,
                    std::initializer_list<std::string_view> prefixes) {
  auto& listed = check.details()["findings"];
  listed = nlohmann::json::array();
  for (const auto& finding : findings) {
    const bool ours = std::any_of(prefixes.begin(), prefixes.end(), [&](std::string_view prefix) {
      return std::string_view(finding.id).starts_with(prefix);
    });
    if (!ours) continue;
    listed.push_back({{"id", finding.id}, {"message", finding.message}});
    check.Fail(finding.message);
  }
}

}  // namespace

SECTL_CHECK("profiler.registration", kRequired,
            "TF_InitProfiler registers a profiler TensorFlow accepts", .tests = {kInitProfiler},
            .severity_reason =
                "TensorFlow 2.7 and later call TF_InitProfiler while loading the plugin and abort "
                "that process (TF_CHECK_OK in TF_LoadPluggableDeviceLibrary) when it fails, when "
                "a struct_size is 0, when a function or device_type is NULL, or when device_type "
                "does not match [A-Z][A-Z_]* (pluggable_profiler.cc)",
            .establishes =
                "`TF_InitProfiler`, given `TF_ProfilerRegistrationParams` (64 bytes), "
                "`TP_Profiler` (24) and `TP_ProfilerFns` (40) with `struct_size` pre-filled and "
                "version 0.0.1, as TensorFlow gives them: returns OK, leaves every `struct_size` "
                "non-zero, sets `start`, `stop`, `collect_data_xspace`, `destroy_profiler` and "
                "`destroy_profiler_fns`, sets a `device_type` matching `[A-Z][A-Z_]*`, and "
                "writes nothing past the structs",
            .common_mistakes =
                "Leaving the destroy functions NULL because there is nothing to free (TensorFlow "
                "requires them all the same); a device type in mixed case (\"MyDevice\"); the "
                "pre-release member name `type` in source that sets nothing else.",
            .how_to_fix =
                "Set all five functions (empty destroy functions are fine) and the platform's "
                "upper-case device type, on the structs TensorFlow passes.",
            .proven_by =
                "`PROFILER_WITHOUT_DESTROY`, `PROFILER_DEVICE_TYPE_INVALID`, "
                "`PROFILER_INIT_FAILS`") {
  FailOnFindings(
      check, RunProfilerModule(check),
      {"profiler.init_failed", "profiler.struct_size.zero", "profiler.function_missing",
       "profiler.device_type.missing", "profiler.device_type.invalid", "profiler.struct_overrun"});
}

SECTL_CHECK("profiler.device_type", kRecommended,
            "The profiler is registered for the platform's device type", .tests = {kInitProfiler},
            .severity_reason =
                "TensorFlow accepts any valid device_type for the profiler; one that is not the "
                "platform's names the wrong device in the traces it collects",
            .establishes =
                "`TP_Profiler.device_type` as `TF_InitProfiler` leaves it equals the "
                "`type` the platform registered in `SE_InitPlugin`",
            .common_mistakes = "A device type left from the sample plugin (\"MY_DEVICE\").",
            .how_to_fix = "Set `device_type` from the same constant as the platform's `type`.",
            .proven_by = "`PROFILER_FOR_ANOTHER_DEVICE`") {
  FailOnFindings(check, RunProfilerModule(check), {"profiler.device_type.mismatch"});
}

}  // namespace sectl::checks
