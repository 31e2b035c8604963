// The catalogue of plugin functions: one enumerator per function pointer a
// plugin provides, plus the entry point, with names derived from one table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

namespace sectl::abi {

enum class PluginFunction : uint8_t {
  kInitPlugin,  // the exported entry point SE_InitPlugin
#define SECTL_PLUGIN_FUNCTION(name, type, member) k##name,
#define SECTL_TVM_DEVICE_HOOK(slot, hook) kTvmDevice##slot##hook,
#define SECTL_TVM_RUNTIME_FUNCTION(name, group, text) k##name,
#include "abi/plugin_functions.def"
#undef SECTL_TVM_RUNTIME_FUNCTION
#undef SECTL_TVM_DEVICE_HOOK
#undef SECTL_PLUGIN_FUNCTION
  // The entry points of a plugin's other modules, which TensorFlow's loader
  // calls after SE_InitPlugin, in this order (docs/plugin-modules.md). Last:
  // a trace records functions by number, so new ones never renumber old.
  kInitKernel,    // void TF_InitKernel(void)
  kInitGraph,     // void TF_InitGraph(TP_OptimizerRegistrationParams*, TF_Status*)
  kInitProfiler,  // void TF_InitProfiler(TF_ProfilerRegistrationParams*, TF_Status*)
#define SECTL_MODULE_FUNCTION(name, type, member) k##name,
#include "abi/module_functions.def"
#undef SECTL_MODULE_FUNCTION
  kCount,
};
// The journal keeps a function in one byte (JournalEntry, JournalRegion).
static_assert(static_cast<size_t>(PluginFunction::kCount) <= 255);

// The struct_name of what sectl calls in a TVM runtime library: the C
// entry points it exports, and the global functions TVM registers.
inline constexpr std::string_view kTvmRuntimeExport = "TVM runtime";
inline constexpr std::string_view kTvmRuntimeGlobal = "TVM global function";

// The function a member of one of the ABI's tables is, at compile time:
// kFunctionOf<&SP_StreamExecutor::allocate> is PluginFunction::kAllocate.
// Generated from the .def, so the dispatch point derives the journal's name
// from the member it calls and the two cannot disagree. kCount for a
// member that is not in the catalogue.
template <auto Member>
inline constexpr PluginFunction kFunctionOf = PluginFunction::kCount;
#define SECTL_PLUGIN_FUNCTION(name, type, member) \
  template <>                                     \
  inline constexpr PluginFunction kFunctionOf<&type::member> = PluginFunction::k##name;
#include "abi/plugin_functions.def"
#undef SECTL_PLUGIN_FUNCTION
// The modules' functions have theirs in abi/module_functions.h, which needs
// their headers (one of which declares TF_InitProfiler, which the
// validation layer declares its own way).

struct PluginFunctionInfo {
  PluginFunction function;
  std::string_view struct_name;  // "SP_StreamExecutor"; empty for SE_InitPlugin
  std::string_view member;       // "memcpy_htod"; "SE_InitPlugin" for the entry point
  size_t offset;                 // byte offset in the current layout; 0 for SE_InitPlugin
};

// Whether `function` names a function: a value read from memory a plugin can
// write (the journal) may hold any byte.
constexpr bool IsPluginFunction(PluginFunction function) {
  return static_cast<size_t>(function) < static_cast<size_t>(PluginFunction::kCount);
}

// Any byte value is safe to pass: a number that is no function's gets an
// entry whose member reads "an unknown function".
const PluginFunctionInfo& InfoOf(PluginFunction function);

// "SP_StreamExecutor.memcpy_htod", or "SE_InitPlugin"; "an unknown function"
// for a number that is no function's.
std::string_view QualifiedName(PluginFunction function);

// All functions of one struct, in layout order.
std::span<const PluginFunctionInfo> FunctionsOf(std::string_view struct_name);

// The entry point and every StreamExecutor struct member; TVM's C Device
// API hooks are not among them (they have no struct), see TvmDeviceHooks.
std::span<const PluginFunctionInfo> AllPluginFunctions();

// TVM C Device API hooks: struct_name "TVMDevice", member the hook ("Open"),
// offset the device slot (0 or 1), in the .def's order.
std::span<const PluginFunctionInfo> TvmDeviceHooks();

// What sectl calls in a TVM runtime library (--abi tvm-runtime), in the
// .def's order: struct_name kTvmRuntimeExport or kTvmRuntimeGlobal, member
// the name ("TVMBackendAllocWorkspace", "runtime.Device_StreamCreate"),
// which is also its QualifiedName; offset 0.
std::span<const PluginFunctionInfo> TvmRuntimeFunctions();
bool IsTvmRuntimeFunction(PluginFunction function);

// The module entry points after SE_InitPlugin (TF_InitKernel, TF_InitGraph,
// TF_InitProfiler), in TensorFlow's order: struct_name empty, member the
// exported name, which is also its QualifiedName; offset 0.
std::span<const PluginFunctionInfo> ModuleEntryPoints();
bool IsModuleEntryPoint(PluginFunction function);
// The modules' own functions sectl calls (abi/module_functions.def), named
// "TP_ProfilerFns.start" like the StreamExecutor's.
std::span<const PluginFunctionInfo> ModuleFunctions();

// Names the devices in the two TVM slots (their C names, "Woofles"), so
// QualifiedName gives "TVMDeviceWooflesOpen". Until then a slot's hooks are
// "TVMDevice<device N>Open". Call before any plugin call is journalled: it is
// one process-wide setting, as there is one plugin under test per process.
// Names handed out before stay valid and keep their old text. Not
// thread-safe: call it where no other thread asks for names.
void SetTvmDeviceNames(std::string_view slot0, std::string_view slot1);

}  // namespace sectl::abi
