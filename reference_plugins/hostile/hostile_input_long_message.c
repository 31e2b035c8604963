/* hostile_input_long_message: sectl_minimal, except that synchronize_all_activity
 * fails with a 10 MB TF_Status message full of characters that reorder or
 * break what a reader sees: a right-to-left override and isolates ("Trojan
 * Source"), the line and paragraph separators U+2028/U+2029, and a terminal
 * escape. sectl must keep a few kilobytes of it (the report stays small and
 * says it cut the message) and show every such character written out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SE_InitPlugin Minimal_SE_InitPlugin
#include "../minimal/minimal.c"
#undef SE_InitPlugin

#define HOSTILE_LAYOUT                           \
  "PASS\xe2\x80\xae"                             \
  "LIAF \xe2\x81\xa6x\xe2\x81\xa9 a\xe2\x80\xa8" \
  "b\xe2\x80\xa9"                                \
  "c \x1b[32mALL CHECKS PASSED "

enum { kLongMessageBytes = 10 * 1000 * 1000 };

static void LongMessageSynchronizeAllActivity(const SP_Device* device, TF_Status* status) {
  (void)device;
  char* message = malloc(kLongMessageBytes + 1);
  if (message == NULL) {
    TF_SetStatus(status, TF_INTERNAL, "synchronize_all_activity failed");
    return;
  }
  const size_t pattern = strlen(HOSTILE_LAYOUT);
  size_t at = 0;
  while (at + pattern <= kLongMessageBytes) {
    memcpy(message + at, HOSTILE_LAYOUT, pattern);
    at += pattern;
  }
  message[at] = '\0';
  TF_SetStatus(status, TF_INTERNAL, message);
  free(message);
}

static void (*minimal_create_stream_executor)(const SP_Platform*, SE_CreateStreamExecutorParams*,
                                              TF_Status*);

static void LongMessageCreateStreamExecutor(const SP_Platform* platform,
                                            SE_CreateStreamExecutorParams* params,
                                            TF_Status* status) {
  minimal_create_stream_executor(platform, params, status);
  if (TF_GetCode(status) != TF_OK) return;
  params->stream_executor->synchronize_all_activity = LongMessageSynchronizeAllActivity;
}

TF_CAPI_EXPORT void SE_InitPlugin(SE_PlatformRegistrationParams* params, TF_Status* status) {
  Minimal_SE_InitPlugin(params, status);
  if (TF_GetCode(status) != TF_OK) return;
  minimal_create_stream_executor = params->platform_fns->create_stream_executor;
  params->platform_fns->create_stream_executor = LongMessageCreateStreamExecutor;
}
