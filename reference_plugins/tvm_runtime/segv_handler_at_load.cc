// As a tvm-ffi build with TVM_FFI_BACKTRACE_ON_SEGFAULT (tvm-ffi's
// src/ffi/backtrace.cc): a static initialiser installs a SIGSEGV handler
// that prints "Segfault encountered" and a backtrace, then dies of the
// signal by its default action. Loaded into sectl's child, it replaces
// sectl's own handlers, which sectl must notice and undo.
#include <signal.h>
#include <unistd.h>

namespace {

void OnSegfault(int signal) {
  constexpr char kMessage[] = "!!!!!!! Segfault encountered !!!!!!!\n";
  (void)!::write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
  ::signal(signal, SIG_DFL);
  ::raise(signal);
}

const bool installed = (::signal(SIGSEGV, OnSegfault), true);

}  // namespace
