/* hostile_parent_stdout: writes garbage into sectl's own stdout through
 * /proc/PPID/fd/1, where sectl prints its JSON report. Refused: sectl is not
 * dumpable and the child holds no CAP_SYS_PTRACE (isolation/sandbox.h). */
#define _GNU_SOURCE

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hostile_parent.h"

void HostileAct(void) {
  static const char kGarbage[] = "}{ not JSON: written by hostile_parent_stdout\n";
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/fd/1", (int)getppid());
  int fd = (int)HostileOutcome("open /proc/PPID/fd/1", open(path, O_WRONLY | O_CLOEXEC));
  if (fd < 0) {
    return;
  }
  HostileOutcome("write /proc/PPID/fd/1", write(fd, kGarbage, strlen(kGarbage)));
  close(fd);
}
