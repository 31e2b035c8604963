/* hostile_input_long_init_message: SE_InitPlugin fails with a 1 MB TF_Status
 * message that starts with a terminal escape and a right-to-left override.
 * The validation layer's report says why registration failed, quoting the
 * message: it must keep 4 KiB of it and say how long it was. */
#include <stdlib.h>
#include <string.h>

#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

enum { kLongMessageBytes = 1000 * 1000 };

TF_CAPI_EXPORT void SE_InitPlugin(SE_PlatformRegistrationParams* params, TF_Status* status) {
  (void)params;
  static const char kStart[] = "\x1b]0;owned\x07\xe2\x80\xae no device: ";
  char* message = malloc(kLongMessageBytes + 1);
  if (message == NULL) {
    TF_SetStatus(status, TF_UNAVAILABLE, "no device");
    return;
  }
  memset(message, 'm', kLongMessageBytes);
  memcpy(message, kStart, sizeof(kStart) - 1);
  message[kLongMessageBytes] = '\0';
  TF_SetStatus(status, TF_UNAVAILABLE, message);
  free(message);
}
