#include "abi/plugin_functions.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <deque>
#include <string>
#include <utility>

#include "tensorflow/c/experimental/pluggable_profiler/pluggable_profiler.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

namespace sectl::abi {
namespace {

constexpr std::array kFunctions = {
    PluginFunctionInfo{PluginFunction::kInitPlugin, "", "SE_InitPlugin", 0},
#define SECTL_PLUGIN_FUNCTION(name, type, member) \
  PluginFunctionInfo{PluginFunction::k##name, #type, #member, offsetof(type, member)},
#define SECTL_TVM_DEVICE_HOOK(slot, hook) \
  PluginFunctionInfo{PluginFunction::kTvmDevice##slot##hook, "TVMDevice", #hook, slot},
#define SECTL_TVM_RUNTIME_FUNCTION(name, group, text) \
  PluginFunctionInfo{PluginFunction::k##name, group, text, 0},
#include "abi/plugin_functions.def"
#undef SECTL_TVM_RUNTIME_FUNCTION
#undef SECTL_TVM_DEVICE_HOOK
#undef SECTL_PLUGIN_FUNCTION
    PluginFunctionInfo{PluginFunction::kInitKernel, "", "TF_InitKernel", 0},
    PluginFunctionInfo{PluginFunction::kInitGraph, "", "TF_InitGraph", 0},
    PluginFunctionInfo{PluginFunction::kInitProfiler, "", "TF_InitProfiler", 0},
#define SECTL_MODULE_FUNCTION(name, type, member) \
  PluginFunctionInfo{PluginFunction::k##name, #type, #member, offsetof(type, member)},
#include "abi/module_functions.def"
#undef SECTL_MODULE_FUNCTION
};
static_assert(kFunctions.size() == static_cast<size_t>(PluginFunction::kCount));

constexpr std::string_view kUnknownFunction = "an unknown function";
constexpr PluginFunctionInfo kUnknownFunctionInfo{PluginFunction::kCount, "", kUnknownFunction, 0};

constexpr size_t kFirstTvmHook = static_cast<size_t>(PluginFunction::kTvmDevice0Init);
constexpr size_t kFirstTvmRuntimeFunction =
    static_cast<size_t>(PluginFunction::kTvmDeviceAllocDataSpace);
constexpr size_t kFirstModuleEntryPoint = static_cast<size_t>(PluginFunction::kInitKernel);
constexpr size_t kFirstModuleFunction = static_cast<size_t>(PluginFunction::kInitProfiler) + 1;

std::string TvmHookName(const PluginFunctionInfo& info, std::string_view device) {
  return std::string(info.struct_name) + std::string(device) + std::string(info.member);
}

// Every name ever handed out. A deque never moves its elements, so a view
// QualifiedName returned stays valid (and unchanged) after
// SetTvmDeviceNames gives the TVM hooks new names.
std::deque<std::string>& NameStorage() {
  static std::deque<std::string> storage;
  return storage;
}

std::string_view Kept(std::string name) { return NameStorage().emplace_back(std::move(name)); }

// The current "Struct.member" name of each function, as views into
// NameStorage; the TVM hooks' names change only in SetTvmDeviceNames.
std::array<std::string_view, kFunctions.size()>& QualifiedNames() {
  static auto names = [] {
    std::array<std::string_view, kFunctions.size()> result;
    for (size_t i = 0; i < kFunctions.size(); ++i) {
      const auto& info = kFunctions[i];
      const bool tvm_hook = i >= kFirstTvmHook && i < kFirstTvmRuntimeFunction;
      // TVM's runtime functions and the module entry points are named alone.
      const bool named_alone = i >= kFirstTvmRuntimeFunction && i < kFirstModuleFunction;
      if (tvm_hook) {
        result[i] = Kept(TvmHookName(info, "<device " + std::to_string(info.offset) + ">"));
      } else if (named_alone || info.struct_name.empty()) {
        result[i] = info.member;
      } else {
        result[i] = Kept(std::string(info.struct_name) + "." + std::string(info.member));
      }
    }
    return result;
  }();
  return names;
}

}  // namespace

const PluginFunctionInfo& InfoOf(PluginFunction function) {
  if (!IsPluginFunction(function)) return kUnknownFunctionInfo;
  return kFunctions[static_cast<size_t>(function)];
}

std::string_view QualifiedName(PluginFunction function) {
  if (!IsPluginFunction(function)) return kUnknownFunction;
  return QualifiedNames()[static_cast<size_t>(function)];
}

std::span<const PluginFunctionInfo> FunctionsOf(std::string_view struct_name) {
  auto first = std::find_if(kFunctions.begin(), kFunctions.end(),
                            [&](const auto& info) { return info.struct_name == struct_name; });
  auto last = std::find_if(first, kFunctions.end(),
                           [&](const auto& info) { return info.struct_name != struct_name; });
  return {first, last};
}

std::span<const PluginFunctionInfo> AllPluginFunctions() {
  return std::span(kFunctions).first(kFirstTvmHook);
}

std::span<const PluginFunctionInfo> TvmDeviceHooks() {
  return std::span(kFunctions).subspan(kFirstTvmHook, kFirstTvmRuntimeFunction - kFirstTvmHook);
}

std::span<const PluginFunctionInfo> TvmRuntimeFunctions() {
  return std::span(kFunctions)
      .subspan(kFirstTvmRuntimeFunction, kFirstModuleEntryPoint - kFirstTvmRuntimeFunction);
}

bool IsTvmRuntimeFunction(PluginFunction function) {
  const auto index = static_cast<size_t>(function);
  return index >= kFirstTvmRuntimeFunction && index < kFirstModuleEntryPoint;
}

std::span<const PluginFunctionInfo> ModuleEntryPoints() {
  return std::span(kFunctions)
      .subspan(kFirstModuleEntryPoint, kFirstModuleFunction - kFirstModuleEntryPoint);
}

bool IsModuleEntryPoint(PluginFunction function) {
  const auto index = static_cast<size_t>(function);
  return index >= kFirstModuleEntryPoint && index < kFirstModuleFunction;
}

std::span<const PluginFunctionInfo> ModuleFunctions() {
  return std::span(kFunctions).subspan(kFirstModuleFunction);
}

void SetTvmDeviceNames(std::string_view slot0, std::string_view slot1) {
  auto& names = QualifiedNames();
  for (size_t i = kFirstTvmHook; i < kFirstTvmRuntimeFunction; ++i) {
    std::string name = TvmHookName(kFunctions[i], kFunctions[i].offset == 0 ? slot0 : slot1);
    if (name != names[i]) names[i] = Kept(std::move(name));
  }
}

}  // namespace sectl::abi
