/* Faults in performance (reference_plugins/faulty/bench.cmake).
 *
 * Slower copies: the copies
 * still move the right bytes, only slower, as after a regression in a
 * vendor's copy engine. `sectl bench memcpy --compare` must catch it. The
 * base is the minimal plugin, which copies at enqueue time, so the time a
 * wrapper adds is inside the interval bench measures. A copy of 4 to 16 KiB
 * takes 60 to 100 ns there, and the wrapper's own clock reads make it about
 * 2x slower rather than 1.25x; from 32 KiB on the slowdown is 25%.
 *
 * FAULT_COPIES_SLOWER_IN_FIRST_PROCESS is no fault but a disturbed run: the
 * same slowdown, only in the first process that copies with this file (it
 * leaves "<plugin>.slowed" beside itself). The gate re-measures what looks
 * regressed in fresh processes, which find the file and run at full speed:
 * it must not fail.
 *
 * Completion that cannot be believed, each on the asynchronous cpu base,
 * whose copies run on a worker thread after the enqueueing call returned:
 * sectl must say "not measurable", never print a bandwidth.
 * - FAULT_CALLBACK_ACCEPTED_NEVER_RUN: host_callback returns true and drops
 *   the callback, as TensorFlow's own test plugin does. bench's gate (a
 *   host callback holding the stream) then holds nothing back.
 * - FAULT_BLOCK_RETURNS_AT_ONCE: block_host_until_done reports the stream
 *   done without waiting for it: a completion signalled before the copies
 *   can have moved a byte.
 * - FAULT_EVENT_NEVER_COMPLETES: get_event_status answers PENDING for ever
 *   (block_host_for_event still waits correctly): an event recorded on an
 *   idle stream never completes.
 *
 * FAULT_STALLS_IN_EVERY_STEP, on the minimal base: create_stream and
 * destroy_stream each stall for 1.2 s before they do their work. bench
 * creates and destroys a stream for every copy path it measures at every
 * size, so each step stalls twice, each time for less than --timeout 2: no
 * stall is long enough to be killed as a hang (a call comes back at least
 * every 1.2 s), and every step takes longer than --timeout. Without a
 * deadline for the whole run the bench waited for all of them (68 steps of
 * the default sweep: up to 138 s at --timeout 2, an hour at the default
 * 60 s); it must stop after two and say why (lib/bench/step_deadline.h,
 * tests/bench_cli_test.cc). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "fault_hooks.h"

void PlantRegistrationFault(SE_PlatformRegistrationParams* params, TF_Status* status) {
  (void)params;
  (void)status;
}

#if defined(FAULT_COPIES_25_PERCENT_SLOWER) || defined(FAULT_COPIES_SLOWER_IN_FIRST_PROCESS)
typedef void (*MemcpyDtoHFn)(const SP_Device*, SP_Stream, void*, const SP_DeviceMemoryBase*,
                             uint64_t, TF_Status*);
typedef void (*MemcpyHtoDFn)(const SP_Device*, SP_Stream, SP_DeviceMemoryBase*, const void*,
                             uint64_t, TF_Status*);
typedef void (*MemcpyDtoDFn)(const SP_Device*, SP_Stream, SP_DeviceMemoryBase*,
                             const SP_DeviceMemoryBase*, uint64_t, TF_Status*);
typedef void (*SyncMemcpyDtoHFn)(const SP_Device*, void*, const SP_DeviceMemoryBase*, uint64_t,
                                 TF_Status*);
typedef void (*SyncMemcpyHtoDFn)(const SP_Device*, SP_DeviceMemoryBase*, const void*, uint64_t,
                                 TF_Status*);

static MemcpyDtoHFn base_memcpy_dtoh;
static MemcpyHtoDFn base_memcpy_htod;
static MemcpyDtoDFn base_memcpy_dtod;
static SyncMemcpyDtoHFn base_sync_memcpy_dtoh;
static SyncMemcpyHtoDFn base_sync_memcpy_htod;

static double Seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

#if defined(FAULT_COPIES_SLOWER_IN_FIRST_PROCESS)
/* Whether this process is the first to copy with this plugin file: decided
 * at its first copy, by creating "<plugin>.slowed" if it is not there. */
static int SlowInThisProcess(void) {
  static int decided = 0;
  static int slow = 0;
  if (!decided) {
    Dl_info self;
    char marker[4096];
    if (dladdr((void*)&SlowInThisProcess, &self) != 0 && self.dli_fname != NULL &&
        snprintf(marker, sizeof marker, "%s.slowed", self.dli_fname) < (int)sizeof marker) {
      FILE* created = fopen(marker, "wx");
      slow = created != NULL;
      if (created != NULL) fclose(created);
    }
    decided = 1;
  }
  return slow;
}
#else
static int SlowInThisProcess(void) { return 1; }
#endif

/* When a copy that is to be slowed begins; -1 for one that is not, which
 * then reads no clock (at 4 KiB the clock reads alone would slow it). */
static double Started(void) { return SlowInThisProcess() ? Seconds() : -1; }

/* Spins (a busy copy engine, not a sleeping one) until the copy that began
 * at `started` and has just ended has taken 1.25 times as long. */
static void SpinToAQuarterLonger(double started) {
  if (started < 0) return;
  const double until = started + 1.25 * (Seconds() - started);
  while (Seconds() < until) {
  }
}

static void SlowMemcpyDtoH(const SP_Device* device, SP_Stream stream, void* host_dst,
                           const SP_DeviceMemoryBase* device_src, uint64_t size,
                           TF_Status* status) {
  const double started = Started();
  base_memcpy_dtoh(device, stream, host_dst, device_src, size, status);
  SpinToAQuarterLonger(started);
}

