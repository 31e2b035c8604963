// Reaping a process sectl has killed, without ever waiting on it for good.
//
// SIGKILL ends a process at once unless one of its threads is asleep in the
// kernel where no signal reaches it (uninterruptible sleep: a driver that
// never completes a request, a FUSE file system served by the process
// itself). wait4(2) on such a process blocks until the kernel lets it go,
// which may be never; a signal handler installed with SA_RESTART does not
// even interrupt that wait. So sectl waits for a killed process for a
// bounded time only: past it the process is reported stuck and abandoned
// (it stays a zombie of sectl's, or an unreaped child, until sectl exits),
// and the run goes on.
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <chrono>

namespace sectl::isolation {

// How long a killed process normally takes to be gone, with room for one
// that must first unmap gigabytes: past this, it is stuck.
inline constexpr std::chrono::milliseconds kKilledProcessGrace{1500};
// While sectl itself is interrupted, it must end within about a second.
inline constexpr std::chrono::milliseconds kInterruptedProcessGrace{300};

enum class Reaping {
  kReaped,  // it ended and was reaped; `status` and `usage` are filled
  kGone,    // no such child (reaped already, or never sectl's)
  kStuck,   // still there after `limit`: abandoned
};

// Reaps `pid` (already sent SIGKILL) as soon as it ends, polling without
// blocking, for at most `limit`. A stop (the process was stopped when it
// was killed) is waited past, as the kill ends it too.
Reaping ReapKilled(pid_t pid, std::chrono::milliseconds limit, int* status = nullptr,
                   rusage* usage = nullptr);

// How many processes sectl has abandoned so far in this run.
int AbandonedProcessCount();

}  // namespace sectl::isolation
