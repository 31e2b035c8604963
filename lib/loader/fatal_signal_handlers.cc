#include "loader/fatal_signal_handlers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace sectl::loader {
namespace {

bool IsFunction(const struct sigaction& action) {
  // sa_handler and sa_sigaction share storage: SIG_DFL and SIG_IGN read the
  // same through either.
  return action.sa_handler != SIG_DFL && action.sa_handler != SIG_IGN;
}

bool Same(const struct sigaction& first, const struct sigaction& second) {
  const bool first_info = (first.sa_flags & SA_SIGINFO) != 0;
  const bool second_info = (second.sa_flags & SA_SIGINFO) != 0;
  if (first_info != second_info) return false;
  return first_info ? first.sa_sigaction == second.sa_sigaction
                    : first.sa_handler == second.sa_handler;
}

std::string Names(const std::vector<int>& signals) {
  std::string names;
  for (int signal : signals) {
    names +=
        fmt::format("{}{}", names.empty() ? "" : ", ",
                    sigabbrev_np(signal) != nullptr ? fmt::format("SIG{}", sigabbrev_np(signal))
                                                    : std::to_string(signal));
  }
  return names;
}

}  // namespace

FatalSignalHandlers FatalSignalHandlers::Snapshot() {
  FatalSignalHandlers handlers;
  for (size_t i = 0; i < kSignals.size(); ++i) {
    ::sigaction(kSignals[i], nullptr, &handlers.actions_[i]);
  }
  return handlers;
}

std::vector<int> FatalSignalHandlers::ReplacedSince() const {
  std::vector<int> replaced;
  for (size_t i = 0; i < kSignals.size(); ++i) {
    struct sigaction now {};
    ::sigaction(kSignals[i], nullptr, &now);
    if (!Same(now, actions_[i])) replaced.push_back(kSignals[i]);
  }
  return replaced;
}

std::vector<int> FatalSignalHandlers::RestoreOwn(const std::vector<int>& signals) const {
  std::vector<int> restored;
  for (size_t i = 0; i < kSignals.size(); ++i) {
    if (std::find(signals.begin(), signals.end(), kSignals[i]) == signals.end()) continue;
    if (!IsFunction(actions_[i])) continue;
    if (::sigaction(kSignals[i], &actions_[i], nullptr) == 0) restored.push_back(kSignals[i]);
  }
  return restored;
}

std::string DescribeReplacedHandlers(const std::vector<int>& replaced,
                                     const std::vector<int>& restored) {
  if (replaced.empty()) return "";
  const bool segv = std::find(replaced.begin(), replaced.end(), SIGSEGV) != replaced.end();
  std::string text =
      fmt::format("the runtime installed its own {} handler{} at load{}", Names(replaced),
                  replaced.size() == 1 ? "" : "s", segv ? " (TVM_FFI_BACKTRACE_ON_SEGFAULT?)" : "");
  if (restored.empty()) return text + "; sectl had none of its own there and left it";
  if (restored.size() == replaced.size()) return text + "; sectl restored its own";
  return text + fmt::format("; sectl restored its own for {}", Names(restored));
}

}  // namespace sectl::loader
