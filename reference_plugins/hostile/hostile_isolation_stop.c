/* hostile_isolation_stop: inside a check, stops its own process
 * (raise(SIGSTOP)), which nothing will continue.
 * Held by: sectl waits for its checks with WUNTRACED, so a stopped check
 * is seen at once, killed and reaped, and reported as the plugin's doing
 * ("stopped its process (SIGSTOP)"), never as "exit status 19"; the
 * deadline is the fallback (isolation/child_process.h). */
#define _GNU_SOURCE

#include <signal.h>

#include "hostile_isolation.h"

void HostileIsolationAct(void) {
  HostileIsolationNote("stopping itself");
  raise(SIGSTOP);
  HostileIsolationNote("continued after stopping itself");
}
