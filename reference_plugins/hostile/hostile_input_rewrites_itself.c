/* hostile_input_rewrites_itself: the first process that registers it gives
 * its own file a new modification time, as a rebuild or a `touch` in
 * another terminal would while sectl runs. Every later load must refuse the
 * file, which is no longer the one whose SHA-256 the report names, and the
 * checks that could not load it are sectl's `error`: neither the plugin's
 * defect nor a finding (loader/plugin_file_pin.h). */
#define _GNU_SOURCE

#include <dlfcn.h>
#include <fcntl.h>
#include <stddef.h>
#include <sys/stat.h>

#include "hostile_parent.h"

void HostileAct(void) {
  Dl_info info;
  if (dladdr((void*)HostileAct, &info) == 0 || info.dli_fname == NULL) {
    HostileLog("its own file: not found");
    return;
  }
  const struct timespec now[2] = {{0, UTIME_NOW}, {0, UTIME_NOW}};
  HostileOutcome("utimensat(its own file)", utimensat(AT_FDCWD, info.dli_fname, now, 0));
}
