/* Faults in copies and fills (checks/memcpy_checks.cc, checks/fill_checks.cc).
 * Each breaks one form only, so that exactly that form's check catches it:
 * the checks read the device back through other forms. CORRUPT_EVERY_DTOH
 * and CORRUPT_EVERY_HTOD break both forms of one direction, for sectl bench's
 * verification (tests/bench_verification_test.cc). Unless copy.cmake
 * says otherwise the base is the minimal plugin, which does all its work at
 * enqueue time, so a fault may post-process what the base did. */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fault_hooks.h"

void PlantRegistrationFault(SE_PlatformRegistrationParams* params, TF_Status* status) {
  (void)params;
  (void)status;
}

/* The base's functions a fault wraps. */
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
typedef void (*SyncMemcpyDtoDFn)(const SP_Device*, SP_DeviceMemoryBase*, const SP_DeviceMemoryBase*,
                                 uint64_t, TF_Status*);
typedef void (*MemZeroFn)(const SP_Device*, SP_Stream, SP_DeviceMemoryBase*, uint64_t, TF_Status*);
typedef void (*MemsetFn)(const SP_Device*, SP_Stream, SP_DeviceMemoryBase*, uint8_t, uint64_t,
                         TF_Status*);
typedef void (*Memset32Fn)(const SP_Device*, SP_Stream, SP_DeviceMemoryBase*, uint32_t, uint64_t,
                           TF_Status*);
typedef void (*AllocateFn)(const SP_Device*, uint64_t, int64_t, SP_DeviceMemoryBase*);

#if defined(FAULT_CORRUPT_DTOH)
static MemcpyDtoHFn base_memcpy_dtoh;

/* Device-to-host copies flip the first byte. */
static void CorruptingMemcpyDtoH(const SP_Device* device, SP_Stream stream, void* host_dst,
                                 const SP_DeviceMemoryBase* device_src, uint64_t size,
                                 TF_Status* status) {
  base_memcpy_dtoh(device, stream, host_dst, device_src, size, status);
  if (size > 0) ((unsigned char*)host_dst)[0] ^= 0xFF;
}
#endif

#if defined(FAULT_CORRUPT_EVERY_DTOH)
/* Both device-to-host forms flip the first byte: no way is left to read the
 * device right (sectl bench: d2h fails, h2d and d2d cannot be verified). */
static MemcpyDtoHFn base_memcpy_dtoh;
static SyncMemcpyDtoHFn base_sync_memcpy_dtoh;

static void CorruptingMemcpyDtoH(const SP_Device* device, SP_Stream stream, void* host_dst,
                                 const SP_DeviceMemoryBase* device_src, uint64_t size,
                                 TF_Status* status) {
  base_memcpy_dtoh(device, stream, host_dst, device_src, size, status);
  if (size > 0) ((unsigned char*)host_dst)[0] ^= 0xFF;
}

static void CorruptingSyncMemcpyDtoH(const SP_Device* device, void* host_dst,
                                     const SP_DeviceMemoryBase* device_src, uint64_t size,
                                     TF_Status* status) {
  base_sync_memcpy_dtoh(device, host_dst, device_src, size, status);
  if (size > 0) ((unsigned char*)host_dst)[0] ^= 0xFF;
}
#endif

#if defined(FAULT_CORRUPT_EVERY_HTOD)
/* Both host-to-device forms flip the first byte they write: only the fills
 * put known bytes on the device (sectl bench: h2d fails, d2h and d2d are
 * verified with data memset wrote). The base does its work at enqueue time,
 * so the device's bytes are there to change. */
static MemcpyHtoDFn base_memcpy_htod;
static SyncMemcpyHtoDFn base_sync_memcpy_htod;

static void CorruptingMemcpyHtoD(const SP_Device* device, SP_Stream stream,
                                 SP_DeviceMemoryBase* device_dst, const void* host_src,
                                 uint64_t size, TF_Status* status) {
  base_memcpy_htod(device, stream, device_dst, host_src, size, status);
  if (size > 0 && TF_GetCode(status) == TF_OK) ((unsigned char*)device_dst->opaque)[0] ^= 0xFF;
}

