/* hostile_isolation_flood: inside a check, starts a thread that writes
 * without end to every descriptor 0..1023, waits until it has offered more
 * than sectl's cap to each (or a second has passed), and lets the check go
 * on while it floods.
 * Held by: sectl reads at most 16 MiB from the result channel
 * (kMaxResultChannelBytes) and 64 KiB of output, discarding the rest, so
 * its memory stays bounded; the flooded channel makes the check the
 * plugin's failure, and --timeout bounds it if it never ends. */
#define _GNU_SOURCE

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hostile_isolation.h"

/* Rounds over every descriptor the thread has finished. */
static atomic_int rounds;

static void* Flood(void* unused) {
  (void)unused;
  static char block[1 << 16];
  memset(block, 'F', sizeof(block));
  for (;;) {
    for (int fd = 0; fd < 1024; ++fd) {
      (void)!write(fd, block, sizeof(block));
    }
    atomic_fetch_add(&rounds, 1);
  }
  return NULL;
}

void HostileIsolationAct(void) {
  pthread_t thread;
  if (pthread_create(&thread, NULL, Flood, NULL) != 0) {
    return;
  }
  HostileIsolationNote("flooding every descriptor");
  /* 400 rounds of 64 KiB: 25 MiB offered to each descriptor. */
  const struct timespec pause = {0, 1000 * 1000};
  for (int waited_ms = 0; atomic_load(&rounds) < 400 && waited_ms < 1000; ++waited_ms) {
    nanosleep(&pause, NULL);
  }
}
