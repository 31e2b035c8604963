// The boundary between the host's C calls and a reference plugin's C++.
//
// Every function the host calls is noexcept and runs its body through one of
// these guards: a C++ exception unwinding into a C host (or into one built
// with another C++ runtime) is undefined behaviour, so each one becomes a
// TF_Status error or a documented failure value instead.

#ifndef SECTL_REFERENCE_PLUGINS_COMMON_ENTRY_GUARD_H_
#define SECTL_REFERENCE_PLUGINS_COMMON_ENTRY_GUARD_H_

#include <exception>
#include <new>
#include <string>

#include "tensorflow/c/tf_status.h"

namespace sectl_plugin {

inline void SetOk(TF_Status* status) {
  if (status != nullptr) TF_SetStatus(status, TF_OK, "");
}

inline void SetError(TF_Status* status, TF_Code code, const std::string& message) {
  if (status != nullptr) TF_SetStatus(status, code, message.c_str());
}

// Runs `body`; an exception becomes an error on `status` (which may be null
// for entry points that have no status to report through).
template <typename Body>
void GuardedCall(TF_Status* status, Body&& body) noexcept {
  // The handlers pass fixed or exception-owned strings: building a message
  // here could itself throw, and there is nobody left to catch it.
  try {
    body();
  } catch (const std::bad_alloc&) {
    if (status != nullptr) TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "plugin: out of memory");
  } catch (const std::exception& e) {
    if (status != nullptr) TF_SetStatus(status, TF_INTERNAL, e.what());
  } catch (...) {
    if (status != nullptr) TF_SetStatus(status, TF_INTERNAL, "plugin: unknown exception");
  }
}

// Runs `body` and returns its result, or `on_failure` if it threw.
template <typename Result, typename Body>
Result GuardedValue(Result on_failure, Body&& body) noexcept {
  try {
    return body();
  } catch (...) {
    return on_failure;
  }
}

}  // namespace sectl_plugin

#endif  // SECTL_REFERENCE_PLUGINS_COMMON_ENTRY_GUARD_H_
