/* Faults in memory (checks/memory_checks.cc): allocation, deallocation, host
 * and unified memory, allocator statistics and device_memory_usage. Each
 * wraps the base's functions; memory.cmake names the base (the minimal
 * plugin unless the fault needs unified memory, which only cpu has). */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fault_hooks.h"

/* The base's functions a fault wraps. */
static void (*base_allocate)(const SP_Device*, uint64_t, int64_t, SP_DeviceMemoryBase*);
static void (*base_deallocate)(const SP_Device*, SP_DeviceMemoryBase*);
static void* (*base_host_memory_allocate)(const SP_Device*, uint64_t);
static void (*base_host_memory_deallocate)(const SP_Device*, void*);
static void* (*base_unified_memory_allocate)(const SP_Device*, uint64_t);
static void (*base_unified_memory_deallocate)(const SP_Device*, void*);
static TF_Bool (*base_get_allocator_stats)(const SP_Device*, SP_AllocatorStats*);
static TF_Bool (*base_device_memory_usage)(const SP_Device*, int64_t*, int64_t*);

void PlantRegistrationFault(SE_PlatformRegistrationParams* params, TF_Status* status) {
  (void)params;
  (void)status;
}

/* How far a misaligning fault shifts a block: what plain malloc guarantees
 * (16 bytes), not the 64 TensorFlow needs. */
enum { kMallocAlignment = 16, kSlack = 64 };

#if defined(FAULT_MISALIGNED_ALLOCATION) || defined(FAULT_UNALIGNED_HOST_MEMORY) || \
    defined(FAULT_UNALIGNED_UNIFIED_MEMORY)
static void* Misaligned(void* block) {
  return block != NULL ? (char*)block + kMallocAlignment : NULL;
}

static void* Realigned(void* misaligned) {
  return misaligned != NULL ? (char*)misaligned - kMallocAlignment : NULL;
}
#endif

#if defined(FAULT_MISALIGNED_ALLOCATION)
/* Device memory 16-byte aligned, as if it came from malloc. */
static void MisalignedAllocate(const SP_Device* device, uint64_t size, int64_t memory_space,
                               SP_DeviceMemoryBase* mem) {
  if (size == 0) {
    base_allocate(device, size, memory_space, mem);
    return;
  }
  base_allocate(device, size + kSlack, memory_space, mem);
  if (mem->opaque == NULL) return;
  mem->opaque = Misaligned(mem->opaque);
  mem->size = size;
}

static void MisalignedDeallocate(const SP_Device* device, SP_DeviceMemoryBase* memory) {
  if (memory == NULL || memory->opaque == NULL) {
    base_deallocate(device, memory);
    return;
  }
  SP_DeviceMemoryBase block = *memory;
  block.opaque = Realigned(memory->opaque);
  base_deallocate(device, &block);
}
#endif

#if defined(FAULT_UNALIGNED_HOST_MEMORY)
static void* MisalignedHostMemoryAllocate(const SP_Device* device, uint64_t size) {
  return Misaligned(base_host_memory_allocate(device, size + kSlack));
}

static void MisalignedHostMemoryDeallocate(const SP_Device* device, void* mem) {
  base_host_memory_deallocate(device, Realigned(mem));
}
#endif

#if defined(FAULT_UNALIGNED_UNIFIED_MEMORY)
static void* MisalignedUnifiedMemoryAllocate(const SP_Device* device, uint64_t bytes) {
  return Misaligned(base_unified_memory_allocate(device, bytes + kSlack));
}

static void MisalignedUnifiedMemoryDeallocate(const SP_Device* device, void* location) {
  base_unified_memory_deallocate(device, Realigned(location));
}
#endif

#if defined(FAULT_SIZE_NOT_REPORTED)
/* SP_DeviceMemoryBase.size is left at 0. */
static void AllocateWithoutSize(const SP_Device* device, uint64_t size, int64_t memory_space,
                                SP_DeviceMemoryBase* mem) {
  base_allocate(device, size, memory_space, mem);
  mem->size = 0;
}
#endif

