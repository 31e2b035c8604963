/* hostile_parent_memory: tries to write sectl's memory, through
 * /proc/PPID/mem opened for writing and through process_vm_writev. Nothing
 * is written if that is allowed: the mem file is only opened, and
 * process_vm_* aim at page 1, which is never mapped, so that a permitted
 * call fails with EFAULT instead of EPERM and is logged as SUCCEEDED.
 * Refused: the seccomp filter (process_vm_*), and for both, sectl is not
 * dumpable and the child holds no CAP_SYS_PTRACE (isolation/sandbox.h). */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "hostile_parent.h"

/* Logs a process_vm_* result: EFAULT means the kernel let the call reach
 * sectl's memory, and only the unmapped address stopped it. */
static void LogMemoryCall(const char* act, ssize_t result) {
  if (result < 0 && errno == EFAULT) {
    HostileLog("%s: SUCCEEDED (permitted; stopped only by the unmapped address)", act);
    return;
  }
  HostileOutcome(act, result);
}

void HostileAct(void) {
  const pid_t sectl = getppid();
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/mem", (int)sectl);
  int fd = (int)HostileOutcome("open /proc/PPID/mem for writing", open(path, O_RDWR | O_CLOEXEC));
  if (fd >= 0) {
    close(fd);
  }

  char byte = 0;
  struct iovec local = {.iov_base = &byte, .iov_len = 1};
  struct iovec remote = {.iov_base = (void*)(uintptr_t)4096, .iov_len = 1};
  LogMemoryCall("process_vm_writev", process_vm_writev(sectl, &local, 1, &remote, 1, 0));
  LogMemoryCall("process_vm_readv", process_vm_readv(sectl, &local, 1, &remote, 1, 0));
}
