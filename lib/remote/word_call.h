// Calling a plugin function whose arguments arrived as words: the server's
// half of a call description (remote/call_protocol.h). Each function of
// abi/plugin_functions.def gets a caller that unpacks the words into the
// member's own parameter types (a double from its bits, pointers as they
// are, the call's TF_Status made by the server) and packs the result back
// into a word, so that the judge's dispatcher and the server cannot
// disagree about a signature.
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "abi/plugin_functions.h"
#include "tensorflow/c/tf_status.h"

namespace sectl::remote {

using WordCaller = uint64_t (*)(void* target, const uint64_t* words, TF_Status* status);

// A host callback as host_callback takes it (SE_StatusCallbackFn).
using StatusCallback = void (*)(void*, TF_Status*);

// In the server: the function the plugin is handed in place of every host
// callback (the judge's functions are not in the server's address space).
// Its void* argument is the judge's id for the callback. A null function
// stays null. Set once by the
// server before it serves any call; nullptr in the judge.
inline StatusCallback status_callback_trampoline = nullptr;

// The caller for `function`, or nullptr for one the server cannot call: a
// TVM function, or one whose parameters include a host function pointer
// other than a StatusCallback.
WordCaller CallerOf(abi::PluginFunction function);

// A parameter's value from its word.
template <typename Parameter>
Parameter FromWord(uint64_t word, TF_Status* status) {
  if constexpr (std::is_same_v<Parameter, TF_Status*>) {
    return status;
  } else if constexpr (std::is_same_v<Parameter, StatusCallback>) {
    // The judge's word says only whether there is a callback: its function
    // is not in this process.
    return word != 0 ? status_callback_trampoline : nullptr;
  } else if constexpr (std::is_pointer_v<Parameter>) {
    return reinterpret_cast<Parameter>(static_cast<uintptr_t>(word));  // NOLINT: the ABI's
  } else if constexpr (std::is_same_v<Parameter, double>) {
    return std::bit_cast<double>(word);
  } else {
    return static_cast<Parameter>(word);
  }
}

// A result as a word: the inverse of FromWord.
template <typename Result>
uint64_t ToWord(Result result) {
  if constexpr (std::is_pointer_v<Result>) {
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(result));  // NOLINT: the ABI's
  } else if constexpr (std::is_same_v<Result, double>) {
    return std::bit_cast<uint64_t>(result);
  } else {
    return static_cast<uint64_t>(result);
  }
}

template <typename Parameter>
inline constexpr bool kIsHostFunction =
    std::is_pointer_v<Parameter>&& std::is_function_v<std::remove_pointer_t<Parameter>>;
// A host function the server can stand in for.
template <typename Parameter>
inline constexpr bool kIsUncarriedHostFunction =
    kIsHostFunction<Parameter> && !std::is_same_v<Parameter, StatusCallback>;

template <typename Function>
struct WordCallerFor;
template <typename Result, typename... Parameters>
struct WordCallerFor<Result (*)(Parameters...)> {
  static constexpr bool kCallable = !(kIsUncarriedHostFunction<Parameters> || ...);

  template <size_t... Index>
  static uint64_t Call(void* target, const uint64_t* words, TF_Status* status,
                       std::index_sequence<Index...> /*indices*/) {
    auto function = reinterpret_cast<Result (*)(Parameters...)>(target);  // NOLINT: the ABI's
    if constexpr (std::is_void_v<Result>) {
      function(FromWord<Parameters>(words[Index], status)...);
      return 0;
    } else {
      return ToWord(function(FromWord<Parameters>(words[Index], status)...));
    }
  }

  static uint64_t Caller(void* target, const uint64_t* words, TF_Status* status) {
    return Call(target, words, status, std::index_sequence_for<Parameters...>{});
  }
};

}  // namespace sectl::remote
