/* hostile_isolation_bump_progress: inside a check or a benchmark, starts a
 * thread that bumps the first word of every shared writable mapping of its
 * process (where sectl's progress counter and journal live) without end,
 * and then hangs, so that a watchdog believing those counters would wait
 * for ever.
 * Held by: sectl's deadlines are on its own clock; the bench's is --timeout
 * for the setup and for each step sectl expects, counted from the options
 * (lib/bench/run_bench.cc), which nothing in shared memory extends. */
#define _GNU_SOURCE

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hostile_isolation.h"

enum { kMostMappings = 16 };

static void* Bump(void* unused) {
  (void)unused;
  atomic_int* counters[kMostMappings];
  int count = 0;
  FILE* maps = fopen("/proc/self/maps", "re");
  if (maps == NULL) {
    return NULL;
  }
  char line[512];
  while (count < kMostMappings && fgets(line, sizeof(line), maps) != NULL) {
    unsigned long start = 0;
    unsigned long end = 0;
    char permissions[8] = {0};
    if (sscanf(line, "%lx-%lx %7s", &start, &end, permissions) == 3 &&
        strcmp(permissions, "rw-s") == 0) {
      counters[count++] = (atomic_int*)(uintptr_t)start;
    }
  }
  fclose(maps);
  char note[64];
  snprintf(note, sizeof(note), "bumping %d shared mappings", count);
  HostileIsolationNote(note);
  for (;;) {
    for (int i = 0; i < count; ++i) {
      atomic_fetch_add(counters[i], 1);
    }
    usleep(1000);
  }
  return NULL;
}

void HostileIsolationAct(void) {
  pthread_t thread;
  if (pthread_create(&thread, NULL, Bump, NULL) != 0) {
    return;
  }
  for (;;) {
    pause();
  }
}
