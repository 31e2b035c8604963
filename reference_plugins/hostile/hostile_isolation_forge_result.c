/* hostile_isolation_forge_result: inside a check, writes a well-formed
 * "pass" on every descriptor 0..1023, in every shape sectl's result could
 * take (the JSON outcome the old protocol read from descriptor 3, and a
 * plausible frame: a guessed all-zero key, kind 1, a length), then
 * _exit(0)s as a child that had reported would.
 * Held by: the result channel sits at a random descriptor of at least 64 and
 * sectl believes only frames with this child's random key
 * (isolation/result_channel.h); anything else there is the plugin's doing. */
#define _GNU_SOURCE

#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "hostile_isolation.h"

static const char kPass[] =
    "{\"status\":\"pass\",\"message\":\"\",\"details\":{},\"culprits\":[],"
    "\"exception_across_api\":false}";

void HostileIsolationAct(void) {
  struct {
    uint8_t key[16];
    uint32_t kind;
    uint32_t size;
  } frame_header;
  memset(&frame_header, 0, sizeof(frame_header));
  frame_header.kind = 1;
  frame_header.size = (uint32_t)(sizeof(kPass) - 1);
  /* Noted first: sectl may end this process at the first forged byte. */
  HostileIsolationNote("forging a pass");
  for (int fd = 0; fd < 1024; ++fd) {
    struct iovec pieces[3] = {
        {(void*)kPass, sizeof(kPass) - 1},
        {&frame_header, sizeof(frame_header)},
        {(void*)kPass, sizeof(kPass) - 1},
    };
    (void)!writev(fd, pieces, 3);
  }
  _exit(0);
}