static void SlowMemcpyHtoD(const SP_Device* device, SP_Stream stream,
                           SP_DeviceMemoryBase* device_dst, const void* host_src, uint64_t size,
                           TF_Status* status) {
  const double started = Started();
  base_memcpy_htod(device, stream, device_dst, host_src, size, status);
  SpinToAQuarterLonger(started);
}

static void SlowMemcpyDtoD(const SP_Device* device, SP_Stream stream,
                           SP_DeviceMemoryBase* device_dst, const SP_DeviceMemoryBase* device_src,
                           uint64_t size, TF_Status* status) {
  const double started = Started();
  base_memcpy_dtod(device, stream, device_dst, device_src, size, status);
  SpinToAQuarterLonger(started);
}

static void SlowSyncMemcpyDtoH(const SP_Device* device, void* host_dst,
                               const SP_DeviceMemoryBase* device_src, uint64_t size,
                               TF_Status* status) {
  const double started = Started();
  base_sync_memcpy_dtoh(device, host_dst, device_src, size, status);
  SpinToAQuarterLonger(started);
}

static void SlowSyncMemcpyHtoD(const SP_Device* device, SP_DeviceMemoryBase* device_dst,
                               const void* host_src, uint64_t size, TF_Status* status) {
  const double started = Started();
  base_sync_memcpy_htod(device, device_dst, host_src, size, status);
  SpinToAQuarterLonger(started);
}
#endif

#if defined(FAULT_CALLBACK_ACCEPTED_NEVER_RUN)
typedef TF_Bool (*HostCallbackFn)(const SP_Device*, SP_Stream, SE_StatusCallbackFn, void*);

/* Where the host's SP_StreamExecutor keeps host_callback: a host older than
 * TensorFlow 2.7 has a 264-byte struct with host_callback where mem_zero is. */
static HostCallbackFn* HostCallbackSlot(SP_StreamExecutor* stream_executor) {
  enum { kPre27Size = 264, kPre27HostCallbackOffset = 256 };
  if (stream_executor->struct_size != kPre27Size) return &stream_executor->host_callback;
  return (HostCallbackFn*)((unsigned char*)stream_executor + kPre27HostCallbackOffset);
}

static TF_Bool DroppingHostCallback(const SP_Device* device, SP_Stream stream,
                                    SE_StatusCallbackFn callback, void* argument) {
  (void)device;
  (void)stream;
  (void)callback;
  (void)argument;
  return 1;
}
#endif

#if defined(FAULT_BLOCK_RETURNS_AT_ONCE)
static void BlockHostUntilDoneAtOnce(const SP_Device* device, SP_Stream stream, TF_Status* status) {
  (void)device;
  (void)stream;
  TF_SetStatus(status, TF_OK, "");
}
#endif

#if defined(FAULT_EVENT_NEVER_COMPLETES)
static SE_EventStatus AlwaysPending(const SP_Device* device, SP_Event event) {
  (void)device;
  (void)event;
  return SE_EVENT_PENDING;
}
#endif

#if defined(FAULT_STALLS_IN_EVERY_STEP)
static void (*base_create_stream)(const SP_Device*, SP_Stream*, TF_Status*);
static void (*base_destroy_stream)(const SP_Device*, SP_Stream);

static void Stall(void) {
  struct timespec left = {.tv_sec = 1, .tv_nsec = 200000000};
  while (nanosleep(&left, &left) != 0) {
  }
}

static void StallingCreateStream(const SP_Device* device, SP_Stream* stream, TF_Status* status) {
  Stall();
  base_create_stream(device, stream, status);
}

static void StallingDestroyStream(const SP_Device* device, SP_Stream stream) {
  Stall();
  base_destroy_stream(device, stream);
}
#endif

void PlantStreamExecutorFault(SP_StreamExecutor* stream_executor) {
#if defined(FAULT_CALLBACK_ACCEPTED_NEVER_RUN)
  *HostCallbackSlot(stream_executor) = DroppingHostCallback;
#elif defined(FAULT_BLOCK_RETURNS_AT_ONCE)
  stream_executor->block_host_until_done = BlockHostUntilDoneAtOnce;
#elif defined(FAULT_EVENT_NEVER_COMPLETES)
  stream_executor->get_event_status = AlwaysPending;
#elif defined(FAULT_STALLS_IN_EVERY_STEP)
  base_create_stream = stream_executor->create_stream;
  stream_executor->create_stream = StallingCreateStream;
  base_destroy_stream = stream_executor->destroy_stream;
  stream_executor->destroy_stream = StallingDestroyStream;
#elif defined(FAULT_COPIES_25_PERCENT_SLOWER) || defined(FAULT_COPIES_SLOWER_IN_FIRST_PROCESS)
  base_memcpy_dtoh = stream_executor->memcpy_dtoh;
  stream_executor->memcpy_dtoh = SlowMemcpyDtoH;
  base_memcpy_htod = stream_executor->memcpy_htod;
  stream_executor->memcpy_htod = SlowMemcpyHtoD;
  base_memcpy_dtod = stream_executor->memcpy_dtod;
  stream_executor->memcpy_dtod = SlowMemcpyDtoD;
  base_sync_memcpy_dtoh = stream_executor->sync_memcpy_dtoh;
  stream_executor->sync_memcpy_dtoh = SlowSyncMemcpyDtoH;
  base_sync_memcpy_htod = stream_executor->sync_memcpy_htod;
  stream_executor->sync_memcpy_htod = SlowSyncMemcpyHtoD;
#else
  (void)stream_executor;
#endif
}
