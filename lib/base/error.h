// sectl's error type and Expected<T>, for sectl's own operations.
//
// A plugin failing a check is a result, not an Error: Error is for "sectl
// could not do what was asked" (no such file, not a plugin, bad flag).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tl/expected.hpp>

namespace sectl::abi {
// Declared in abi/plugin_functions.h; an error only carries one.
enum class PluginFunction : uint8_t;
}  // namespace sectl::abi

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
  kInputChanged,        // an input changed under sectl during the run (the plugin file)
  kInternal,            // a bug in sectl
};

// "invalid argument", "not found", ...
std::string_view ErrorCodeName(ErrorCode code);

class Error {
 public:
  Error(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // The plugin function whose call failed (returned an error status, threw,
  // or answered what no caller can use), when the error is a plugin's. A
  // conformance check uses it to tell a defect in what it tests from one in
  // a function it merely uses.
  std::optional<abi::PluginFunction> culprit() const { return culprit_; }
  Error BlamedOn(abi::PluginFunction function) const;

  // The same error with "context: " in front, as an error travels up.
  Error WithContext(std::string_view context) const;

 private:
  ErrorCode code_;
  std::string message_;
  std::optional<abi::PluginFunction> culprit_;
};

// A value or the Error that kept sectl from making it. [[nodiscard]]: an
// Expected dropped on the floor is an error nobody hears about; a caller that
// truly does not care says so with (void).
template <typename T>
class [[nodiscard]] Expected : public tl::expected<T, Error> {
 public:
  using tl::expected<T, Error>::expected;
};

// `return Fail(ErrorCode::kNotFound, "...")` from a function returning Expected<T>.
inline tl::unexpected<Error> Fail(ErrorCode code, std::string message) {
  return tl::unexpected<Error>(Error(code, std::move(message)));
}

// `return PluginFailure(PluginFunction::kAllocate, "...")`: the plugin's
// function `culprit` failed (ErrorCode::kPluginError, blamed on it).
inline tl::unexpected<Error> PluginFailure(abi::PluginFunction culprit, std::string message) {
  return tl::unexpected<Error>(
      Error(ErrorCode::kPluginError, std::move(message)).BlamedOn(culprit));
}

}  // namespace sectl
