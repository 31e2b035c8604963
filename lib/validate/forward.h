// The layer's one dispatch point into the vendor plugin: every wrapper
// calls the vendor's own function through Forward, which finds the pointer
// the vendor filled in, and turns a C++ exception thrown across the C API
// into a finding and an INTERNAL status (where the function has one)
// instead of unwinding into TensorFlow, which is built without exceptions
// and would terminate.
#pragma once

#include <fmt/format.h>

#include <exception>
#include <string>
#include <type_traits>

#include "abi/plugin_functions.h"
#include "tensorflow/c/tf_status.h"
#include "validate/call.h"
#include "validate/layer.h"

namespace sectl::validate {

template <typename MemberPointer>
struct MemberFunction;
template <typename Table, typename R, typename... Params>
struct MemberFunction<R (*Table::*)(Params...)> {
  using Pointer = R (*)(Params...);
  using Result = R;
};

template <auto Member>
using OriginalPointer = typename MemberFunction<decltype(Member)>::Pointer;
template <auto Member>
using OriginalResult = typename MemberFunction<decltype(Member)>::Result;

// The vendor's function for table member `Member`.
template <auto Member>
OriginalPointer<Member> Original() {
  return reinterpret_cast<OriginalPointer<Member>>(Layer::Get().original(abi::kFunctionOf<Member>));
}

namespace detail {

template <typename... Args>
void FailStatusArgument(TF_Code code, const std::string& message, Args... args) {
  (
      [&](auto argument) {
        if constexpr (std::is_same_v<decltype(argument), TF_Status*>) {
          if (argument != nullptr) TF_SetStatus(argument, code, message.c_str());
        }
      }(args),
      ...);
}

// A null TF_Status the host passed becomes the call's substitute: the
// plugin writes there, and a wrapper that passed its own variable reads
// what the plugin answered.
template <typename Arg>
void SubstituteNullStatus(Call& call, Arg& argument) {
  if constexpr (std::is_same_v<Arg, TF_Status*>) {
    if (argument == nullptr) argument = call.SubstituteForNullStatus();
  }
}

}  // namespace detail

// Calls the vendor's `Member` with `args`. On an exception: a finding, an
// INTERNAL status in the call's TF_Status if it has one, and a zero result.
// A call the layer withheld (Call::Withhold) is not passed on: its status,
// where it has one, is INVALID_ARGUMENT saying why, and its result is zero
// (no handle, false, SE_EVENT_UNKNOWN, 0 ns). A null TF_Status from the
// host is replaced by one of the layer's (Call::SubstituteForNullStatus),
// in the wrapper's own variable too.
template <auto Member, typename... Args>
OriginalResult<Member> Forward(Call& call, Args&&... args) {
  using Result = OriginalResult<Member>;
  (detail::SubstituteNullStatus(call, args), ...);
  if (call.withheld()) {
    detail::FailStatusArgument(
        TF_INVALID_ARGUMENT,
        fmt::format("sectl-validate: not passed on to the plugin: {}", call.withheld_reason()),
        args...);
    if constexpr (std::is_void_v<Result>) {
      return;
    } else {
      return Result{};
    }
  }
  const auto original = Original<Member>();
  call.MarkForwarded();
  std::string what;
  try {
    const InFlight in_flight(call);
    return original(args...);
  } catch (const std::exception& exception) {
    what = exception.what();
  } catch (...) {
    what = "an exception that is not a std::exception";
  }
  const std::string message = fmt::format("{} threw a C++ exception across the C API: {}",
                                          abi::QualifiedName(call.function()), what);
  call.Raise(FindingKind::kExceptionEscaped, message);
  detail::FailStatusArgument(TF_INTERNAL, message, args...);
  if constexpr (!std::is_void_v<Result>) return Result{};
}

}  // namespace sectl::validate