#if defined(FAULT_ALLOCATE_ZERO_CRASH)
/* Writes its bookkeeping header in front of a block it never got for 0 bytes. */
static void AllocateCrashingOnZero(const SP_Device* device, uint64_t size, int64_t memory_space,
                                   SP_DeviceMemoryBase* mem) {
  if (size == 0) {
    volatile uint64_t* volatile header = NULL;
    *header = size; /* SIGSEGV */ /* NOLINT(clang-analyzer-core.NullDereference) */
  }
  base_allocate(device, size, memory_space, mem);
}
#endif

#if defined(FAULT_DEALLOCATE_NEEDS_SIZE)
/* Frees only when told the size, which TensorFlow never passes. */
static void DeallocateOnlyWithSize(const SP_Device* device, SP_DeviceMemoryBase* memory) {
  if (memory == NULL || memory->size == 0) return;
  base_deallocate(device, memory);
}
#endif

#if defined(FAULT_OVERLAPPING_ALLOCATIONS)
/* Small blocks come from a bump allocator that takes no lock: it reads the
 * next free offset and writes it back advanced a moment later. Two threads
 * inside that moment get the same block. To make that certain rather than
 * likely, a thread other than the first one ever to allocate waits there
 * (up to 50 ms) until another thread is inside too, for the first few such
 * meetings. Single-threaded use never waits and is correct. */
enum { kSmallBlockLimit = 256, kArenaBytes = 16 << 20, kBlockAlignment = 64, kMeetings = 8 };
static _Alignas(kBlockAlignment) unsigned char arena[kArenaBytes];
static atomic_size_t next_free_offset;
static atomic_int threads_inside;
static atomic_int meetings;
static _Atomic(pthread_t) first_allocating_thread;
static atomic_flag first_thread_known = ATOMIC_FLAG_INIT;

static int IsFirstAllocatingThread(void) {
  if (!atomic_flag_test_and_set(&first_thread_known)) {
    atomic_store(&first_allocating_thread, pthread_self());
  }
  return pthread_equal(atomic_load(&first_allocating_thread), pthread_self());
}

