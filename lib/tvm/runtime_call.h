// The one dispatch point of a route into a TVM runtime library
// (c_runtime_route.cc, ffi_runtime_calls.cc): every call into the runtime
// is journalled in the host::Journal the StreamExecutor dispatcher uses,
// under its catalogue entry (abi/plugin_functions.def), so that a crash or
// a hang inside the runtime names the call in flight; and a C++ exception
// that escapes the runtime's C function is caught here, journalled as
// thrown, and becomes an error saying what the function's header promises
// instead. TVM's C entry points are called from C and from generated code,
// which cannot catch: an exception that escapes one ends the process.
#pragma once

#include <fmt/format.h>

#include <array>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

#include "abi/plugin_functions.h"
#include "base/error.h"
#include "host/call_recording.h"
#include "host/journal.h"

namespace sectl::tvm {

// The words every escaped-exception error contains, so that reports and
// tests can tell it from the runtime's own errors.
inline constexpr std::string_view kExceptionEscaped = "let a C++ exception escape across the C ABI";

// The first line of a runtime's error text: TVM's messages (TVMGetLastError,
// a raised Error, an exception's what()) go on with a multi-line stack
// trace, and sectl's reports give each error one line.
std::string_view FirstLineOf(std::string_view text);

// "TVMBackendAllocWorkspace let a C++ exception escape across the C ABI:
// std::bad_alloc (its header promises nullptr and TVMGetLastError)", with
// the first line of `what` (TVM's errors go on with a stack trace).
Error ExceptionEscaped(abi::PluginFunction function, std::string_view what,
                       std::string_view promise);

class RuntimeCaller {
 public:
  // Calls are journalled in `journal`; nullptr: in a journal of the
  // caller's own (a route used outside a check, such as probe's).
  // `error_channel`: where the runtime's header says a failure's message
  // goes ("TVMGetLastError"; "a raised Error" on tvm-ffi).
  RuntimeCaller(host::Journal* journal, std::string error_channel)
      : owned_(journal == nullptr ? std::make_unique<host::Journal>() : nullptr),
        journal_(journal == nullptr ? owned_.get() : journal),
        error_channel_(std::move(error_channel)) {}

  host::Journal& journal() const { return *journal_; }

  // Calls `fn(args...)` as `function` (one of abi::TvmRuntimeFunctions()).
  // The result is the runtime's, whatever it is; an exception that escaped
  // is an error (kPluginError, blamed on `function`).
  template <typename R, typename... Params, typename... Args>
  Expected<R> Call(abi::PluginFunction function, R (*fn)(Params...), Args... args) const {
    std::array<uint64_t, host::kMaxRecordedArguments> recorded{};
    const uint8_t count = host::RecordArguments(recorded, args...);
    host::JournalEntry* entry = journal_->Begin(function, recorded, count);
    try {
      if constexpr (std::is_void_v<R>) {
        fn(args...);
        journal_->Finish(entry, host::CallState::kReturned, host::kNoStatus, 0);
        return {};
      } else {
        R result = fn(args...);
        journal_->Finish(entry, host::CallState::kReturned, host::kNoStatus,
                         host::AsRecordedResult(result));
        return result;
      }
    } catch (const std::exception& thrown) {
      journal_->Finish(entry, host::CallState::kThrew, host::kNoStatus, 0);
      return tl::unexpected(ExceptionEscaped(function, thrown.what(), Promise<R>()));
    } catch (...) {
      journal_->Finish(entry, host::CallState::kThrew, host::kNoStatus, 0);
      return tl::unexpected(
          ExceptionEscaped(function, "an exception not derived from std::exception", Promise<R>()));
    }
  }

 private:
  // What the function's header promises on failure, by its result type.
  template <typename R>
  std::string Promise() const {
    if constexpr (std::is_pointer_v<R>) {
      return fmt::format("nullptr and {}", error_channel_);
    } else if constexpr (std::is_void_v<R>) {
      return "to return";
    } else {
      return fmt::format("-1 and {}", error_channel_);
    }
  }

  std::unique_ptr<host::Journal> owned_;
  host::Journal* journal_;
  std::string error_channel_;
};

}  // namespace sectl::tvm
