// The catalogue of plugin functions: one enumerator per function pointer a
// plugin provides, plus the entry point, with names derived from one table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace sectl::abi {

enum class PluginFunction : uint8_t {
  kInitPlugin,  // the exported entry point SE_InitPlugin
#define SECTL_PLUGIN_FUNCTION(name, type, member) k##name,
#define SECTL_TVM_DEVICE_HOOK(slot, hook) kTvmDevice##slot##hook,
#include "abi/plugin_functions.def"
#undef SECTL_TVM_DEVICE_HOOK
#undef SECTL_PLUGIN_FUNCTION
  kCount,
};

struct PluginFunctionInfo {
  PluginFunction function;
  std::string_view struct_name;  // "SP_StreamExecutor"; empty for SE_InitPlugin
  std::string_view member;       // "memcpy_htod"; "SE_InitPlugin" for the entry point
  size_t offset;                 // byte offset in the current layout; 0 for SE_InitPlugin
};

const PluginFunctionInfo& InfoOf(PluginFunction function);

// "SP_StreamExecutor.memcpy_htod", or "SE_InitPlugin".
std::string_view QualifiedName(PluginFunction function);

// All functions of one struct, in layout order.
std::span<const PluginFunctionInfo> FunctionsOf(std::string_view struct_name);

// The entry point and every StreamExecutor struct member; TVM's C Device
// API hooks are not among them (they have no struct), see TvmDeviceHooks.
std::span<const PluginFunctionInfo> AllPluginFunctions();

// TVM C Device API hooks: struct_name "TVMDevice", member the hook ("Open"),
// offset the device slot (0 or 1), in the .def's order.
std::span<const PluginFunctionInfo> TvmDeviceHooks();

// Names the devices in the two TVM slots (their C names, "Woofles"), so
// QualifiedName gives "TVMDeviceWooflesOpen". Until then a slot's hooks are
// "TVMDevice<device N>Open". Call before any plugin call is journalled: it is
// one process-wide setting, as there is one plugin under test per process.
void SetTvmDeviceNames(std::string_view slot0, std::string_view slot1);

}  // namespace sectl::abi
