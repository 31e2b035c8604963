#include "abi/plugin_functions.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>

#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

namespace sectl::abi {
namespace {

constexpr std::array kFunctions = {
    PluginFunctionInfo{PluginFunction::kInitPlugin, "", "SE_InitPlugin", 0},
#define SECTL_PLUGIN_FUNCTION(name, type, member) \
  PluginFunctionInfo{PluginFunction::k##name, #type, #member, offsetof(type, member)},
#include "abi/plugin_functions.def"
#undef SECTL_PLUGIN_FUNCTION
};
static_assert(kFunctions.size() == static_cast<size_t>(PluginFunction::kCount));

// "Struct.member" strings, built once so QualifiedName can hand out views.
const std::array<std::string, kFunctions.size()>& QualifiedNames() {
  static const auto names = [] {
    std::array<std::string, kFunctions.size()> result;
    for (size_t i = 0; i < kFunctions.size(); ++i) {
      const auto& info = kFunctions[i];
      result[i] = info.struct_name.empty()
                      ? std::string(info.member)
                      : std::string(info.struct_name) + "." + std::string(info.member);
    }
    return result;
  }();
  return names;
}

}  // namespace

const PluginFunctionInfo& InfoOf(PluginFunction function) {
  return kFunctions[static_cast<size_t>(function)];
}

std::string_view QualifiedName(PluginFunction function) {
  return QualifiedNames()[static_cast<size_t>(function)];
}

std::span<const PluginFunctionInfo> FunctionsOf(std::string_view struct_name) {
  auto first = std::find_if(kFunctions.begin(), kFunctions.end(),
                            [&](const auto& info) { return info.struct_name == struct_name; });
  auto last = std::find_if(first, kFunctions.end(),
                           [&](const auto& info) { return info.struct_name != struct_name; });
  return {first, last};
}

std::span<const PluginFunctionInfo> AllPluginFunctions() { return kFunctions; }

}  // namespace sectl::abi
