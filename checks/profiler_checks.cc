// Profiler: the plugin's profiler module, run as TensorFlow's loader runs
// it (TF_InitProfiler after TF_InitGraph, with every struct_size pre-filled;
// docs/tf-module-c-api-facts.md §8.2), and what it registered judged by the
// checks TensorFlow makes after it. probe describes the same run
// (probe/profiler_module_description.h); these checks fail on the findings
// that speak of their part.
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "abi/module_functions.h"
#include "conform/check.h"
#include "conform/check_support.h"
#include "host/profiler_module.h"
#include "host/tf_status_handle.h"
#include "module_findings.h"
#include "probe/profiler_module_description.h"

namespace sectl::checks {
namespace {

constexpr std::string_view kNoProfilerModule =
    "the plugin exports no TF_InitProfiler: it has no profiler";

// TF_InitProfiler run once in this check's process, and judged.
std::vector<probe::Finding> RunProfilerModule(conform::CheckContext& check) {
  host::Platform& platform = check.platform();  // SE_InitPlugin first, as TensorFlow does
  auto run = check.Require(host::RunProfilerModule(check.library(), platform.dispatcher()),
                           "looking up TF_InitProfiler");
  if (!run.present) check.Skip(std::string(kNoProfilerModule));
  std::vector<probe::Finding> findings;
  const auto module = probe::DescribeProfilerModule(run, platform.type(), findings);
  check.details() = {{"device_type", module.device_type ? *module.device_type : ""},
                     {"platform_type", platform.type()},
                     {"struct_sizes", module.struct_sizes},
                     {"functions_missing", module.functions_missing}};
  return findings;
}

// What collect_data_xspace finds in its size_t going in: TensorFlow leaves
// it uninitialised, so a plugin that does not store a size is seen.
constexpr size_t kSizeNotStored = 0x5EC7'105E'C710'5EC7;
// More than any trace of a short session: a size above is a garbage value.
constexpr size_t kMaxPlausibleXSpaceBytes = size_t{1} << 30;

// One profiling session as TensorFlow's PluginTracer runs it on its copy of
// the profiler: start, stop, then collect_data_xspace twice, first for the
// size, then into a buffer of exactly that size. Returns the size.
size_t RunSession(conform::CheckContext& check, const host::Dispatcher& dispatcher,
                  const host::ProfilerModuleRun& run, int session) {
  TP_Profiler profiler = run.profiler;  // TensorFlow's copy
  const TP_ProfilerFns& functions = run.profiler_fns;
  check.Require(dispatcher.CallWithStatus<&TP_ProfilerFns::start>(functions, &profiler),
                fmt::format("session {}: start", session));
  check.Require(dispatcher.CallWithStatus<&TP_ProfilerFns::stop>(functions, &profiler),
                fmt::format("session {}: stop", session));
  size_t size = kSizeNotStored;
  host::TfStatusHandle query_status;
  check.Require(
      dispatcher.Call<&TP_ProfilerFns::collect_data_xspace>(
          functions, &profiler, static_cast<uint8_t*>(nullptr), &size, query_status.get()),
      fmt::format("session {}: collect_data_xspace(NULL)", session));
  if (size == kSizeNotStored) {
    check.Abort(fmt::format(
        "session {}: collect_data_xspace with a NULL buffer did not store the size it needs: "
        "TensorFlow reads its uninitialised size_t and allocates whatever it holds",
        session));
  }
  if (size > kMaxPlausibleXSpaceBytes) {
    check.Abort(
        fmt::format("session {}: collect_data_xspace asks for {} bytes, more than any "
                    "short session's trace: an unset or garbage size",
                    session, size));
  }
  // TensorFlow stops here, returning the query's status.
  if (size == 0) {
    check.Expect(query_status.ok(),
                 fmt::format("session {}: collect_data_xspace reported no data and failed: {}",
                             session, query_status.message()));
    return size;
  }
  conform::GuardedHostBuffer buffer(size);
  if (!buffer.ok()) check.Abort("sectl could not map a guarded buffer for the trace");
  size_t filled = size;
  check.Require(dispatcher.CallWithStatus<&TP_ProfilerFns::collect_data_xspace>(
                    functions, &profiler, buffer.data(), &filled),
                fmt::format("session {}: collect_data_xspace into {} bytes", session, size));
  check.Expect(filled <= size,
               fmt::format("session {}: collect_data_xspace was given {} bytes and reports "
                           "filling {}: TensorFlow parses only the {} it allocated",
                           session, size, filled, size));
  return size;
}

}  // namespace

SECTL_CHECK("profiler.session", kRecommended,
            "Two profiling sessions run as TensorFlow runs them, and the trace fits its buffer",
            .tests = {kProfilerStart, kProfilerStop, kProfilerCollectDataXspace, kDestroyProfiler,
                      kDestroyProfilerFns},
            .needs_entry_point = "TF_InitProfiler", .skip_reason = kNoProfilerModule,
            .severity_reason =
                "TensorFlow 2.7 and later call the profiler's functions only while a profiling "
                "session runs: a failure there loses the device's trace, and a crash or a write "
                "past the buffer ends or corrupts the process being profiled",
            .establishes =
                "On copies of `TP_Profiler`, as TensorFlow's profiler factory keeps them: "
                "`start` and `stop` return OK; `collect_data_xspace` with a NULL buffer stores "
                "the size it needs (TensorFlow's `size_t` is uninitialised; sectl's holds a "
                "marker) of at most 1 GiB; with a buffer of exactly that size, ending at a guard "
                "page, it returns OK and reports no more than that; twice; then "
                "`destroy_profiler` and `destroy_profiler_fns` on two copies each, as "
                "TensorFlow's factory copies call them",
            .common_mistakes =
                "Answering the size query only when there is data, so that TensorFlow allocates "
                "an uninitialised size; serialising the XSpace again for the fill, after more "
                "events arrived, so that it outgrows the size reported.",
            .how_to_fix =
                "Serialise the trace once, at the size query, store its length, and copy exactly "
                "that into the buffer; make the destroy functions safe to call on each copy.",
            .proven_by = "`PROFILER_COLLECT_OVERRUNS` (crash), `PROFILER_SIZE_NOT_SET`",
            .unusual_use =
                "TensorFlow calls start, stop and collect_data_xspace only during a profiling "
                "session (tf.profiler.experimental.start and stop, TensorBoard's profiler), "
                "never to run a model") {
  host::Platform& platform = check.platform();
  const host::Dispatcher& dispatcher = platform.dispatcher();
  auto run = check.Require(host::RunProfilerModule(check.library(), dispatcher),
                           "looking up TF_InitProfiler");
  if (!run.present) check.Skip(std::string(kNoProfilerModule));
  if (run.init_error) check.Blocked(abi::PluginFunction::kInitProfiler, *run.init_error);
  const bool complete = run.has_start && run.has_stop && run.has_collect_data_xspace &&
                        run.has_destroy_profiler && run.has_destroy_profiler_fns;
  if (!complete) {
    check.Blocked(abi::PluginFunction::kInitProfiler,
                  "TF_InitProfiler left one of the profiler's functions NULL (TensorFlow would "
                  "refuse the profiler; profiler.registration reports it)");
  }
  nlohmann::json sizes = nlohmann::json::array();
  for (int session = 1; session <= 2; ++session) {
    sizes.push_back(RunSession(check, dispatcher, run, session));
  }
  check.details()["trace_bytes_per_session"] = sizes;
  for (int copy = 1; copy <= 2; ++copy) {
    TP_Profiler profiler = run.profiler;
    TP_ProfilerFns functions = run.profiler_fns;
    check.Require(
        dispatcher.Call<&TF_ProfilerRegistrationParams::destroy_profiler>(run.params, &profiler),
        fmt::format("destroy_profiler on copy {}", copy));
    check.Require(dispatcher.Call<&TF_ProfilerRegistrationParams::destroy_profiler_fns>(run.params,
                                                                                        &functions),
                  fmt::format("destroy_profiler_fns on copy {}", copy));
  }
}

SECTL_CHECK("profiler.registration", kRequired,
            "TF_InitProfiler registers a profiler TensorFlow accepts", .tests = {kInitProfiler},
            .needs_entry_point = "TF_InitProfiler", .skip_reason = kNoProfilerModule,
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
            .needs_entry_point = "TF_InitProfiler", .skip_reason = kNoProfilerModule,
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