static void CorruptingSyncMemcpyHtoD(const SP_Device* device, SP_DeviceMemoryBase* device_dst,
                                     const void* host_src, uint64_t size, TF_Status* status) {
  base_sync_memcpy_htod(device, device_dst, host_src, size, status);
  if (size > 0 && TF_GetCode(status) == TF_OK) ((unsigned char*)device_dst->opaque)[0] ^= 0xFF;
}
#endif

#if defined(FAULT_DTOH_READS_PAST_END)
static MemcpyDtoHFn base_memcpy_dtoh;

/* An off-by-one in the length: one byte more is read from the device and
 * written to the host, past the end of the host buffer. */
static void OverrunningMemcpyDtoH(const SP_Device* device, SP_Stream stream, void* host_dst,
                                  const SP_DeviceMemoryBase* device_src, uint64_t size,
                                  TF_Status* status) {
  base_memcpy_dtoh(device, stream, host_dst, device_src, size > 0 ? size + 1 : 0, status);
}
#endif

#if defined(FAULT_HTOD_DROPS_LAST_BYTE)
static MemcpyHtoDFn base_memcpy_htod;

/* The last byte of every host-to-device copy never arrives. */
static void ShortMemcpyHtoD(const SP_Device* device, SP_Stream stream,
                            SP_DeviceMemoryBase* device_dst, const void* host_src, uint64_t size,
                            TF_Status* status) {
  base_memcpy_htod(device, stream, device_dst, host_src, size > 0 ? size - 1 : 0, status);
}
#endif

#if defined(FAULT_ZERO_SIZE_CRASH)
static MemcpyHtoDFn base_memcpy_htod;

/* A 0-byte host-to-device copy looks at a null pointer (say, a staging
 * buffer that is only created for non-empty copies). */
static void ZeroSizeCrashingMemcpyHtoD(const SP_Device* device, SP_Stream stream,
                                       SP_DeviceMemoryBase* device_dst, const void* host_src,
                                       uint64_t size, TF_Status* status) {
  if (size == 0) {
    volatile const unsigned char* staging = NULL;
    (void)*staging;
  }
  base_memcpy_htod(device, stream, device_dst, host_src, size, status);
}
#endif

#if defined(FAULT_DTOD_IGNORES_OFFSET) || defined(FAULT_SYNC_HTOD_CRASH)
#define REMEMBERS_ALLOCATIONS 1
#endif

#if defined(REMEMBERS_ALLOCATIONS)
/* Device-to-device copies read from the start of the source's allocation,
 * not from its (interior) opaque: a plugin that keeps a handle per
 * allocation and forgets the offset of a tensor inside it. The allocations
 * are remembered as allocate hands them out; the newest one containing an
 * address wins, as freed memory is handed out again. */
enum { kRememberedAllocations = 1024 };
static struct {
  char* begin;
  uint64_t size;
} allocations[kRememberedAllocations];
static unsigned next_allocation;
static pthread_mutex_t allocations_mutex = PTHREAD_MUTEX_INITIALIZER;
static AllocateFn base_allocate;

static void RememberingAllocate(const SP_Device* device, uint64_t size, int64_t memory_space,
                                SP_DeviceMemoryBase* memory) {
  base_allocate(device, size, memory_space, memory);
  if (memory == NULL || memory->opaque == NULL) return;
  pthread_mutex_lock(&allocations_mutex);
  allocations[next_allocation % kRememberedAllocations].begin = memory->opaque;
  allocations[next_allocation % kRememberedAllocations].size = size;
  ++next_allocation;
  pthread_mutex_unlock(&allocations_mutex);
}

