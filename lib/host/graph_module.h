// A plugin's graph-optimizer module, run as TensorFlow's loader runs it
// (InitGraphPlugin in grappler.cc, docs/tf-module-c-api-facts.md §7.5):
// TF_InitGraph gets a TP_OptimizerRegistrationParams with every struct_size
// pre-filled, the version 0.0.1, and pointers to a TP_Optimizer and a
// TP_OptimizerConfigs of the host's, all else zero; the plugin fills in its
// device type, its optimizer's functions and the Grappler passes it turns
// off. What it left there is read back here, for probe and the graph.*
// checks to judge.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/error.h"
#include "host/dispatcher.h"
#include "host/guarded_struct.h"
#include "loader/plugin_library.h"

namespace sectl::host {

// What TF_InitGraph left in the host's structs.
struct GraphModuleRun {
  bool present = false;  // the plugin exports TF_InitGraph; nothing else is set otherwise
  // TF_InitGraph's failure (a non-OK status, or a C++ exception), which
  // TensorFlow turns into an abort of the process loading the plugin.
  std::optional<std::string> init_error;
  // The struct_size each struct holds after the call (TensorFlow pre-fills
  // them; a plugin may overwrite them).
  size_t params_struct_size = 0;
  size_t optimizer_struct_size = 0;
  size_t configs_struct_size = 0;
  bool device_type_set = false;
  std::string device_type;
  bool has_create = false;
  bool has_optimize = false;
  bool has_destroy = false;
  // Each Grappler pass toggle (TF_TriState: 0 default, 1 off, 2 on), by its
  // member name, in the struct's order.
  std::vector<std::pair<std::string, int>> configs;
  // Bytes written past the end of one of the host's structs:
  // "TP_OptimizerConfigs: 4 bytes past its 96-byte storage".
  std::vector<std::string> overruns;
};

// The struct sizes TensorFlow pre-fills (the newest header's macros).
inline constexpr size_t kHostOptimizerParamsSize = 56;
inline constexpr size_t kHostOptimizerSize = 40;
inline constexpr size_t kHostOptimizerConfigsSize = 92;

// Calls TF_InitGraph when the plugin exports it, with the structs
// pre-filled as TensorFlow pre-fills them, and reads them back. An error
// only when the entry point cannot be looked up; the plugin's failure is
// init_error (a crash or hang ends the process, naming TF_InitGraph).
Expected<GraphModuleRun> RunGraphModule(const loader::PluginLibrary& library,
                                        const Dispatcher& dispatcher);

}  // namespace sectl::host
