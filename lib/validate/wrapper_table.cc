#include <cstdio>
#include <type_traits>

#include "tensorflow/c/tf_status.h"
#include "validate/layer.h"
#include "validate/wrappers.h"

namespace sectl::validate {
namespace {

// What every table slot holds: the wrapper, behind a guard that lets no
// exception of the layer's own out (memory exhausted while it books a
// call, say). TensorFlow is built without exception support, so one
// reaching it would end the process; the plugin's own exceptions are
// already caught at the call (forward.h). The call answers INTERNAL where
// it has a status, and zero, and the report counts the failure.
template <auto Wrapper>
struct NoExceptionsOut;

template <typename Result, typename... Params, Result (*Wrapper)(Params...)>
struct NoExceptionsOut<Wrapper> {
  static Result Call(Params... params) noexcept {
    try {
      return Wrapper(params...);
    } catch (...) {
      Layer::Get().NoteOwnFailure();
      (FailStatus(params), ...);
      if constexpr (!std::is_void_v<Result>) return Result{};
    }
  }

  template <typename Param>
  static void FailStatus(Param param) noexcept {
    if constexpr (std::is_same_v<Param, TF_Status*>) {
      if (param == nullptr) return;
      try {
        TF_SetStatus(param, TF_INTERNAL,
                     "sectl-validate: the layer failed while checking this call");
      } catch (...) {  // nothing more the layer can do
      }
    }
  }
};

}  // namespace

void* WrapperOf(abi::PluginFunction function) {
  switch (function) {
#define SECTL_PLUGIN_FUNCTION(name, type, member) \
  case abi::PluginFunction::k##name:              \
    return reinterpret_cast<void*>(&NoExceptionsOut<&wrappers::name>::Call);
#include "abi/plugin_functions.def"
#undef SECTL_PLUGIN_FUNCTION
    default:
      return nullptr;
  }
}

}  // namespace sectl::validate
