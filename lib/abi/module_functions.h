// kFunctionOf for the functions of a plugin's other modules
// (abi/module_functions.def): include it to call one through the dispatch
// point, `Call<&TP_ProfilerFns::start>(...)`.
#pragma once

#include "abi/plugin_functions.h"
#include "tensorflow/c/experimental/pluggable_profiler/pluggable_profiler.h"

namespace sectl::abi {

#define SECTL_MODULE_FUNCTION(name, type, member) \
  template <>                                     \
  inline constexpr PluginFunction kFunctionOf<&type::member> = PluginFunction::k##name;
#include "abi/module_functions.def"
#undef SECTL_MODULE_FUNCTION

}  // namespace sectl::abi
