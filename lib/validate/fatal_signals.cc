#include "validate/fatal_signals.h"

#include <unistd.h>

#include <array>
#include <csignal>
#include <mutex>

#include "validate/layer.h"

namespace sectl::validate {
namespace {

constexpr std::array kFatalSignals = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
// What handled each signal before the layer, restored before it is re-raised.
std::array<struct sigaction, kFatalSignals.size()> previous_actions{};

// Writing the report allocates, which a crash inside malloc could make hang:
// an alarm bounds that, ending the process as the crash would have.
constexpr unsigned kReportDeadlineSeconds = 10;

void OnFatalSignal(int signal, siginfo_t* info, void* /*context*/) {
  ::alarm(kReportDeadlineSeconds);
  Layer::Get().OnFatalSignal(signal);
  for (size_t i = 0; i < kFatalSignals.size(); ++i) {
    if (kFatalSignals[i] == signal) ::sigaction(signal, &previous_actions[i], nullptr);
  }
  // A fault returns to re-run the faulting instruction under the previous
  // action, which then sees the fault's own siginfo. A signal that was sent
  // (kill, raise, abort) would not come again by itself: send it again.
  if (info == nullptr || info->si_code <= 0) ::raise(signal);
}

}  // namespace

void InstallFatalSignalHandlers() {
  static std::once_flag installed;
  std::call_once(installed, [] {
    for (size_t i = 0; i < kFatalSignals.size(); ++i) {
      struct sigaction action {};
      action.sa_sigaction = OnFatalSignal;
      sigemptyset(&action.sa_mask);
      action.sa_flags = SA_SIGINFO | SA_NODEFER;
      ::sigaction(kFatalSignals[i], &action, &previous_actions[i]);
    }
  });
}

}  // namespace sectl::validate
