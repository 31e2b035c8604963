// sectl's error type and Expected<T>, for sectl's own operations.
//
// A plugin failing a check is a result, not an Error: Error is for "sectl
// could not do what was asked" (no such file, not a plugin, bad flag).
#pragma once

#include <string>
#include <string_view>
#include <tl/expected.hpp>

namespace sectl {

enum class ErrorCode {
  kInvalidArgument,     // the user asked for something malformed
  kNotFound,            // a file or symbol is not there
  kFailedPrecondition,  // the input exists but is the wrong kind of thing
  kUnimplemented,       // the plugin lacks an optional function
  kPluginError,         // the plugin reported a TF_Status error or was rejected
  kAbiMismatch,         // the plugin's structs do not match any layout we know
  kCrashed,             // the plugin crashed the process that ran it
  kTimeout,             // the plugin did not return in time
  kIoError,             // reading or writing a file failed
  kInternal,            // a bug in sectl
};

// "invalid argument", "not found", ...
std::string_view ErrorCodeName(ErrorCode code);

class Error {
 public:
  Error(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // The same error with "context: " in front, as an error travels up.
  Error WithContext(std::string_view context) const;

 private:
  ErrorCode code_;
  std::string message_;
};

template <typename T>
using Expected = tl::expected<T, Error>;

// `return Fail(ErrorCode::kNotFound, "...")` from a function returning Expected<T>.
inline tl::unexpected<Error> Fail(ErrorCode code, std::string message) {
  return tl::unexpected<Error>(Error(code, std::move(message)));
}

}  // namespace sectl