static void* AllocationStart(void* address) {
  void* start = address;
  pthread_mutex_lock(&allocations_mutex);
  for (unsigned age = 1; age <= kRememberedAllocations && age <= next_allocation; ++age) {
    unsigned slot = (next_allocation - age) % kRememberedAllocations;
    char* begin = allocations[slot].begin;
    if ((char*)address >= begin && (char*)address < begin + allocations[slot].size) {
      start = begin;
      break;
    }
  }
  pthread_mutex_unlock(&allocations_mutex);
  return start;
}
#endif

#if defined(FAULT_DTOD_IGNORES_OFFSET)
static MemcpyDtoDFn base_memcpy_dtod;

static void OffsetIgnoringMemcpyDtoD(const SP_Device* device, SP_Stream stream,
                                     SP_DeviceMemoryBase* device_dst,
                                     const SP_DeviceMemoryBase* device_src, uint64_t size,
                                     TF_Status* status) {
  SP_DeviceMemoryBase source = *device_src;
  source.opaque = AllocationStart(device_src->opaque);
  base_memcpy_dtod(device, stream, device_dst, &source, size, status);
}
#endif

#if defined(FAULT_SYNC_HTOD_TRUNCATES)
static SyncMemcpyHtoDFn base_sync_memcpy_htod;

/* Synchronous host-to-device copies move whole 8-byte words only: the tail
 * of a size that is not a multiple of 8 never arrives. */
static void TruncatingSyncMemcpyHtoD(const SP_Device* device, SP_DeviceMemoryBase* device_dst,
                                     const void* host_src, uint64_t size, TF_Status* status) {
  base_sync_memcpy_htod(device, device_dst, host_src, size & ~(uint64_t)7, status);
}
#endif

#if defined(FAULT_SYNC_DTOH_STALE)
static SyncMemcpyDtoHFn base_sync_memcpy_dtoh;

/* Synchronous device-to-host copies are "cached": a second read of the same
 * range returns what the first one did, however the device changed since. */
static struct {
  const void* source;
  uint64_t size;
  unsigned char* bytes;
} last_read;

static void StaleSyncMemcpyDtoH(const SP_Device* device, void* host_dst,
                                const SP_DeviceMemoryBase* device_src, uint64_t size,
                                TF_Status* status) {
  if (size > 0 && last_read.bytes != NULL && last_read.source == device_src->opaque &&
      last_read.size == size) {
    memcpy(host_dst, last_read.bytes, (size_t)size);
    TF_SetStatus(status, TF_OK, "");
    return;
  }
  base_sync_memcpy_dtoh(device, host_dst, device_src, size, status);
  if (TF_GetCode(status) != TF_OK || size == 0) return;
  unsigned char* bytes = realloc(last_read.bytes, (size_t)size);
  if (bytes == NULL) return;
  memcpy(bytes, host_dst, (size_t)size);
  last_read.source = device_src->opaque;
  last_read.size = size;
  last_read.bytes = bytes;
}
#endif

#if defined(FAULT_SYNC_DTOD_WRONG)
static SyncMemcpyDtoDFn base_sync_memcpy_dtod;

/* Synchronous device-to-device copies swap their arguments: the
 * destination's bytes overwrite the source. */
static void SwappedSyncMemcpyDtoD(const SP_Device* device, SP_DeviceMemoryBase* device_dst,
                                  const SP_DeviceMemoryBase* device_src, uint64_t size,
                                  TF_Status* status) {
  SP_DeviceMemoryBase source = *device_src;
  base_sync_memcpy_dtod(device, &source, device_dst, size, status);
}
#endif

#if defined(FAULT_MEM_ZERO_PARTIAL)
static MemZeroFn base_mem_zero;

/* mem_zero zeroes only the first half of its range. */
static void HalfMemZero(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* location,
                        uint64_t size, TF_Status* status) {
  base_mem_zero(device, stream, location, size / 2, status);
}
#endif

#if defined(FAULT_MEMSET_WRONG_PATTERN)
static MemsetFn base_memset;

/* memset written as a fill of 32-bit words without replicating the byte:
 * the pattern lands in every fourth byte and zeros in the rest. */
