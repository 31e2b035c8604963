// A plugin's profiler module, run as TensorFlow's loader runs it
// (InitPluginProfiler in pluggable_profiler.cc, docs/tf-module-c-api-facts.md
// §8.2): TF_InitProfiler gets a TF_ProfilerRegistrationParams with every
// struct_size pre-filled, the version 0.0.1, and pointers to a TP_Profiler
// and a TP_ProfilerFns of the host's; the plugin fills in its device type,
// its profiler functions and the two destroy functions. What it left there
// is read back here, for probe and the profiler.* checks to judge.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "base/error.h"
#include "host/dispatcher.h"
#include "loader/plugin_library.h"
#include "tensorflow/c/experimental/pluggable_profiler/pluggable_profiler.h"

namespace sectl::host {

// What TF_InitProfiler left in the host's structs.
struct ProfilerModuleRun {
  bool present = false;  // the plugin exports TF_InitProfiler; nothing else is set otherwise
  // TF_InitProfiler's failure (a non-OK status, or a C++ exception), which
  // TensorFlow turns into an abort of the process loading the plugin.
  std::optional<std::string> init_error;
  // struct_size after the call: TF_ProfilerRegistrationParams, TP_Profiler,
  // TP_ProfilerFns (TensorFlow pre-fills 64, 24, 40).
  size_t params_struct_size = 0;
  size_t profiler_struct_size = 0;
  size_t profiler_fns_struct_size = 0;
  bool device_type_set = false;
  std::string device_type;
  bool has_start = false;
  bool has_stop = false;
  bool has_collect_data_xspace = false;
  bool has_destroy_profiler = false;
  bool has_destroy_profiler_fns = false;
  // Bytes written past the end of one of the host's structs.
  std::vector<std::string> overruns;
  // The three structs as the plugin left them: TensorFlow's profiler
  // factory keeps copies of the profiler and its functions, and calls them
  // with those copies (the pointers in them are the plugin's, wherever it
  // runs).
  TF_ProfilerRegistrationParams params{};
  TP_Profiler profiler{};
  TP_ProfilerFns profiler_fns{};
};

inline constexpr size_t kHostProfilerParamsSize = 64;
inline constexpr size_t kHostProfilerSize = 24;
inline constexpr size_t kHostProfilerFnsSize = 40;

// Calls TF_InitProfiler when the plugin exports it, with the structs
// pre-filled as TensorFlow pre-fills them, and reads them back. An error
// only when the entry point cannot be looked up; the plugin's failure is
// init_error (a crash or hang ends the process, naming TF_InitProfiler).
Expected<ProfilerModuleRun> RunProfilerModule(const loader::PluginLibrary& library,
                                              const Dispatcher& dispatcher);

}  // namespace sectl::host
