/* hostile_parent_environ: reads sectl's environment through
 * /proc/PPID/environ and prints it, where sectl captures the plugin's
 * output. Refused: sectl is not dumpable and the child holds no
 * CAP_SYS_PTRACE (isolation/sandbox.h). */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hostile_parent.h"

void HostileAct(void) {
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/environ", (int)getppid());
  int fd = (int)HostileOutcome("open /proc/PPID/environ", open(path, O_RDONLY | O_CLOEXEC));
  if (fd < 0) {
    return;
  }
  static char environment[1 << 16];
  ssize_t got =
      HostileOutcome("read /proc/PPID/environ", read(fd, environment, sizeof(environment) - 1));
  close(fd);
  if (got <= 0) {
    return;
  }
  for (ssize_t i = 0; i < got; ++i) {
    if (environment[i] == '\0') {
      environment[i] = '\n';
    }
  }
  environment[got] = '\0';
  fputs(environment, stdout);
  fputs(environment, stderr);
  fflush(stdout);
  HostileLog("sectl's environment:\n%s", environment);
}