static double SecondsNow(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

static void WaitForAnotherThreadInside(void) {
  if (atomic_load(&meetings) >= kMeetings) return;
  const double deadline = SecondsNow() + 0.05;
  const struct timespec pause = {0, 20000};
  while (atomic_load(&threads_inside) < 2 && SecondsNow() < deadline) nanosleep(&pause, NULL);
  if (atomic_load(&threads_inside) >= 2) atomic_fetch_add(&meetings, 1);
}

static void* TakeFromArena(uint64_t size) {
  const int waits = !IsFirstAllocatingThread();
  const size_t offset = atomic_load(&next_free_offset); /* read ... */
  const size_t rounded = ((size_t)size + kBlockAlignment - 1) & ~(size_t)(kBlockAlignment - 1);
  if (offset + rounded > kArenaBytes) return NULL;
  atomic_fetch_add(&threads_inside, 1);
  if (waits) WaitForAnotherThreadInside();
  atomic_store(&next_free_offset, offset + rounded); /* ... and written back: the race */
  atomic_fetch_sub(&threads_inside, 1);
  return arena + offset;
}

static int InArena(const void* address) {
  return (const unsigned char*)address >= arena &&
         (const unsigned char*)address < arena + kArenaBytes;
}

static void RacyAllocate(const SP_Device* device, uint64_t size, int64_t memory_space,
                         SP_DeviceMemoryBase* mem) {
  void* block = size > 0 && size <= kSmallBlockLimit ? TakeFromArena(size) : NULL;
  if (block == NULL) {
    base_allocate(device, size, memory_space, mem);
    return;
  }
  mem->opaque = block;
  mem->size = size;
  mem->payload = 0;
}

static void RacyDeallocate(const SP_Device* device, SP_DeviceMemoryBase* memory) {
  if (memory != NULL && InArena(memory->opaque)) return; /* bump allocators never free */
  base_deallocate(device, memory);
}
#endif

#if defined(FAULT_ALLOCATE_ONE_BLOCK)
/* Every block of up to 1 MiB is the same static 1 MiB block: an allocator
 * that forgets the block is in use. Two live allocations always share their
 * bytes, even in one thread, so a copy between them cannot be judged. */
enum { kOneBlockBytes = 1 << 20 };
static _Alignas(64) unsigned char one_block[kOneBlockBytes];

static void AllocateTheOneBlock(const SP_Device* device, uint64_t size, int64_t memory_space,
                                SP_DeviceMemoryBase* mem) {
  if (size == 0 || size > kOneBlockBytes) {
    base_allocate(device, size, memory_space, mem);
    return;
  }
  mem->opaque = one_block;
  mem->size = size;
  mem->payload = 0;
}

static void DeallocateTheOneBlock(const SP_Device* device, SP_DeviceMemoryBase* memory) {
  if (memory != NULL && memory->opaque == one_block) return; /* never given back */
  base_deallocate(device, memory);
}
#endif

#if defined(FAULT_ALLOCATE_OVERRUNS_SMALL_BLOCK)
/* Keeps a one-byte tag per allocation on the heap, and stores the tag as a
 * 32-bit integer: 3 bytes past the end of its 1-byte block, on every call.
 * With glibc's allocator that lands in padding and goes unnoticed. */
static _Thread_local unsigned char* last_tag; /* kept until the thread's next call */

static void AllocateOverrunningItsTag(const SP_Device* device, uint64_t size, int64_t memory_space,
                                      SP_DeviceMemoryBase* mem) {
  const uint32_t memory_space_tag = (uint32_t)memory_space + 0x5A5A5A5Au;
  free(last_tag);
  last_tag = malloc(1);
  if (last_tag != NULL) {
    /* Through a volatile, so that the compiler cannot see the overrun. */
    unsigned char* volatile tag = last_tag;
    memcpy(tag, &memory_space_tag, sizeof memory_space_tag); /* 4 bytes into 1 */
  }
  base_allocate(device, size, memory_space, mem);
}
#endif

#if defined(FAULT_STATS_CRASH)
/* get_allocator_stats reads through a table it never set up: every call
 * crashes. TensorFlow's allocators call it in normal use, so the check that
 * tests it, though only recommended, fails the run (the crash is required). */
static SP_AllocatorStats* volatile never_set_up;

static TF_Bool StatsFromNowhere(const SP_Device* device, SP_AllocatorStats* stats) {
  (void)device;
  stats->bytes_in_use = never_set_up->bytes_in_use;
  return 1;
}
#endif

#if defined(FAULT_ALLOCATE_ZERO_OVERRUNS_SHADOW)
/* Keeps a host shadow of every allocation in whole 32-bit words, and stamps
 * a generation tag in its first word: a 0-byte allocation gets a shadow of
 * 0 words, malloc(0), and the tag's 4 bytes go into it. glibc's smallest
 * block has room for them, so the write goes unnoticed without the guard. */
static _Thread_local unsigned char* last_shadow; /* kept until the thread's next call */

static void AllocateWithShadow(const SP_Device* device, uint64_t size, int64_t memory_space,
                               SP_DeviceMemoryBase* mem) {
  static const uint32_t kGenerationTag = 0x5EC71A65u;
  free(last_shadow);
  last_shadow = size <= 4096 ? malloc((size + 3) / 4 * 4) : NULL;
  if (last_shadow != NULL) {
    /* Through a volatile, so that the compiler cannot see the overrun. */
    unsigned char* volatile shadow = last_shadow;
    memcpy(shadow, &kGenerationTag, sizeof kGenerationTag); /* 4 bytes, whatever the size */
  }
  base_allocate(device, size, memory_space, mem);
}
#endif

#if defined(FAULT_STATS_NOT_RELEASED)
/* bytes_in_use only ever grows: deallocate forgets to subtract. */
static pthread_mutex_t stats_mutex = PTHREAD_MUTEX_INITIALIZER;
static int64_t highest_in_use;

static TF_Bool StatsNeverReleased(const SP_Device* device, SP_AllocatorStats* stats) {
  if (!base_get_allocator_stats(device, stats)) return 0;
  pthread_mutex_lock(&stats_mutex);
  if (stats->bytes_in_use > highest_in_use) highest_in_use = stats->bytes_in_use;
  stats->bytes_in_use = highest_in_use;
  pthread_mutex_unlock(&stats_mutex);
  return 1;
}
#endif

#if defined(FAULT_LIMIT_NOT_ENFORCED)
/* Reports a 64 MiB limit that allocate never checks. */
static TF_Bool StatsWithUnenforcedLimit(const SP_Device* device, SP_AllocatorStats* stats) {
  if (!base_get_allocator_stats(device, stats)) return 0;
  stats->has_bytes_limit = 1;
  stats->bytes_limit = (int64_t)64 << 20;
  return 1;
}
#endif

#if defined(FAULT_USAGE_RETURNS_FALSE)
static TF_Bool UsageUnavailable(const SP_Device* device, int64_t* free_bytes,
                                int64_t* total_bytes) {
  (void)device;
  (void)free_bytes;
  (void)total_bytes;
  return 0;
}
#endif

#if defined(FAULT_FREE_NEVER_DROPS)
/* Reports all memory as free, whatever is allocated. */
static TF_Bool UsageAlwaysAllFree(const SP_Device* device, int64_t* free_bytes,
                                  int64_t* total_bytes) {
  if (!base_device_memory_usage(device, free_bytes, total_bytes)) return 0;
  *free_bytes = *total_bytes;
  return 1;
}
#endif

void PlantStreamExecutorFault(SP_StreamExecutor* se) {
  base_allocate = se->allocate;
  base_deallocate = se->deallocate;
  base_host_memory_allocate = se->host_memory_allocate;
  base_host_memory_deallocate = se->host_memory_deallocate;
  base_unified_memory_allocate = se->unified_memory_allocate;
  base_unified_memory_deallocate = se->unified_memory_deallocate;
  base_get_allocator_stats = se->get_allocator_stats;
  base_device_memory_usage = se->device_memory_usage;
#if defined(FAULT_MISALIGNED_ALLOCATION)
  se->allocate = MisalignedAllocate;
  se->deallocate = MisalignedDeallocate;
#elif defined(FAULT_UNALIGNED_HOST_MEMORY)
  se->host_memory_allocate = MisalignedHostMemoryAllocate;
  se->host_memory_deallocate = MisalignedHostMemoryDeallocate;
#elif defined(FAULT_UNALIGNED_UNIFIED_MEMORY)
  se->unified_memory_allocate = MisalignedUnifiedMemoryAllocate;
  se->unified_memory_deallocate = MisalignedUnifiedMemoryDeallocate;
#elif defined(FAULT_SIZE_NOT_REPORTED)
  se->allocate = AllocateWithoutSize;
#elif defined(FAULT_ALLOCATE_ZERO_CRASH)
  se->allocate = AllocateCrashingOnZero;
#elif defined(FAULT_DEALLOCATE_NEEDS_SIZE)
  se->deallocate = DeallocateOnlyWithSize;
#elif defined(FAULT_OVERLAPPING_ALLOCATIONS)
  se->allocate = RacyAllocate;
  se->deallocate = RacyDeallocate;
#elif defined(FAULT_ALLOCATE_ONE_BLOCK)
  se->allocate = AllocateTheOneBlock;
  se->deallocate = DeallocateTheOneBlock;
#elif defined(FAULT_ALLOCATE_OVERRUNS_SMALL_BLOCK)
  se->allocate = AllocateOverrunningItsTag;
#elif defined(FAULT_STATS_CRASH)
  se->get_allocator_stats = StatsFromNowhere;
#elif defined(FAULT_ALLOCATE_ZERO_OVERRUNS_SHADOW)
  se->allocate = AllocateWithShadow;
#elif defined(FAULT_STATS_NOT_RELEASED)
  se->get_allocator_stats = StatsNeverReleased;
#elif defined(FAULT_LIMIT_NOT_ENFORCED)
  se->get_allocator_stats = StatsWithUnenforcedLimit;
#elif defined(FAULT_USAGE_RETURNS_FALSE)
  se->device_memory_usage = UsageUnavailable;
#elif defined(FAULT_FREE_NEVER_DROPS)
  se->device_memory_usage = UsageAlwaysAllFree;
#endif
}