static void UnreplicatedMemset(const SP_Device* device, SP_Stream stream,
                               SP_DeviceMemoryBase* location, uint8_t pattern, uint64_t size,
                               TF_Status* status) {
  base_memset(device, stream, location, pattern, size, status);
  if (TF_GetCode(status) != TF_OK) return;
  unsigned char* bytes = location->opaque;
  for (uint64_t i = 0; i < size; ++i) {
    if (i % 4 != 0) bytes[i] = 0;
  }
}
#endif

#if defined(FAULT_MEMSET32_ELEMENT_COUNT)
static Memset32Fn base_memset32;

/* memset32 takes size as a count of 32-bit words, as a plugin that passes
 * it straight to a device fill of words does, and writes 4 × the bytes. */
static void WordCountingMemset32(const SP_Device* device, SP_Stream stream,
                                 SP_DeviceMemoryBase* location, uint32_t pattern, uint64_t size,
                                 TF_Status* status) {
  base_memset32(device, stream, location, pattern, size * 4, status);
}
#endif

#if defined(FAULT_SYNC_HTOD_CRASH)
/* Two defects at once, as found in the field: sync_memcpy_htod crashes on
 * any real copy (a null dereference), and memcpy_htod drops the last byte
 * when its destination lies inside an allocation (a tensor in a BFC region)
 * rather than at its start. Every check that seeds buffers with
 * sync_memcpy_htod must fall back to memcpy_htod (at allocation starts,
 * where it works), so that memcpy.htod still finds the interior defect. */
static MemcpyHtoDFn base_memcpy_htod;
static SyncMemcpyHtoDFn base_sync_memcpy_htod;

static void CrashingSyncMemcpyHtoD(const SP_Device* device, SP_DeviceMemoryBase* device_dst,
                                   const void* host_src, uint64_t size, TF_Status* status) {
  if (size > 0) {
    volatile int* nowhere = NULL;
    *nowhere = 1;
  }
  base_sync_memcpy_htod(device, device_dst, host_src, size, status);
}

static void InteriorShortMemcpyHtoD(const SP_Device* device, SP_Stream stream,
                                    SP_DeviceMemoryBase* device_dst, const void* host_src,
                                    uint64_t size, TF_Status* status) {
  const int interior = AllocationStart(device_dst->opaque) != device_dst->opaque;
  base_memcpy_htod(device, stream, device_dst, host_src, interior && size > 0 ? size - 1 : size,
                   status);
}
#endif

#if defined(FAULT_MEM_ZERO_NOOP) || defined(FAULT_MEMSET_NOOP)
/* As found in the field: fills that return OK and do nothing, on a plugin
 * whose host_callback returns false without running the callback (so that
 * checks which watch streams through callbacks cannot see the fills). */
static TF_Bool RefusingHostCallback(const SP_Device* device, SP_Stream stream,
                                    SE_StatusCallbackFn callback, void* argument) {
  (void)device;
  (void)stream;
  (void)callback;
  (void)argument;
  return 0;
}
#endif

#if defined(FAULT_MEM_ZERO_NOOP)
static void IdleMemZero(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* location,
                        uint64_t size, TF_Status* status) {
  (void)device;
  (void)stream;
  (void)location;
  (void)size;
  TF_SetStatus(status, TF_OK, "");
}
#endif

#if defined(FAULT_MEMSET_NOOP)
static void IdleMemset(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* location,
                       uint8_t pattern, uint64_t size, TF_Status* status) {
  (void)device;
  (void)stream;
  (void)location;
  (void)pattern;
  (void)size;
  TF_SetStatus(status, TF_OK, "");
}
#endif

