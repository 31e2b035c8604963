// Whether loading a library replaced the handlers of the fatal signals
// sectl diagnoses crashes with (the child's backtrace handler, the guard
// page allocator's SIGSEGV handler), and putting sectl's back. A tvm-ffi
// runtime installs its own SIGSEGV handler from a static initialiser
// (TVM_FFI_BACKTRACE_ON_SEGFAULT), which prints "Segfault encountered" and
// re-raises: sectl's diagnosis of the crash (a guard page hit, the call it
// happened in) would be lost.
#pragma once

#include <array>
#include <csignal>
#include <string>
#include <vector>

namespace sectl::loader {

class FatalSignalHandlers {
 public:
  // The handlers in force now.
  static FatalSignalHandlers Snapshot();

  // The signals whose handler differs now from the snapshot.
  std::vector<int> ReplacedSince() const;

  // Puts back the snapshot's handler for each of `signals` that had one of
  // sectl's own (a handler function, not SIG_DFL or SIG_IGN): only there is
  // a diagnosis lost, and only there is it safe to say sectl's handler is
  // the one that should run. Answers the signals restored.
  std::vector<int> RestoreOwn(const std::vector<int>& signals) const;

 private:
  static constexpr std::array<int, 3> kSignals = {SIGSEGV, SIGBUS, SIGABRT};
  std::array<struct sigaction, kSignals.size()> actions_{};
};

// "the runtime installed its own SIGSEGV handler at load
// (TVM_FFI_BACKTRACE_ON_SEGFAULT?); sectl restored its own"; "" for none.
std::string DescribeReplacedHandlers(const std::vector<int>& replaced,
                                     const std::vector<int>& restored);

}  // namespace sectl::loader
