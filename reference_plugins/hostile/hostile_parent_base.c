/* The frame shared by the hostile_parent_* plugins (hostile_parent.h): the
 * minimal reference plugin, renamed, under an SE_InitPlugin that puts the
 * hostile act in front of its create_stream_executor. */
#define _GNU_SOURCE

#define SE_InitPlugin MinimalInitPlugin
#include "../minimal/minimal.c"
#undef SE_InitPlugin

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>

#include "hostile_parent.h"

void HostileLog(const char* format, ...) {
  const char* path = getenv("SECTL_HOSTILE_LOG");
  if (path == NULL || path[0] == '\0') {
    return;
  }
  char line[512];
  va_list arguments;
  va_start(arguments, format);
  int length = vsnprintf(line, sizeof(line) - 1, format, arguments);
  va_end(arguments);
  if (length < 0) {
    return;
  }
  if ((size_t)length > sizeof(line) - 2) {
    length = (int)sizeof(line) - 2;
  }
  line[length] = '\n';
  /* One write per line, appended: the checks' processes share the file. */
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd >= 0) {
    (void)!write(fd, line, (size_t)length + 1);
    close(fd);
  }
}

long HostileOutcome(const char* act, long result) {
  if (result < 0) {
    HostileLog("%s: refused (%s)", act, strerrorname_np(errno));
  } else {
    HostileLog("%s: SUCCEEDED (%ld)", act, result);
  }
  return result;
}

static void (*minimal_create_stream_executor)(const SP_Platform*, SE_CreateStreamExecutorParams*,
                                              TF_Status*);

static void HostileCreateStreamExecutor(const SP_Platform* platform,
                                        SE_CreateStreamExecutorParams* params, TF_Status* status) {
  static int committed = 0; /* once per process */
  if (!committed) {
    committed = 1;
    HostileAct();
  }
  minimal_create_stream_executor(platform, params, status);
}

TF_CAPI_EXPORT void SE_InitPlugin(SE_PlatformRegistrationParams* params, TF_Status* status) {
  MinimalInitPlugin(params, status);
  if (TF_GetCode(status) != TF_OK || params->platform_fns->create_stream_executor == NULL) {
    return;
  }
  minimal_create_stream_executor = params->platform_fns->create_stream_executor;
  params->platform_fns->create_stream_executor = HostileCreateStreamExecutor;
}
