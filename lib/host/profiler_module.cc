#include "host/profiler_module.h"

#include <fmt/format.h>

#include <string_view>

#include "host/guarded_struct.h"
#include "tensorflow/c/experimental/pluggable_profiler/pluggable_profiler.h"

namespace sectl::host {
namespace {

using InitProfilerFunction = void (*)(TF_ProfilerRegistrationParams*, TF_Status*);

}  // namespace

Expected<ProfilerModuleRun> RunProfilerModule(const loader::PluginLibrary& library,
                                              const Dispatcher& dispatcher) {
  ProfilerModuleRun run;
  auto address = library.ModuleEntryPoint(abi::PluginFunction::kInitProfiler);
  if (!address) return tl::unexpected(address.error());
  run.present = *address != 0;
  if (!run.present) return run;

  GuardedStruct<TF_ProfilerRegistrationParams> params(
      kHostProfilerParamsSize, sizeof(TF_ProfilerRegistrationParams), dispatcher.arena());
  GuardedStruct<TP_Profiler> profiler(kHostProfilerSize, sizeof(TP_Profiler), dispatcher.arena());
  GuardedStruct<TP_ProfilerFns> profiler_fns(kHostProfilerFnsSize, sizeof(TP_ProfilerFns),
                                             dispatcher.arena());
  params->major_version = TP_MAJOR;
  params->minor_version = TP_MINOR;
  params->patch_version = TP_PATCH;
  params->profiler = profiler.get();
  params->profiler_fns = profiler_fns.get();

  // NOLINTNEXTLINE(performance-no-int-to-ptr): the plugin's entry point, maybe in the server
  const auto init_profiler = reinterpret_cast<InitProfilerFunction>(*address);
  if (auto called = dispatcher.CallInitProfiler(init_profiler, params.get()); !called) {
    run.init_error = called.error().message();
  }

  run.params_struct_size = params->struct_size;
  run.profiler_struct_size = profiler->struct_size;
  run.profiler_fns_struct_size = profiler_fns->struct_size;
  run.device_type_set = profiler->device_type != nullptr;
  run.device_type = dispatcher.ReadPluginText(profiler->device_type);
  run.has_start = profiler_fns->start != nullptr;
  run.has_stop = profiler_fns->stop != nullptr;
  run.has_collect_data_xspace = profiler_fns->collect_data_xspace != nullptr;
  run.has_destroy_profiler = params->destroy_profiler != nullptr;
  run.has_destroy_profiler_fns = params->destroy_profiler_fns != nullptr;
  run.params = *params.get();
  run.profiler = *profiler.get();
  run.profiler_fns = *profiler_fns.get();
  // Their pointers to each other are the host's structs, gone on return.
  run.params.profiler = nullptr;
  run.params.profiler_fns = nullptr;
  if (auto overrun = DescribeWritePastEnd(params, "TF_ProfilerRegistrationParams");
      !overrun.empty()) {
    run.overruns.push_back(std::move(overrun));
  }
  if (auto overrun = DescribeWritePastEnd(profiler, "TP_Profiler"); !overrun.empty()) {
    run.overruns.push_back(std::move(overrun));
  }
  if (auto overrun = DescribeWritePastEnd(profiler_fns, "TP_ProfilerFns"); !overrun.empty()) {
    run.overruns.push_back(std::move(overrun));
  }
  return run;
}

}  // namespace sectl::host
