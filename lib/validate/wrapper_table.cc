#include "validate/wrappers.h"

namespace sectl::validate {

void* WrapperOf(abi::PluginFunction function) {
  switch (function) {
#define SECTL_PLUGIN_FUNCTION(name, type, member) \
  case abi::PluginFunction::k##name:              \
    return reinterpret_cast<void*>(&wrappers::name);
#include "abi/plugin_functions.def"
#undef SECTL_PLUGIN_FUNCTION
    default:
      return nullptr;
  }
}

}  // namespace sectl::validate
