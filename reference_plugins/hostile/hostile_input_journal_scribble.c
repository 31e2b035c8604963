/* hostile_input_journal_scribble: sectl_minimal, except that memset32 (which
 * few checks call) overwrites every writable shared mapping of its process,
 * where sectl keeps the call journal its parent reads after a crash, and
 * then crashes. The mappings are filled with random bytes, then stamped with
 * entries that look plausible but name function 255 with 200 arguments and
 * a call count far beyond the ring. sectl must not crash or read its own
 * memory into the report: the check is a crash blamed on the plugin, and a
 * check running beside it (-j 2) keeps its own, untouched journal.
 *
 * So that a sibling is surely running when the scribbling happens, the first
 * memset (fill.memset is the only check that calls it) takes a second and a
 * half, and memset32 waits a third of a second before it scribbles: run the
 * two checks with -j 2 and fill.memset is inside memset, its call in flight
 * in its journal, while fill.memset32 overwrites what shared memory it sees. */
#define _GNU_SOURCE

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#define SE_InitPlugin Minimal_SE_InitPlugin
#include "../minimal/minimal.c"
#undef SE_InitPlugin

/* sectl's journal entry as of this writing (lib/host/journal.h); the random
 * fill covers any other layout. */
typedef struct ForgedEntry {
  uint64_t sequence;
  uint64_t start_ns;
  uint64_t duration_ns;
  int32_t thread_id;
  uint8_t function;
  uint8_t state;
  uint8_t argument_count;
  int32_t status_code;
  int64_t result;
  uint64_t arguments[4];
} ForgedEntry;

enum { kForgedHeaderBytes = 24, kRingSlots = 256 };

/* Whether a /proc/self/maps line is a writable shared anonymous mapping:
 * shared memory from mmap(MAP_SHARED | MAP_ANONYMOUS), SysV or memfd. */
static int IsSharedScratch(const char* permissions, const char* name) {
  if (strcmp(permissions, "rw-s") != 0) return 0;
  return strstr(name, "/dev/zero") != NULL || strstr(name, "/SYSV") != NULL ||
         strstr(name, "memfd:") != NULL;
}

static void Scribble(unsigned char* begin, unsigned char* end) {
  for (unsigned char* at = begin; at < end;) {
    const ssize_t got = getrandom(at, (size_t)(end - at), 0);
    if (got <= 0) break;
    at += got;
  }
  const size_t bytes = (size_t)(end - begin);
  if (bytes >= kForgedHeaderBytes) {
    const uint64_t calls = (uint64_t)1 << 62;
    memcpy(begin, &calls, sizeof(calls));
  }
  for (size_t slot = 0; kForgedHeaderBytes + (slot + 1) * sizeof(ForgedEntry) <= bytes; ++slot) {
    ForgedEntry forged;
    memset(&forged, 0xff, sizeof(forged));
    forged.sequence = ((uint64_t)1 << 40) + (slot % kRingSlots) + 1;
    forged.function = 255;
    forged.state = 1; /* in flight: the entry a crash report quotes */
    forged.argument_count = 200;
    memcpy(begin + kForgedHeaderBytes + slot * sizeof(ForgedEntry), &forged, sizeof(forged));
  }
}

static void SleepMilliseconds(long milliseconds) {
  struct timespec left = {milliseconds / 1000, (milliseconds % 1000) * 1000000L};
  while (nanosleep(&left, &left) != 0) {
  }
}

/* Returns how many mappings it overwrote (printed, for the check's log). */
static int ScribbleOverSharedMemory(void) {
  FILE* maps = fopen("/proc/self/maps", "r");
  if (maps == NULL) return 0;
  int scribbled = 0;
  char line[512];
  while (fgets(line, sizeof(line), maps) != NULL) {
    unsigned long begin = 0;
    unsigned long end = 0;
    char permissions[8] = "";
    char name[256] = "";
    if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %255[^\n]", &begin, &end, permissions, name) < 3) {
      continue;
    }
    if (IsSharedScratch(permissions, name)) {
      Scribble((unsigned char*)begin, (unsigned char*)end);
      ++scribbled;
    }
  }
  fclose(maps);
  return scribbled;
}

static void ScribblingMemset32(const SP_Device* device, SP_Stream stream,
                               SP_DeviceMemoryBase* location, uint32_t pattern, uint64_t size,
                               TF_Status* status) {
  (void)device, (void)stream, (void)location, (void)pattern, (void)size, (void)status;
  SleepMilliseconds(300);
  printf("memset32: scribbled over %d shared mappings\n", ScribbleOverSharedMemory());
  fflush(stdout);
  raise(SIGSEGV);
}

static void SlowMemset(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* location,
                       uint8_t pattern, uint64_t size, TF_Status* status) {
  static int calls = 0; /* one check's process, one thread: no race */
  if (calls++ == 0) SleepMilliseconds(1500);
  Memset(device, stream, location, pattern, size, status);
}

static void (*minimal_create_stream_executor)(const SP_Platform*, SE_CreateStreamExecutorParams*,
                                              TF_Status*);

static void HostileCreateStreamExecutor(const SP_Platform* platform,
                                        SE_CreateStreamExecutorParams* params, TF_Status* status) {
  minimal_create_stream_executor(platform, params, status);
  if (TF_GetCode(status) != TF_OK) return;
  params->stream_executor->memset32 = ScribblingMemset32;
  params->stream_executor->memset = SlowMemset;
}

TF_CAPI_EXPORT void SE_InitPlugin(SE_PlatformRegistrationParams* params, TF_Status* status) {
  Minimal_SE_InitPlugin(params, status);
  if (TF_GetCode(status) != TF_OK) return;
  minimal_create_stream_executor = params->platform_fns->create_stream_executor;
  params->platform_fns->create_stream_executor = HostileCreateStreamExecutor;
}
