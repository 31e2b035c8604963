#include "tvm/runtime_call.h"

namespace sectl::tvm {

Error ExceptionEscaped(abi::PluginFunction function, std::string_view what,
                       std::string_view promise) {
  const std::string_view name = abi::QualifiedName(function);
  // TVM's errors append a multi-line stack trace: its first line says what
  // happened, in one line of the report.
  what = what.substr(0, what.find('\n'));
  return Error(ErrorCode::kPluginError,
               fmt::format("{} {}: {} (its header promises {})", name, kExceptionEscaped,
                           what.empty() ? "(an empty what())" : what, promise))
      .BlamedOn(function);
}

}  // namespace sectl::tvm
