#include "isolation/interruption.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>

namespace sectl::isolation {
namespace {

// More than any --jobs sectl accepts, plus the preflight and the checks'
// own probe processes.
constexpr size_t kMaxLiveChildren = 512;

std::array<std::atomic<pid_t>, kMaxLiveChildren> live_children{};
std::atomic<int> interrupted_by{0};
std::atomic<int> wake_descriptor{-1};

static_assert(std::atomic<pid_t>::is_always_lock_free);
static_assert(std::atomic<int>::is_always_lock_free);

// Async-signal-safe: atomics, kill(2), write(2), signal(2) and raise(3)
// only.
void OnInterrupt(int signal) {
  const int saved_errno = errno;
  int expected = 0;
  if (!interrupted_by.compare_exchange_strong(expected, signal)) {
    // A second interruption: whoever sent it wants sectl gone now, report
    // or not (a plugin running inside sectl under --isolation none cannot be
    // stopped any other way). The children were killed on the first one.
    ::signal(signal, SIG_DFL);
    ::raise(signal);
    errno = saved_errno;
    return;
  }
  for (auto& slot : live_children) {
    const pid_t pid = slot.load(std::memory_order_acquire);
    if (pid > 0) {
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
    }
  }
  const int wake = wake_descriptor.load();
  if (wake >= 0) {
    const uint64_t one = 1;
    (void)!::write(wake, &one, sizeof(one));
  }
  errno = saved_errno;
}

}  // namespace

void InstallInterruptHandlers() {
  if (wake_descriptor.load() < 0) {
    wake_descriptor.store(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  }
  struct sigaction action {};
  action.sa_handler = OnInterrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(signal, &action, nullptr);
}

int InterruptedBy() { return interrupted_by.load(); }

int InterruptionDescriptor() { return wake_descriptor.load(); }

void RegisterLiveChild(pid_t pid) {
  for (auto& slot : live_children) {
    pid_t empty = 0;
    if (slot.compare_exchange_strong(empty, pid)) return;
  }
  // Full: the child is still killed at its deadline and when its
  // ChildProcess is destroyed, only not from the signal handler.
}

void UnregisterLiveChild(pid_t pid) {
  for (auto& slot : live_children) {
    pid_t expected = pid;
    if (slot.compare_exchange_strong(expected, 0)) return;
  }
}

bool IsLiveChild(pid_t pid) {
  for (const auto& slot : live_children) {
    if (slot.load() == pid) return true;
  }
  return false;
}

void ResetInterruptionForTesting() {
  interrupted_by.store(0);
  const int wake = wake_descriptor.load();
  uint64_t count = 0;
  if (wake >= 0) (void)!::read(wake, &count, sizeof(count));
}

}  // namespace sectl::isolation
