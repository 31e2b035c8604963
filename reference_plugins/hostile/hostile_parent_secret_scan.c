/* hostile_parent_secret_scan: searches every readable byte of its own
 * process for the secret a CI job keeps in sectl's environment (the test
 * sets SECTL_TEST_SECRET=s3cr3t-...). A process forked from sectl starts
 * as a copy of sectl's memory, so a secret sectl holds anywhere it would
 * find. Reads go through /proc/self/mem, which fails on an unreadable
 * page instead of faulting.
 * Refused: sectl keeps its environment in a mapping children do not
 * inherit (isolation/supervisor.h); the plugin's own environment holds only
 * the allowed and passed variables. */
#define _GNU_SOURCE

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hostile_parent.h"

enum { kChunkBytes = 1 << 20, kShownBytes = 40 };
/* Larger mappings are reservations (a sanitizer's shadow memory spans
 * terabytes of zero pages), never where a process keeps its strings. */
static const unsigned long kLargestRegionBytes = 256UL << 20;
static char chunk[kChunkBytes];

void HostileAct(void) {
  /* Built at run time: the plugin's own constants hold only its halves. */
  char needle[16];
  snprintf(needle, sizeof(needle), "%s%s", "s3c", "r3t-");
  const size_t needle_length = strlen(needle);
  FILE* maps = fopen("/proc/self/maps", "re");
  const int memory = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
  if (maps == NULL || memory < 0) {
    HostileLog("reading its own memory: refused");
    if (maps != NULL) fclose(maps);
    if (memory >= 0) close(memory);
    return;
  }
  char first[kShownBytes + 1] = "";
  char first_region[128] = "";
  size_t regions = 0;
  size_t bytes = 0;
  int found = 0;
  char line[512];
  while (fgets(line, sizeof(line), maps) != NULL) {
    unsigned long start = 0;
    unsigned long end = 0;
    char permissions[5] = "";
    if (sscanf(line, "%lx-%lx %4s", &start, &end, permissions) != 3 || permissions[0] != 'r' ||
        end - start > kLargestRegionBytes) {
      continue;
    }
    ++regions;
    for (unsigned long at = start; at < end;) {
      const size_t wanted = end - at < kChunkBytes ? end - at : kChunkBytes;
      const ssize_t got = pread(memory, chunk, wanted, (off_t)at);
      if (got <= 0) break;
      bytes += (size_t)got;
      for (const char* hit = memmem(chunk, (size_t)got, needle, needle_length); hit != NULL;
           hit = memmem(hit + 1, (size_t)got - (size_t)(hit + 1 - chunk), needle, needle_length)) {
        const uintptr_t where = at + (uintptr_t)(hit - chunk);
        /* Its own needle, and copies it made into its own buffers. */
        if (where == (uintptr_t)needle ||
            (where >= (uintptr_t)chunk && where < (uintptr_t)chunk + kChunkBytes) ||
            (where >= (uintptr_t)first && where < (uintptr_t)first + sizeof(first))) {
          continue;
        }
        if (found++ == 0) {
          const size_t room = (size_t)(chunk + got - hit);
          const size_t shown = room < kShownBytes ? room : kShownBytes;
          memcpy(first, hit, shown);
          first[shown] = '\0';
          first[strcspn(first, "\n")] = '\0';
          snprintf(first_region, sizeof(first_region), "%s", line);
          first_region[strcspn(first_region, "\n")] = '\0';
        }
      }
      at += (unsigned long)got;
    }
  }
  fclose(maps);
  close(memory);
  HostileLog("memory scanned: %zu regions, %zu bytes", regions, bytes);
  HostileLog("secrets found: %d%s%s", found, found > 0 ? ", the first: " : "", first);
  if (found > 0) HostileLog("the first was in: %s", first_region);
}
