/* The frame shared by the hostile_isolation_* plugins (hostile_isolation.h):
 * the minimal reference plugin, renamed, under an SE_InitPlugin whose stream
 * executor puts the hostile act in front of allocate. */
#define _GNU_SOURCE

#define SE_InitPlugin MinimalInitPlugin
#include "../minimal/minimal.c"
#undef SE_InitPlugin

#include <fcntl.h>
#include <sys/prctl.h>

#include "hostile_isolation.h"

void HostileIsolationNote(const char* line) {
  const char* path = getenv("SECTL_HOSTILE_LOG");
  if (path == NULL || path[0] == '\0') {
    return;
  }
  /* Appended: the checks' processes share the file. */
  const int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd >= 0) {
    char text[256];
    const int length = snprintf(text, sizeof(text), "%s\n", line);
    if (length > 0) {
      (void)!write(fd, text, (size_t)length < sizeof(text) ? (size_t)length : sizeof(text) - 1);
    }
    close(fd);
  }
}

static void (*minimal_create_stream_executor)(const SP_Platform*, SE_CreateStreamExecutorParams*,
                                              TF_Status*);
static void (*minimal_allocate)(const SP_Device*, uint64_t, int64_t, SP_DeviceMemoryBase*);

static void HostileAllocate(const SP_Device* device, uint64_t size, int64_t memory_space,
                            SP_DeviceMemoryBase* memory) {
  static int committed = 0; /* once per process */
  if (!committed) {
    committed = 1;
    /* Named for the test, which looks for what is left by this name
     * (SECTL_HOSTILE_TAG, passed with --pass-env); its forks inherit it. */
    const char* tag = getenv("SECTL_HOSTILE_TAG");
    if (tag != NULL && tag[0] != '\0') {
      prctl(PR_SET_NAME, tag, 0, 0, 0);
    }
    HostileIsolationAct();
  }
  minimal_allocate(device, size, memory_space, memory);
}

static void HostileCreateStreamExecutor(const SP_Platform* platform,
                                        SE_CreateStreamExecutorParams* params, TF_Status* status) {
  minimal_create_stream_executor(platform, params, status);
  if (TF_GetCode(status) == TF_OK && params != NULL && params->stream_executor != NULL &&
      params->stream_executor->allocate != NULL) {
    minimal_allocate = params->stream_executor->allocate;
    params->stream_executor->allocate = HostileAllocate;
  }
}

TF_CAPI_EXPORT void SE_InitPlugin(SE_PlatformRegistrationParams* params, TF_Status* status) {
  MinimalInitPlugin(params, status);
  if (TF_GetCode(status) != TF_OK || params->platform_fns->create_stream_executor == NULL) {
    return;
  }
  minimal_create_stream_executor = params->platform_fns->create_stream_executor;
  params->platform_fns->create_stream_executor = HostileCreateStreamExecutor;
}
