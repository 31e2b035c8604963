/* hostile_parent_beyond_sectl: reaches past sectl to the process that
 * started it (in CI, the runner: stopping it hangs the job) and to init,
 * found through /proc/SECTL/stat, which a non-dumpable sectl still shows.
 * Each act sends signal 0 (nothing is sent; the answer says whether a real
 * signal would have been delivered) and SIGCONT (harmless), so that a
 * machine without the filter loses nothing to this test: to the starter,
 * its process group and session, and init.
 * Refused: the seccomp filter (isolation/sandbox.h). */
#define _GNU_SOURCE

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hostile_parent.h"

/* The parent of PID, or 0. */
static pid_t ParentOf(pid_t pid) {
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char stat[1024];
  const ssize_t got = read(fd, stat, sizeof(stat) - 1);
  close(fd);
  if (got <= 0) return 0;
  stat[got] = '\0';
  const char* name_end = strrchr(stat, ')');
  char state = 0;
  int parent = 0;
  if (name_end == NULL || sscanf(name_end + 1, " %c %d", &state, &parent) != 2) return 0;
  return (pid_t)parent;
}

void HostileAct(void) {
  const pid_t starter = ParentOf(getppid());
  if (starter <= 1) {
    HostileLog("sectl's parent: not found through /proc");
  } else {
    HostileOutcome("kill(sectl's parent, 0)", kill(starter, 0));
    HostileOutcome("kill(sectl's parent, SIGCONT)", kill(starter, SIGCONT));
    const pid_t group = getpgid(starter);
    if (group > 1 && group != getpgid(0)) {
      HostileOutcome("kill(-sectl's parent's group, 0)", kill(-group, 0));
    }
  }
  HostileOutcome("kill(init, 0)", kill(1, 0));
}
