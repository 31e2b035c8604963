/* hostile_isolation_traceme: inside a check, asks to be traced by its
 * parent (PTRACE_TRACEME, which makes sectl its tracer where the kernel
 * allows it) and then stops itself.
 * Held by: the seccomp filter refuses ptrace (isolation/sandbox.h); where
 * it is not in force, sectl sees the traced stop (waitpid reports it), kills
 * the child and reports it as the plugin's doing; either way the stop is
 * seen with WUNTRACED, not read as "exit status 19". */
#define _GNU_SOURCE

#include <signal.h>
#include <sys/ptrace.h>

#include "hostile_isolation.h"

void HostileIsolationAct(void) {
  HostileIsolationNote(ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0 ? "PTRACE_TRACEME: SUCCEEDED"
                                                                  : "PTRACE_TRACEME: refused");
  raise(SIGSTOP);
  HostileIsolationNote("continued after stopping itself");
}
