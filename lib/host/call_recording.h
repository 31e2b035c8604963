// How a call into plugin code is written into the journal: its arguments
// as integers and addresses, and its result as an integer. Shared by every
// dispatch point (host/dispatcher.h, and the TVM runtime routes'
// tvm/runtime_call.h), so that their journals read alike.
#pragma once

#include <array>
#include <cstdint>
#include <type_traits>

#include "host/journal.h"

namespace sectl::host {

// An argument as the journal keeps it: an address, an integer, or 0 for
// anything else (a struct passed by value).
template <typename T>
uint64_t AsRecordedArgument(T value) {
  if constexpr (std::is_pointer_v<T>) {
    return reinterpret_cast<uintptr_t>(value);
  } else if constexpr (std::is_integral_v<T> || std::is_enum_v<T>) {
    return static_cast<uint64_t>(value);
  } else {
    return 0;
  }
}

// The first kMaxRecordedArguments arguments into `out`; answers how many.
template <typename... Args>
uint8_t RecordArguments(std::array<uint64_t, kMaxRecordedArguments>& out, Args... args) {
  uint8_t count = 0;
  ((count < kMaxRecordedArguments ? (out[count++] = AsRecordedArgument(args), 0) : 0), ...);
  return count;
}

// A result as the journal keeps it.
template <typename R>
int64_t AsRecordedResult(R value) {
  if constexpr (std::is_pointer_v<R>) {
    return static_cast<int64_t>(reinterpret_cast<uintptr_t>(value));
  } else {
    return static_cast<int64_t>(value);  // integers, enums, TF_Bool; doubles truncated
  }
}

}  // namespace sectl::host
