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

#include "isolation/interruption.h"

namespace sectl::isolation {
namespace {

// A bound on the rounds of finding and killing: a stray that forks faster
// than sectl kills is still killed with its group, and each round kills all
// it finds.
constexpr int kMaxRounds = 200;

struct ProcessIds {
  pid_t pid = 0;
  pid_t parent = 0;
  pid_t group = 0;
  pid_t session = 0;
};

// Reads /proc/<pid>/stat: "pid (comm) state ppid pgrp session ...", where
// comm may itself hold ") ".
bool ReadProcessIds(pid_t pid, ProcessIds& ids) {
  const std::string path = "/proc/" + std::to_string(pid) + "/stat";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  std::array<char, 512> buffer{};
  const ssize_t got = ::read(fd, buffer.data(), buffer.size() - 1);
  ::close(fd);
  if (got <= 0) return false;
  const std::string text(buffer.data(), static_cast<size_t>(got));
  const auto close_paren = text.rfind(')');
  if (close_paren == std::string::npos || close_paren + 4 > text.size()) return false;
  const char* cursor = text.c_str() + close_paren + 2;  // the state letter
  ++cursor;
  char* end = nullptr;
  ids.pid = pid;
  ids.parent = static_cast<pid_t>(std::strtol(cursor, &end, 10));
  ids.group = static_cast<pid_t>(std::strtol(end, &end, 10));
  ids.session = static_cast<pid_t>(std::strtol(end, &end, 10));
  return true;
}

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
    ProcessIds ids;
    if (ReadProcessIds(static_cast<pid_t>(pid), ids)) processes.push_back(ids);
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
      found = true;
      ended.insert(process.pid);
      ::kill(process.pid, SIGKILL);
      if (process.parent == self) {
        // SIGKILL'd: it ends at once, unless stuck in the kernel.
        ::waitpid(process.pid, nullptr, 0);
      }
    }
    if (!found) break;
    if (round > 0) ::usleep(1000);  // let the killed ones' children reparent
  }
  return static_cast<int>(ended.size());
}

}  // namespace sectl::isolation
