// A pids cgroup around one plugin process tree, where sectl runs as root.
//
// RLIMIT_NPROC bounds a user's processes, but the kernel never applies it
// to root's (uid 0 in the first user namespace is exempt whatever its
// capabilities), and counts every process of the user, not one plugin's.
// A plugin that stays root without capabilities (plugin_identity.h) could
// fork until the machine has no pid left, and sectl's own forks would then
// fail: blamed on sectl rather than on the plugin. A pids cgroup per plugin
// process holds the whole tree (the reaper, the judge, the plugin server and
// everything the plugin forks) to kMaxPluginProcesses, whoever it runs as.
//
// Where the kernel offers one: a cgroup v1 "pids" hierarchy, or cgroup v2
// with the pids controller already delegated to sectl's own cgroup (sectl
// never changes a cgroup's controllers). Elsewhere (not root, a read-only
// /sys/fs/cgroup in a container) there is none, and the report's
// confinement says so. The plugin cannot raise its own limit: its mount
// namespace has /sys/fs/cgroup read-only (file_system_view.h) and, as
// nobody, it owns none of the group's files.
#pragma once

#include <cstdint>
#include <string>

#include "base/error.h"

namespace sectl::isolation {

class ProcessLimitGroup {
 public:
  // In sectl, before forking: a new group limited to `max_processes`
  // (processes and threads). An error says why there is none; the plugin
  // process then runs without it.
  static Expected<ProcessLimitGroup> Create(uint64_t max_processes);

  // Where sectl would create groups, or why it cannot, as a line of the
  // report's confinement ("at most 4096 processes and threads (pids cgroup
  // /sys/fs/cgroup/pids/...)").
  static std::string Describe(uint64_t max_processes);

  // Removes the groups of sectl processes that ended without removing
  // theirs (killed, or ended by a second signal). Done once per process, at
  // its first Create or Describe; public for the tests.
  static void RemoveGroupsLeftBehind();

  ProcessLimitGroup(ProcessLimitGroup&& other) noexcept;
  ProcessLimitGroup& operator=(ProcessLimitGroup&& other) noexcept;
  ProcessLimitGroup(const ProcessLimitGroup&) = delete;
  ProcessLimitGroup& operator=(const ProcessLimitGroup&) = delete;
  // Gives the group back once its processes have ended: kept empty for the
  // next Create of this process, removed when the process ends.
  ~ProcessLimitGroup();

  // In the forked child, before it forks or runs anything else: moves the
  // calling process into the group, and with it everything it will start.
  // Async-signal-safe (open, write, close); whether it joined.
  bool Join() const noexcept;

  const std::string& path() const { return path_; }

 private:
  ProcessLimitGroup(std::string path, uint64_t max_processes);

  std::string path_;        // the group's directory; empty once moved from
  std::string procs_file_;  // path_ + "/cgroup.procs", built before the fork
  uint64_t max_processes_ = 0;
};

}  // namespace sectl::isolation
