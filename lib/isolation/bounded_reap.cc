#include "isolation/bounded_reap.h"

#include <sys/wait.h>

#include <atomic>
#include <cerrno>
#include <ctime>

namespace sectl::isolation {
namespace {

std::atomic<int> abandoned{0};

// Short at first (a killed process is usually gone within a millisecond),
// then at most this often.
constexpr long kLongestPauseNanoseconds = 10'000'000;

}  // namespace

Reaping ReapKilled(pid_t pid, std::chrono::milliseconds limit, int* status, rusage* usage) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + limit;
  long pause = 50'000;
  while (true) {
    int own_status = 0;
    rusage own_usage{};
    const pid_t waited = ::wait4(pid, &own_status, WNOHANG | __WALL, &own_usage);
    if (waited == pid && !WIFSTOPPED(own_status) && !WIFCONTINUED(own_status)) {
      if (status != nullptr) *status = own_status;
      if (usage != nullptr) *usage = own_usage;
      return Reaping::kReaped;
    }
    if (waited < 0 && errno != EINTR) return Reaping::kGone;
    if (Clock::now() >= deadline) {
      abandoned.fetch_add(1);
      return Reaping::kStuck;
    }
    const timespec nap{0, pause};
    ::nanosleep(&nap, nullptr);
    pause = pause * 2 > kLongestPauseNanoseconds ? kLongestPauseNanoseconds : pause * 2;
  }
}

int AbandonedProcessCount() { return abandoned.load(); }

}  // namespace sectl::isolation
