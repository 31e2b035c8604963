#include "validate/fatal_signals.h"

#include <unistd.h>

#include <array>
#include <atomic>
#include <csignal>
#include <ctime>
#include <mutex>

#include "validate/layer.h"

namespace sectl::validate {
namespace {

constexpr std::array kFatalSignals = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
constexpr std::array kTerminationSignals = {SIGTERM, SIGINT, SIGHUP};
// What handled each signal before the layer, restored before it is re-raised.
std::array<struct sigaction, kFatalSignals.size()> previous_fatal{};
std::array<struct sigaction, kTerminationSignals.size()> previous_termination{};

// Writing the report allocates, which a crash inside malloc could make hang:
// an alarm bounds that, ending the process as the crash would have.
constexpr unsigned kReportDeadlineSeconds = 10;

// The one crash path. The first thread to crash writes the report; every
// other thread that crashes meanwhile waits here until it is written (or
// the alarm ends the process), instead of re-faulting under the default
// action and killing the process before the report is renamed into place.
std::atomic<pid_t> crash_writer{0};  // the writing thread's id; 0: none yet
std::atomic<bool> crash_report_written{false};

void WaitForTheCrashReport() {
  const timespec pause{0, 1'000'000};
  while (!crash_report_written.load()) ::nanosleep(&pause, nullptr);
}

void RestorePreviousFatalAction(int signal) {
  for (size_t i = 0; i < kFatalSignals.size(); ++i) {
    if (kFatalSignals[i] == signal) ::sigaction(signal, &previous_fatal[i], nullptr);
  }
}

void OnFatalSignal(int signal, siginfo_t* info, void* /*context*/) {
  const pid_t self = ::gettid();
  pid_t none = 0;
  if (crash_writer.compare_exchange_strong(none, self)) {
    ::alarm(kReportDeadlineSeconds);
    Layer::Get().OnFatalSignal(signal);
    crash_report_written.store(true);
  } else if (none != self) {
    WaitForTheCrashReport();
  } else if (crash_report_written.load()) {
    // Back on the writer's thread after the report: a handler the plugin
    // installed over the layer's has chained back to it. The default
    // action ends the process instead of going round again.
    ::signal(signal, SIG_DFL);
    if (info == nullptr || info->si_code <= 0) ::raise(signal);
    return;
  }
  // The writer's own crash while writing (none == self) goes straight on:
  // the report is lost, but the process still ends as the crash would.
  RestorePreviousFatalAction(signal);
  // A fault returns to re-run the faulting instruction under the previous
  // action, which then sees the fault's own siginfo. A signal that was sent
  // (kill, raise, abort) would not come again by itself: send it again.
  if (info == nullptr || info->si_code <= 0) ::raise(signal);
}

// SIGTERM, SIGINT, SIGHUP: the report says how the process ended, then the
// signal goes where it went before the layer (the host's handler, or the
// default action, which ends the process).
void OnTerminationSignal(int signal, siginfo_t* info, void* context) {
  // Bounded as a crash's report is; the host's own alarm is put back after.
  const unsigned host_alarm = ::alarm(kReportDeadlineSeconds);
  Layer::Get().OnTerminationSignal(signal);
  ::alarm(host_alarm);
  for (size_t i = 0; i < kTerminationSignals.size(); ++i) {
    if (kTerminationSignals[i] != signal) continue;
    const struct sigaction& previous = previous_termination[i];
    if ((previous.sa_flags & SA_SIGINFO) != 0 && previous.sa_sigaction != nullptr) {
      previous.sa_sigaction(signal, info, context);
    } else if (previous.sa_handler == SIG_IGN) {
      return;
    } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != nullptr) {
      previous.sa_handler(signal);
    } else {
      ::sigaction(signal, &previous, nullptr);
      ::raise(signal);
    }
  }
}

}  // namespace

void InstallFatalSignalHandlers() {
  // Installed before the vendor's library loads and again after it has
  // registered: a handler the plugin installed meanwhile then comes after
  // the layer's, which chains to it. Where the layer's is still in place
  // nothing changes, so the chain never points at itself.
  static std::mutex installing;
  const std::lock_guard lock(installing);
  const auto install = [](int signal, void (*handler)(int, siginfo_t*, void*), int flags,
                          struct sigaction& previous) {
    struct sigaction current {};
    ::sigaction(signal, nullptr, &current);
    if ((current.sa_flags & SA_SIGINFO) != 0 && current.sa_sigaction == handler) return;
    struct sigaction action {};
    action.sa_sigaction = handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_SIGINFO | flags;
    ::sigaction(signal, &action, &previous);
  };
  for (size_t i = 0; i < kFatalSignals.size(); ++i) {
    install(kFatalSignals[i], OnFatalSignal, SA_NODEFER, previous_fatal[i]);
  }
  for (size_t i = 0; i < kTerminationSignals.size(); ++i) {
    install(kTerminationSignals[i], OnTerminationSignal, SA_RESTART, previous_termination[i]);
  }
}

}  // namespace sectl::validate
