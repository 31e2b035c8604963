#include "base/error.h"

#include <fmt/format.h>

namespace sectl {

std::string_view ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return "invalid argument";
    case ErrorCode::kNotFound:
      return "not found";
    case ErrorCode::kFailedPrecondition:
      return "failed precondition";
    case ErrorCode::kUnimplemented:
      return "unimplemented";
    case ErrorCode::kPluginError:
      return "plugin error";
    case ErrorCode::kAbiMismatch:
      return "ABI mismatch";
    case ErrorCode::kCrashed:
      return "crashed";
    case ErrorCode::kTimeout:
      return "timeout";
    case ErrorCode::kIoError:
      return "I/O error";
    case ErrorCode::kInputChanged:
      return "input changed";
    case ErrorCode::kInternal:
      return "internal error";
  }
  return "unknown error";
}

Error Error::BlamedOn(abi::PluginFunction function) const {
  Error blamed = *this;
  blamed.culprit_ = function;
  return blamed;
}

Error Error::WithContext(std::string_view context) const {
  Error wider = *this;
  wider.message_ = fmt::format("{}: {}", context, message_);
  return wider;
}

}  // namespace sectl
