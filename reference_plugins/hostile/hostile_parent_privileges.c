/* hostile_parent_privileges: tries what only a privileged process could do,
 * and what would let it take the machine or the run with it: leave its
 * /proc to see the host's, mount, freeze or kill its cgroup, write kernel
 * settings, and fill the disk of its working directory. It also notes who
 * it runs as and what it holds, for the test to compare with the report's
 * confinement. Nothing it opens is written: a successful open is the
 * evidence, and writing "1" to cgroup.freeze would freeze the test run. */
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hostile_parent.h"

/* What the working directory takes before it is full: more than sectl's
 * scratch tmpfs holds (64 MiB), little enough for a real disk. */
enum { kFillMebibytes = 80 };

static void NoteCapabilities(void) {
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
  memset(data, 0, sizeof(data));
  if (syscall(SYS_capget, &header, data) != 0) {
    HostileLog("capabilities: unknown (%s)", strerrorname_np(errno));
    return;
  }
  unsigned held = 0;
  for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; ++i) {
    held |= data[i].effective | data[i].permitted | data[i].inheritable;
  }
  int bounding = 0;
  for (int capability = 0; capability < 64; ++capability) {
    if (prctl(PR_CAPBSET_READ, capability, 0, 0, 0) == 1) ++bounding;
  }
  HostileLog("capabilities held: %s", held == 0 ? "none" : "SOME");
  HostileLog("bounding set: %d", bounding);
}

/* Opens PATH for writing and closes it unwritten. */
static void TryOpenForWriting(const char* act, const char* path) {
  const int fd = (int)HostileOutcome(act, open(path, O_WRONLY | O_CLOEXEC));
  if (fd >= 0) close(fd);
}

static void TryCgroupFiles(void) {
  FILE* own = fopen("/proc/self/cgroup", "re");
  char line[512] = "";
  if (own == NULL || fgets(line, sizeof(line), own) == NULL) {
    HostileLog("cgroup: unknown");
    if (own != NULL) fclose(own);
    return;
  }
  fclose(own);
  line[strcspn(line, "\n")] = '\0';
  const char* path = strstr(line, "::");
  path = path != NULL ? path + 2 : "/";
  char file[700];
  snprintf(file, sizeof(file), "/sys/fs/cgroup%s/cgroup.freeze", path);
  TryOpenForWriting("open cgroup.freeze for writing", file);
  snprintf(file, sizeof(file), "/sys/fs/cgroup%s/cgroup.kill", path);
  TryOpenForWriting("open cgroup.kill for writing", file);
}

static void FillWorkingDirectory(void) {
  const int fd = open("sectl-fill", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    HostileLog("fill working directory: refused (%s)", strerrorname_np(errno));
    return;
  }
  static char chunk[1 << 20];
  int written = 0;
  int error = 0;
  for (; written < kFillMebibytes; ++written) {
    if (write(fd, chunk, sizeof(chunk)) != (ssize_t)sizeof(chunk)) {
      error = errno;
      break;
    }
  }
  close(fd);
  unlink("sectl-fill");
  HostileLog("filled %d MiB (%s)", written, error != 0 ? strerrorname_np(error) : "no error");
}

static void NoteWorkingDirectory(void) {
  char cwd[4096] = "";
  const char* tmpdir = getenv("TMPDIR");
  if (getcwd(cwd, sizeof(cwd)) == NULL) {
    HostileLog("working directory: unknown (%s)", strerrorname_np(errno));
    return;
  }
  HostileLog("working directory is TMPDIR: %s",
             tmpdir != NULL && strcmp(tmpdir, cwd) == 0 ? "yes" : "no");
}

static void NoteVisibleProcesses(void) {
  DIR* proc = opendir("/proc");
  int count = 0;
  if (proc != NULL) {
    for (struct dirent* entry = readdir(proc); entry != NULL; entry = readdir(proc)) {
      char* end = NULL;
      if (strtol(entry->d_name, &end, 10) > 0 && *end == '\0') ++count;
    }
    closedir(proc);
  }
  HostileLog("processes visible: %d", count);
}

void HostileAct(void) {
  HostileLog("uid: %d", (int)getuid());
  HostileLog("dumpable: %d", prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));
  HostileLog("no_new_privs: %d", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
  NoteCapabilities();
  NoteVisibleProcesses();
  HostileOutcome("umount /proc", umount2("/proc", MNT_DETACH));
  HostileOutcome("mount a tmpfs", mount("hostile", "/mnt", "tmpfs", 0, NULL));
  TryCgroupFiles();
  TryOpenForWriting("open /proc/sys/kernel/hostname for writing", "/proc/sys/kernel/hostname");
  NoteWorkingDirectory();
  FillWorkingDirectory();
}
