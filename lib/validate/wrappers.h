// The layer's wrapper for every plugin function, declared from the one
// catalogue (abi/plugin_functions.def) with the exact type of its table
// member, so a wrapper whose signature drifts from the ABI does not compile.
// Defined in platform_wrappers.cc, memory_wrappers.cc, copy_wrappers.cc and
// stream_wrappers.cc.
#pragma once

#include <type_traits>

#include "abi/plugin_functions.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

namespace sectl::validate::wrappers {

// `type::member` names a member, which parentheses would not.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define SECTL_PLUGIN_FUNCTION(name, type, member) \
  std::remove_pointer_t<decltype(type::member)> name;
#include "abi/plugin_functions.def"
#undef SECTL_PLUGIN_FUNCTION
// NOLINTEND(bugprone-macro-parentheses)

}  // namespace sectl::validate::wrappers

namespace sectl::validate {

// The wrapper for `function`, as an untyped pointer for a table slot.
void* WrapperOf(abi::PluginFunction function);

}  // namespace sectl::validate
