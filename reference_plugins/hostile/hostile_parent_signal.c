/* hostile_parent_signal: stops sectl, then kills it: SIGSTOP by kill, tkill,
 * tgkill, rt_sigqueueinfo and a raw kill whose pid has junk in the upper
 * half of the register, SIGSTOP to sectl's process group when sectl leads
 * it, signal 0 (nothing sent) to its session's group, then SIGKILL.
 * Refused: the seccomp filter (isolation/sandbox.h). */
#define _GNU_SOURCE

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hostile_parent.h"

void HostileAct(void) {
  const pid_t sectl = getppid();
  HostileOutcome("kill(sectl, SIGSTOP)", kill(sectl, SIGSTOP));
  HostileOutcome("tkill(sectl, SIGSTOP)", syscall(SYS_tkill, sectl, SIGSTOP));
  HostileOutcome("tgkill(sectl, sectl, SIGSTOP)", syscall(SYS_tgkill, sectl, sectl, SIGSTOP));
  siginfo_t info;
  memset(&info, 0, sizeof(info));
  info.si_signo = SIGSTOP;
  info.si_code = SI_QUEUE; /* what sigqueue(3) sends; the kernel takes it from another process */
  info.si_pid = getpid();
  info.si_uid = getuid();
  HostileOutcome("rt_sigqueueinfo(sectl, SIGSTOP)",
                 syscall(SYS_rt_sigqueueinfo, sectl, SIGSTOP, &info));
  /* The kernel reads an int; a filter comparing 64 bits would miss this. */
  const long junk_upper_half = (long)(((uint64_t)0x5ec7 << 32) | (uint32_t)sectl);
  HostileOutcome("kill(sectl with junk in the upper half, SIGSTOP)",
                 syscall(SYS_kill, junk_upper_half, SIGSTOP));
  if (getpgid(sectl) == sectl) {
    HostileOutcome("kill(-sectl's group, SIGSTOP)", kill(-sectl, SIGSTOP));
  }
  const pid_t session = getsid(sectl);
  if (session > 1 && session != getsid(0)) {
    HostileOutcome("kill(-sectl's session, 0)", kill(-session, 0));
  }
  HostileOutcome("kill(sectl, SIGKILL)", kill(sectl, SIGKILL));
}
