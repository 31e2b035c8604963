/* hostile_isolation_stray: inside a check, forks a child that leaves the
 * check's session and process group (setsid), sleeps, and after 3 s writes
 * a marker file ($SECTL_HOSTILE_LOG with ".stray" appended) to show it
 * outlived the check; it sleeps 60 s in all.
 * Held by: sectl is the child subreaper (PrepareSupervisor), so the orphan
 * is reparented to sectl when the check's process ends; sectl then finds
 * it in /proc (parent sectl, another session, no live check), kills and
 * reaps it, and counts it in the check's details.stray_processes
 * (isolation/stray_processes.h). */
#define _GNU_SOURCE

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "hostile_isolation.h"

void HostileIsolationAct(void) {
  const pid_t stray = fork();
  if (stray == 0) {
    setsid();
    sleep(3);
    const char* log = getenv("SECTL_HOSTILE_LOG");
    if (log != NULL) {
      char marker[4096];
      snprintf(marker, sizeof(marker), "%s.stray", log);
      const int fd = open(marker, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
      if (fd >= 0) close(fd);
    }
    sleep(57);
    _exit(0);
  }
  if (stray > 0) {
    HostileIsolationNote("forked a stray");
  }
}
