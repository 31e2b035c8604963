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
#include "abi/plugin_functions.def"
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

std::span<const PluginFunctionInfo> AllPluginFunctions();

}  // namespace sectl::abi
