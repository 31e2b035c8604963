/* hostile_parent_neighbours: looks for every other process on the machine
 * and asks, with signal 0 (nothing is sent), whether it could signal each:
 * sibling checks under -j, the CI runner's other jobs, anything of the same
 * user (as root, anything at all). Signal 0 keeps the machine safe if the
 * confinement is missing; a real plugin could send SIGKILL instead.
 * Refused: the PID namespace (isolation/namespaces.h), in which no other
 * process has a pid the plugin can name, and the seccomp filter for the
 * reaper at pid 1. Without namespaces, only sectl, its parent and init are
 * kept from it. */
#define _GNU_SOURCE

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "hostile_parent.h"

void HostileAct(void) {
  DIR* proc = opendir("/proc");
  if (proc == NULL) {
    HostileLog("listing /proc: refused");
    return;
  }
  const pid_t self = getpid();
  int listed = 0;
  int signalled = 0;
  const struct dirent* entry = NULL;
  while ((entry = readdir(proc)) != NULL) {
    char* end = NULL;
    const long pid = strtol(entry->d_name, &end, 10);
    if (pid <= 0 || *end != '\0' || pid == self) continue;
    ++listed;
    if (kill((pid_t)pid, 0) == 0) ++signalled;
  }
  closedir(proc);
  HostileLog("other processes listed in /proc: %d", listed);
  HostileLog("other processes it could signal: %d", signalled);
}
