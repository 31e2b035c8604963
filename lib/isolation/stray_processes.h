// Finding and ending what a child process left behind: descendants still in
// its process group or session, and orphans that changed both and were
// reparented to sectl (its subreaper, PrepareSupervisor).
#pragma once

#include <sys/types.h>

namespace sectl::isolation {

// Kills every process in the session or process group `child` led, and
// every process whose parent is sectl, in another session than sectl's, that
// is not a live ChildProcess; reaps those that are sectl's children. Repeats
// until none is left (a stray may fork while it is being ended). Returns
// how many processes it ended.
int EndStrayProcesses(pid_t child);

}  // namespace sectl::isolation
