/* hostile_parent_ptrace: attaches to sectl with ptrace (detaching at once
 * if that works), takes a pidfd on it, through pidfd_open and through
 * /proc/PPID, compares descriptors with kcmp, and reads its resource limits
 * with prlimit (from where a plugin could lower them until sectl dies).
 * Refused: the seccomp filter; ptrace also by sectl being non-dumpable and
 * the child holding no CAP_SYS_PTRACE (isolation/sandbox.h). */
#define _GNU_SOURCE

#include <fcntl.h>
#include <linux/kcmp.h>
#include <signal.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostile_parent.h"

void HostileAct(void) {
  const pid_t sectl = getppid();
  if (HostileOutcome("ptrace(PTRACE_ATTACH, sectl)", ptrace(PTRACE_ATTACH, sectl, NULL, NULL)) ==
      0) {
    waitpid(sectl, NULL, __WALL);
    ptrace(PTRACE_DETACH, sectl, NULL, NULL);
  }
  const long pidfd = HostileOutcome("pidfd_open(sectl)", syscall(SYS_pidfd_open, sectl, 0));
  if (pidfd >= 0) {
    close((int)pidfd);
  }
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d", (int)sectl);
  const int directory = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (directory >= 0) {
    HostileOutcome("pidfd_send_signal(/proc/sectl, 0)",
                   syscall(SYS_pidfd_send_signal, directory, 0, NULL, 0));
    close(directory);
  }
  HostileOutcome("kcmp(self, sectl, KCMP_FILE, 1, 1)",
                 syscall(SYS_kcmp, getpid(), sectl, KCMP_FILE, 1, 1));
  struct rlimit limit;
  HostileOutcome("prlimit(sectl, RLIMIT_CPU)", prlimit(sectl, RLIMIT_CPU, NULL, &limit));
}
