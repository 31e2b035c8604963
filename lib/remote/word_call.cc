#include "remote/word_call.h"

#include <array>

#include "tensorflow/c/experimental/grappler/grappler.h"
#include "tensorflow/c/experimental/pluggable_profiler/pluggable_profiler.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

namespace sectl::remote {
namespace {

template <typename Function>
constexpr WordCaller CallerIfCallable() {
  if constexpr (WordCallerFor<Function>::kCallable) {
    return &WordCallerFor<Function>::Caller;
  } else {
    return nullptr;
  }
}

using InitPlugin = void (*)(SE_PlatformRegistrationParams*, TF_Status*);
using InitKernel = void (*)();
using InitGraph = void (*)(TP_OptimizerRegistrationParams*, TF_Status*);
using InitProfiler = void (*)(TF_ProfilerRegistrationParams*, TF_Status*);

constexpr size_t kFunctionCount = static_cast<size_t>(abi::PluginFunction::kCount);

constexpr std::array<WordCaller, kFunctionCount> MakeCallers() {
  std::array<WordCaller, kFunctionCount> callers{};
  callers[static_cast<size_t>(abi::PluginFunction::kInitPlugin)] = CallerIfCallable<InitPlugin>();
#define SECTL_PLUGIN_FUNCTION(name, type, member)              \
  callers[static_cast<size_t>(abi::PluginFunction::k##name)] = \
      CallerIfCallable<decltype(type::member)>();
#define SECTL_TVM_DEVICE_HOOK(slot, hook)
#define SECTL_TVM_RUNTIME_FUNCTION(name, group, text)
#include "abi/plugin_functions.def"
#undef SECTL_TVM_RUNTIME_FUNCTION
#undef SECTL_TVM_DEVICE_HOOK
#undef SECTL_PLUGIN_FUNCTION
  callers[static_cast<size_t>(abi::PluginFunction::kInitKernel)] = CallerIfCallable<InitKernel>();
  callers[static_cast<size_t>(abi::PluginFunction::kInitGraph)] = CallerIfCallable<InitGraph>();
  callers[static_cast<size_t>(abi::PluginFunction::kInitProfiler)] =
      CallerIfCallable<InitProfiler>();
#define SECTL_MODULE_FUNCTION(name, type, member)              \
  callers[static_cast<size_t>(abi::PluginFunction::k##name)] = \
      CallerIfCallable<decltype(type::member)>();
#include "abi/module_functions.def"
#undef SECTL_MODULE_FUNCTION
  return callers;
}

constexpr std::array<WordCaller, kFunctionCount> kCallers = MakeCallers();

}  // namespace

WordCaller CallerOf(abi::PluginFunction function) {
  const auto index = static_cast<size_t>(function);
  return index < kCallers.size() ? kCallers[index] : nullptr;
}

}  // namespace sectl::remote
