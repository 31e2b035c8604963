#include "tvm/runtime_call.h"

namespace sectl::tvm {

std::string_view FirstLineOf(std::string_view text) {
  const size_t start = text.find_first_not_of("\n");
  if (start == std::string_view::npos) return {};
  text.remove_prefix(start);
  return text.substr(0, text.find('\n'));
}

Error ExceptionEscaped(abi::PluginFunction function, std::string_view what,
                       std::string_view promise) {
  const std::string_view name = abi::QualifiedName(function);
  what = FirstLineOf(what);
  return Error(ErrorCode::kPluginError,
               fmt::format("{} {}: {} (its header promises {})", name, kExceptionEscaped,
                           what.empty() ? "(an empty what())" : what, promise))
      .BlamedOn(function);
}

}  // namespace sectl::tvm
