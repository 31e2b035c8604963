#include "isolation/stray_processes.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "isolation/bounded_reap.h"
#include "isolation/interruption.h"
#include "isolation/process_ids.h"

namespace sectl::isolation {
namespace {

// A bound on the rounds of finding and killing: a stray that forks faster
// than sectl kills is still killed with its group, and each round kills all
// it finds.
constexpr int kMaxRounds = 200;

struct DirectoryCloser {
  void operator()(DIR* directory) const { ::closedir(directory); }
};

std::vector<ProcessIds> AllProcesses() {
  std::vector<ProcessIds> processes;
  std::unique_ptr<DIR, DirectoryCloser> proc(::opendir("/proc"));
  if (!proc) return processes;
  while (const dirent* entry = ::readdir(proc.get())) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    if (const auto ids = ReadProcessIds(static_cast<pid_t>(pid))) processes.push_back(*ids);
  }
  return processes;
}

}  // namespace

int EndStrayProcesses(pid_t child) {
  const pid_t self = ::getpid();
  const pid_t own_session = ::getsid(0);
  std::set<pid_t> ended;
  ::kill(-child, SIGKILL);  // the usual case, without reading /proc first
  for (int round = 0; round < kMaxRounds; ++round) {
    bool found = false;
    for (const ProcessIds& process : AllProcesses()) {
      if (process.pid == self || process.pid == child) continue;
      const bool descendant = process.group == child || process.session == child;
      const bool orphan =
          process.parent == self && process.session != own_session && !IsLiveChild(process.pid);
      if (!descendant && !orphan) continue;
      // Killed in an earlier round and still listed: stuck in the kernel
      // (bounded_reap.h). Killing it again changes nothing.
      if (ended.contains(process.pid)) continue;
      found = true;
      ended.insert(process.pid);
      ::kill(process.pid, SIGKILL);
      if (process.parent == self) {
        // SIGKILL'd: it ends at once, unless stuck in the kernel, where
        // sectl does not wait for it.
        (void)ReapKilled(process.pid, std::chrono::milliseconds(100));
      }
    }
    if (!found) break;
    if (round > 0) ::usleep(1000);  // let the killed ones' children reparent
  }
  return static_cast<int>(ended.size());
}

}  // namespace sectl::isolation
