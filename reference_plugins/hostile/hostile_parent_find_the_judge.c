/* hostile_parent_find_the_judge: looks, from inside its own process, for
 * what a plugin would need to forge sectl's verdict: sectl's program, its
 * strings, and descriptors beyond stdio (a result channel). Under a plugin
 * server (docs/plugin-server.md) it finds the server's program, none of
 * sectl's strings, and only the server's channel and arena. */
#define _GNU_SOURCE

#include <dirent.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostile_parent.h"

/* A sentence only sectl's own code says (isolation/child_outcome.cc). */
static const char kSectlSentence[] = "could not confine the plugin";

static int SearchSegments(struct dl_phdr_info* info, size_t size, void* found) {
  (void)size;
  if (info->dlpi_name != NULL && info->dlpi_name[0] != '\0') return 0; /* the program only */
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)* segment = &info->dlpi_phdr[i];
    if (segment->p_type != PT_LOAD) continue;
    const char* start = (const char*)(info->dlpi_addr + segment->p_vaddr);
    if (memmem(start, segment->p_memsz, kSectlSentence, sizeof(kSectlSentence) - 1) != NULL) {
      *(int*)found = 1;
    }
  }
  return 1;
}

void HostileAct(void) {
  char program[4096] = "";
  const ssize_t length = readlink("/proc/self/exe", program, sizeof(program) - 1);
  if (length > 0) program[length] = '\0';
  const char* name = strrchr(program, '/');
  HostileLog("program: %s", name != NULL ? name + 1 : program);

  int found = 0;
  dl_iterate_phdr(SearchSegments, &found);
  HostileLog("sectl's strings in this process: %s", found ? "FOUND" : "none");

  int descriptors = 0;
  DIR* directory = opendir("/proc/self/fd");
  if (directory != NULL) {
    for (struct dirent* entry = readdir(directory); entry != NULL; entry = readdir(directory)) {
      const int fd = atoi(entry->d_name);
      if (entry->d_name[0] != '.' && fd > 2 && fd != dirfd(directory)) ++descriptors;
    }
    closedir(directory);
  }
  HostileLog("descriptors beyond stdio: %d", descriptors);
}
