/* hostile_isolation_garbage: inside a check, writes garbage (bytes from
 * /dev/urandom-like arithmetic, then text that looks like a result) on
 * every descriptor 0..1023, then goes on as sectl_minimal would, so the
 * check's own answer follows the garbage on the channel.
 * Held by: sectl reads its result channel as frames with this child's
 * random key; the first foreign byte makes the check the plugin's failure
 * ("wrote to sectl's result channel"), never sectl's error
 * (isolation/result_channel.h, isolation/child_outcome.h). */
#define _GNU_SOURCE

#include <stdint.h>
#include <unistd.h>

#include "hostile_isolation.h"

void HostileIsolationAct(void) {
  unsigned char garbage[4096];
  uint32_t state = 0x5ec7u ^ (uint32_t)getpid();
  for (size_t i = 0; i < sizeof(garbage); ++i) {
    state = state * 1664525u + 1013904223u; /* a linear congruential generator */
    garbage[i] = (unsigned char)(state >> 24);
  }
  /* Noted first: sectl may end this process at the first foreign byte. */
  HostileIsolationNote("writing garbage");
  for (int fd = 0; fd < 1024; ++fd) {
    (void)!write(fd, garbage, sizeof(garbage));
  }
}