void PlantStreamExecutorFault(SP_StreamExecutor* stream_executor) {
#if defined(FAULT_CORRUPT_DTOH)
  base_memcpy_dtoh = stream_executor->memcpy_dtoh;
  stream_executor->memcpy_dtoh = CorruptingMemcpyDtoH;
#elif defined(FAULT_CORRUPT_EVERY_DTOH)
  base_memcpy_dtoh = stream_executor->memcpy_dtoh;
  stream_executor->memcpy_dtoh = CorruptingMemcpyDtoH;
  base_sync_memcpy_dtoh = stream_executor->sync_memcpy_dtoh;
  stream_executor->sync_memcpy_dtoh = CorruptingSyncMemcpyDtoH;
#elif defined(FAULT_CORRUPT_EVERY_HTOD)
  base_memcpy_htod = stream_executor->memcpy_htod;
  stream_executor->memcpy_htod = CorruptingMemcpyHtoD;
  base_sync_memcpy_htod = stream_executor->sync_memcpy_htod;
  stream_executor->sync_memcpy_htod = CorruptingSyncMemcpyHtoD;
#elif defined(FAULT_DTOH_READS_PAST_END)
  base_memcpy_dtoh = stream_executor->memcpy_dtoh;
  stream_executor->memcpy_dtoh = OverrunningMemcpyDtoH;
#elif defined(FAULT_HTOD_DROPS_LAST_BYTE)
  base_memcpy_htod = stream_executor->memcpy_htod;
  stream_executor->memcpy_htod = ShortMemcpyHtoD;
#elif defined(FAULT_ZERO_SIZE_CRASH)
  base_memcpy_htod = stream_executor->memcpy_htod;
  stream_executor->memcpy_htod = ZeroSizeCrashingMemcpyHtoD;
#elif defined(FAULT_DTOD_IGNORES_OFFSET)
  base_allocate = stream_executor->allocate;
  stream_executor->allocate = RememberingAllocate;
  base_memcpy_dtod = stream_executor->memcpy_dtod;
  stream_executor->memcpy_dtod = OffsetIgnoringMemcpyDtoD;
#elif defined(FAULT_SYNC_HTOD_TRUNCATES)
  base_sync_memcpy_htod = stream_executor->sync_memcpy_htod;
  stream_executor->sync_memcpy_htod = TruncatingSyncMemcpyHtoD;
#elif defined(FAULT_SYNC_DTOH_STALE)
  base_sync_memcpy_dtoh = stream_executor->sync_memcpy_dtoh;
  stream_executor->sync_memcpy_dtoh = StaleSyncMemcpyDtoH;
#elif defined(FAULT_SYNC_DTOD_WRONG)
  base_sync_memcpy_dtod = stream_executor->sync_memcpy_dtod;
  stream_executor->sync_memcpy_dtod = SwappedSyncMemcpyDtoD;
#elif defined(FAULT_MEM_ZERO_PARTIAL)
  base_mem_zero = stream_executor->mem_zero;
  stream_executor->mem_zero = HalfMemZero;
#elif defined(FAULT_MEMSET_WRONG_PATTERN)
  base_memset = stream_executor->memset;
  stream_executor->memset = UnreplicatedMemset;
#elif defined(FAULT_MEMSET32_ELEMENT_COUNT)
  base_memset32 = stream_executor->memset32;
  stream_executor->memset32 = WordCountingMemset32;
#elif defined(FAULT_SYNC_HTOD_CRASH)
  base_allocate = stream_executor->allocate;
  stream_executor->allocate = RememberingAllocate;
  base_sync_memcpy_htod = stream_executor->sync_memcpy_htod;
  stream_executor->sync_memcpy_htod = CrashingSyncMemcpyHtoD;
  base_memcpy_htod = stream_executor->memcpy_htod;
  stream_executor->memcpy_htod = InteriorShortMemcpyHtoD;
#elif defined(FAULT_MEM_ZERO_NOOP)
  stream_executor->mem_zero = IdleMemZero;
  stream_executor->host_callback = RefusingHostCallback;
#elif defined(FAULT_MEMSET_NOOP)
  stream_executor->memset = IdleMemset;
  stream_executor->host_callback = RefusingHostCallback;
#endif
  (void)stream_executor;
}
