/* hostile_parent_kill_everyone: kill(-1, SIGKILL), which as root ends every
 * process on the machine but init and the caller. It first asks with
 * signal 0, which sends nothing: only when that is refused (the seccomp
 * filter is in force, and refuses -1 whatever the signal) does it send
 * SIGKILL, so that a machine without the filter loses nothing to this test.
 * Refused: the seccomp filter (isolation/sandbox.h). */
#define _GNU_SOURCE

#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include "hostile_parent.h"

void HostileAct(void) {
  if (HostileOutcome("kill(-1, 0)", kill(-1, 0)) == 0 || errno != EPERM) {
    HostileLog("kill(-1, SIGKILL): not sent, kill(-1, 0) was not refused with EPERM");
    return;
  }
  HostileOutcome("kill(-1, SIGKILL)", kill(-1, SIGKILL));
}
