/* hostile_isolation_self_environ: inside a check, reads its own
 * /proc/self/environ, the environment block the kernel kept from sectl's
 * exec, which clearenv() alone leaves intact, and writes what it found
 * (one variable a line) to $SECTL_HOSTILE_LOG.
 * Held by: before any plugin code runs, the child overwrites every byte of
 * the original environment strings and then sets only the allowed and
 * passed variables (isolation/confinement.h, ConfineChild). */
#define _GNU_SOURCE

#include <fcntl.h>
#include <unistd.h>

#include "hostile_isolation.h"

void HostileIsolationAct(void) {
  static char block[1 << 16];
  const int fd = open("/proc/self/environ", O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    HostileIsolationNote("open /proc/self/environ: refused");
    return;
  }
  size_t size = 0;
  ssize_t got = 0;
  while (size < sizeof(block) - 1 && (got = read(fd, block + size, sizeof(block) - 1 - size)) > 0) {
    size += (size_t)got;
  }
  close(fd);
  block[size] = '\0';
  HostileIsolationNote("read /proc/self/environ:");
  const char* variable = block;
  for (size_t at = 0; at <= size; ++at) {
    if (block[at] == '\0') {
      if (block + at > variable) {
        HostileIsolationNote(variable);
      }
      variable = block + at + 1;
    }
  }
}
