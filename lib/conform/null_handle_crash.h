// A crash on a handle another function returned names both: a process that
// died inside a function whose stream, event or timer argument
// was null, after the function that creates such handles had returned OK,
// died on the handle its creator never set (the community sample and
// TensorFlow's test plugin: create_timer sets nothing, and nanoseconds reads
// through the handle). The creator is as much at fault as the function
// that trips over its handle.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "abi/plugin_functions.h"
#include "host/journal.h"

namespace sectl::conform {

struct NullHandleCrash {
  abi::PluginFunction creator;  // create_timer
  abi::PluginFunction crashed;  // nanoseconds
  // "nanoseconds dereferenced the null handle create_timer returned (call #9)"
  std::string description;
};

// For a process that died inside `stuck`: whether it was handed a null
// handle a creator in `journal` returned. `how` says what `stuck` did with
// it: "dereferenced" (SIGSEGV or SIGBUS), or "ended the process on" (an
// abort, or an exit without a report: the plugin's own assertion, or a
// sanitizer's report in an instrumented plugin). Functions that also take
// device memory are left out: their crash may as well be the memory's.
std::optional<NullHandleCrash> FindNullHandleCrash(const host::Journal& journal,
                                                   const host::JournalEntry& stuck,
                                                   std::string_view how = "dereferenced");

}  // namespace sectl::conform
