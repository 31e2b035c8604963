/* sectl_minimal: the smallest plugin TensorFlow accepts.
 *
 * It sets only the members TensorFlow validates or calls unconditionally, and
 * leaves every optional one (timers, unified memory, sync_memcpy_dtod,
 * block_host_until_done, the SP_DeviceFns getters) unset. Every operation
 * runs synchronously at enqueue time, a legal style that DirectML and
 * Huawei's plugins use in the field: by the time a call returns its work is
 * done, so events are complete at once and every wait is a no-op.
 *
 * "Device memory" is host memory. The plugin is written in plain C11 to prove
 * that the ABI headers compile as C.
 *
 * struct_size discipline: the host pre-fills struct_size in every struct it
 * passes, and an older host's struct is smaller than ours. The plugin writes
 * each member only if it ends within the host's size, and writes back the
 * smaller of the two sizes, so it never writes a byte the host did not give
 * it. */

#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

/* ---- struct_size discipline ------------------------------------------- */

/* The size of the host's copy of a struct. A host that left struct_size at 0
 * did not pre-fill it; such a host is taken to be built against our header. */
static size_t HostSize(size_t prefilled, size_t ours) { return prefilled != 0 ? prefilled : ours; }

static size_t Smaller(size_t a, size_t b) { return a < b ? a : b; }

/* Whether MEMBER of TYPE lies wholly inside a host struct of HOST_SIZE bytes. */
#define FITS(TYPE, MEMBER, HOST_SIZE) (TF_OFFSET_OF_END(TYPE, MEMBER) <= (HOST_SIZE))

/* Assigns OBJECT->MEMBER only where the host's struct has room for it. */
#define SET_IF_FITS(TYPE, OBJECT, HOST_SIZE, MEMBER, VALUE)        \
  do {                                                             \
    if (FITS(TYPE, MEMBER, HOST_SIZE)) (OBJECT)->MEMBER = (VALUE); \
  } while (0)

/* ---- The device ------------------------------------------------------- */

/* Every allocation is this aligned: TensorFlow CHECKs that tensor buffers are
 * 64-byte aligned (its kAllocatorAlignment). */
enum { kAlignment = 64 };

/* Sits in the kAlignment bytes in front of each device allocation, because
 * TensorFlow deallocates with only `opaque` set (size 0). */
typedef struct AllocationHeader {
  uint64_t size;
} AllocationHeader;

_Static_assert(sizeof(AllocationHeader) <= kAlignment, "the header must fit in front of the block");

/* What get_allocator_stats reports. */
typedef struct AllocationCounters {
  int64_t num_allocs; /* ever made */
  int64_t bytes_in_use;
  int64_t peak_bytes_in_use;
  int64_t largest_alloc_size;
} AllocationCounters;

/* The state of the one device. There is only one, and its memory outlives
 * any SP_Device the host creates for it, so it is static: a deallocate that
 * arrives after destroy_device still finds its counters. */
typedef struct MinimalDevice {
  /* Several host threads may allocate at once. It also guards the streams'
   * errors, which a host callback may set while another thread reads them. */
  pthread_mutex_t mutex;
  AllocationCounters counters;
} MinimalDevice;

static MinimalDevice the_device = {.mutex = PTHREAD_MUTEX_INITIALIZER};

static const char kPlatformName[] = "SECTL_MINIMAL";
static const char kHardwareName[] = "sectl minimal synchronous device";
static const char kVendor[] = "sectl";

/* Streams and events need distinct, non-null handles; nothing more, because
 * nothing is ever pending. A stream remembers the first error a host callback
 * reported, so that get_stream_status can return it. */
struct SP_Stream_st {
  TF_Code error_code;
  char* error_message; /* null while error_code is TF_OK */
};

struct SP_Event_st {
  SE_EventStatus status;
};

static void SetOk(TF_Status* status) { TF_SetStatus(status, TF_OK, ""); }

static char* CopyOf(const char* text) {
  size_t length = strlen(text) + 1;
  char* copy = malloc(length);
  if (copy != NULL) {
    memcpy(copy, text, length);
  }
  return copy;
}

/* ---- Memory ----------------------------------------------------------- */

static void Allocate(const SP_Device* device, uint64_t size, int64_t memory_space,
                     SP_DeviceMemoryBase* mem) {
  (void)device;
  (void)memory_space;
  if (mem == NULL) {
    return;
  }
  size_t host_size = HostSize(mem->struct_size, SP_DEVICE_MEMORY_BASE_STRUCT_SIZE);
  /* A block the host cannot be told about would only leak. */
  if (!FITS(SP_DeviceMemoryBase, opaque, host_size)) {
    return;
  }

  void* opaque = NULL;
  void* block = NULL;
  /* Zero bytes get no block; a size the header would overflow gets none
   * either, and the host sees the failure as a null opaque. */
  if (size != 0 && size <= (uint64_t)INT64_MAX - kAlignment &&
      posix_memalign(&block, kAlignment, (size_t)size + kAlignment) == 0) {
    ((AllocationHeader*)block)->size = size;
    opaque = (char*)block + kAlignment;

    pthread_mutex_lock(&the_device.mutex);
    AllocationCounters* counters = &the_device.counters;
    counters->num_allocs += 1;
    counters->bytes_in_use += (int64_t)size;
    if (counters->bytes_in_use > counters->peak_bytes_in_use) {
      counters->peak_bytes_in_use = counters->bytes_in_use;
    }
    if ((int64_t)size > counters->largest_alloc_size) {
      counters->largest_alloc_size = (int64_t)size;
    }
    pthread_mutex_unlock(&the_device.mutex);
  }

  SET_IF_FITS(SP_DeviceMemoryBase, mem, host_size, opaque, opaque);
  SET_IF_FITS(SP_DeviceMemoryBase, mem, host_size, size, opaque != NULL ? size : 0);
  SET_IF_FITS(SP_DeviceMemoryBase, mem, host_size, payload, 0);
  mem->struct_size = Smaller(host_size, SP_DEVICE_MEMORY_BASE_STRUCT_SIZE);
}

static void Deallocate(const SP_Device* device, SP_DeviceMemoryBase* memory) {
  (void)device;
  if (memory == NULL || memory->opaque == NULL) {
    return;
  }
  char* block = (char*)memory->opaque - kAlignment;
  uint64_t size = ((AllocationHeader*)block)->size;

  pthread_mutex_lock(&the_device.mutex);
  the_device.counters.bytes_in_use -= (int64_t)size;
  pthread_mutex_unlock(&the_device.mutex);

  free(block);
}

static void* HostMemoryAllocate(const SP_Device* device, uint64_t size) {
  (void)device;
  void* block = NULL;
  if (size == 0 || size > SIZE_MAX) {
    return NULL;
  }
  if (posix_memalign(&block, kAlignment, (size_t)size) != 0) {
    return NULL;
  }
  return block;
}

static void HostMemoryDeallocate(const SP_Device* device, void* mem) {
  (void)device;
  free(mem);
}

static TF_Bool GetAllocatorStats(const SP_Device* device, SP_AllocatorStats* stats) {
  (void)device;
  if (stats == NULL) {
    return 0;
  }
  size_t host_size = HostSize(stats->struct_size, SP_ALLOCATORSTATS_STRUCT_SIZE);

  pthread_mutex_lock(&the_device.mutex);
  AllocationCounters snapshot = the_device.counters;
  pthread_mutex_unlock(&the_device.mutex);

  SET_IF_FITS(SP_AllocatorStats, stats, host_size, num_allocs, snapshot.num_allocs);
  SET_IF_FITS(SP_AllocatorStats, stats, host_size, bytes_in_use, snapshot.bytes_in_use);
  SET_IF_FITS(SP_AllocatorStats, stats, host_size, peak_bytes_in_use, snapshot.peak_bytes_in_use);
  SET_IF_FITS(SP_AllocatorStats, stats, host_size, largest_alloc_size, snapshot.largest_alloc_size);
  /* No limits and no reservations: memory is the host's, taken on demand. */
  SET_IF_FITS(SP_AllocatorStats, stats, host_size, has_bytes_limit, 0);
  SET_IF_FITS(SP_AllocatorStats, stats, host_size, bytes_limit, 0);
  SET_IF_FITS(SP_AllocatorStats, stats, host_size, bytes_reserved, 0);
  SET_IF_FITS(SP_AllocatorStats, stats, host_size, peak_bytes_reserved, 0);
  SET_IF_FITS(SP_AllocatorStats, stats, host_size, has_bytes_reservable_limit, 0);
  SET_IF_FITS(SP_AllocatorStats, stats, host_size, bytes_reservable_limit, 0);
  SET_IF_FITS(SP_AllocatorStats, stats, host_size, largest_free_block_bytes, 0);
  stats->struct_size = Smaller(host_size, SP_ALLOCATORSTATS_STRUCT_SIZE);
  return 1;
}

static TF_Bool DeviceMemoryUsage(const SP_Device* device, int64_t* free_bytes,
                                 int64_t* total_bytes) {
  (void)device;
  if (free_bytes == NULL || total_bytes == NULL) {
    return 0;
  }
  /* The device's memory is the machine's RAM. */
  long pages = sysconf(_SC_PHYS_PAGES);
  long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) {
    return 0;
  }
  int64_t total = (int64_t)pages * (int64_t)page_size;

  pthread_mutex_lock(&the_device.mutex);
  int64_t in_use = the_device.counters.bytes_in_use;
  pthread_mutex_unlock(&the_device.mutex);

  *total_bytes = total;
  *free_bytes = in_use < total ? total - in_use : 0;
  return 1;
}

/* ---- Streams and events ----------------------------------------------- */

static void CreateStream(const SP_Device* device, SP_Stream* stream, TF_Status* status) {
  (void)device;
  if (stream == NULL) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "create_stream: the stream out-pointer is null");
    return;
  }
  *stream = calloc(1, sizeof(struct SP_Stream_st));
  if (*stream == NULL) {
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "create_stream: out of host memory");
    return;
  }
  (*stream)->error_code = TF_OK;
  SetOk(status);
}

static void DestroyStream(const SP_Device* device, SP_Stream stream) {
  (void)device;
  if (stream == NULL) {
    return;
  }
  free(stream->error_message);
  free(stream);
}

static void CreateStreamDependency(const SP_Device* device, SP_Stream dependent, SP_Stream other,
                                   TF_Status* status) {
  (void)device;
  (void)dependent;
  (void)other;
  SetOk(status); /* `other` has no unfinished work to wait for. */
}

static void GetStreamStatus(const SP_Device* device, SP_Stream stream, TF_Status* status) {
  (void)device;
  if (stream == NULL) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "get_stream_status: the stream is null");
    return;
  }
  pthread_mutex_lock(&the_device.mutex);
  if (stream->error_code == TF_OK) {
    SetOk(status);
  } else {
    TF_SetStatus(status, stream->error_code,
                 stream->error_message != NULL ? stream->error_message : "");
  }
  pthread_mutex_unlock(&the_device.mutex);
}

static void CreateEvent(const SP_Device* device, SP_Event* event, TF_Status* status) {
  (void)device;
  if (event == NULL) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "create_event: the event out-pointer is null");
    return;
  }
  *event = calloc(1, sizeof(struct SP_Event_st));
  if (*event == NULL) {
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "create_event: out of host memory");
    return;
  }
  /* Nothing can be pending on this device, so there is nothing to wait for. */
  (*event)->status = SE_EVENT_COMPLETE;
  SetOk(status);
}

static void DestroyEvent(const SP_Device* device, SP_Event event) {
  (void)device;
  free(event);
}

static SE_EventStatus GetEventStatus(const SP_Device* device, SP_Event event) {
  (void)device;
  return event != NULL ? event->status : SE_EVENT_ERROR;
}

static void RecordEvent(const SP_Device* device, SP_Stream stream, SP_Event event,
                        TF_Status* status) {
  (void)device;
  (void)stream;
  if (event == NULL) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "record_event: the event is null");
    return;
  }
  /* Everything enqueued before this point has already run. */
  event->status = SE_EVENT_COMPLETE;
  SetOk(status);
}

static void WaitForEvent(const SP_Device* const device, SP_Stream stream, SP_Event event,
                         TF_Status* const status) {
  (void)device;
  (void)stream;
  (void)event;
  SetOk(status); /* Every event is complete once recorded. */
}

static void BlockHostForEvent(const SP_Device* device, SP_Event event, TF_Status* status) {
  (void)device;
  (void)event;
  SetOk(status);
}

static void SynchronizeAllActivity(const SP_Device* device, TF_Status* status) {
  (void)device;
  SetOk(status); /* There is never any activity left. */
}

/* ---- Copies and fills ------------------------------------------------- */

/* Copies `size` bytes, or explains in `status` why it cannot. A zero-size
 * copy needs no valid pointers. */
static void CopyBytes(const char* operation, void* destination, const void* source, uint64_t size,
                      TF_Status* status) {
  if (size == 0) {
    SetOk(status);
    return;
  }
  if (destination == NULL || source == NULL) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, operation);
    return;
  }
  memmove(destination, source, (size_t)size);
  SetOk(status);
}

static void* OpaqueOf(const SP_DeviceMemoryBase* memory) {
  return memory != NULL ? memory->opaque : NULL;
}

static void MemcpyDtoH(const SP_Device* device, SP_Stream stream, void* host_dst,
                       const SP_DeviceMemoryBase* device_src, uint64_t size, TF_Status* status) {
  (void)device;
  (void)stream;
  CopyBytes("memcpy_dtoh: null source or destination", host_dst, OpaqueOf(device_src), size,
            status);
}

static void MemcpyHtoD(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* device_dst,
                       const void* host_src, uint64_t size, TF_Status* status) {
  (void)device;
  (void)stream;
  CopyBytes("memcpy_htod: null source or destination", OpaqueOf(device_dst), host_src, size,
            status);
}

static void MemcpyDtoD(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* device_dst,
                       const SP_DeviceMemoryBase* device_src, uint64_t size, TF_Status* status) {
  (void)device;
  (void)stream;
  CopyBytes("memcpy_dtod: null source or destination", OpaqueOf(device_dst), OpaqueOf(device_src),
            size, status);
}

static void SyncMemcpyDtoH(const SP_Device* device, void* host_dst,
                           const SP_DeviceMemoryBase* device_src, uint64_t size,
                           TF_Status* status) {
  (void)device;
  CopyBytes("sync_memcpy_dtoh: null source or destination", host_dst, OpaqueOf(device_src), size,
            status);
}

static void SyncMemcpyHtoD(const SP_Device* device, SP_DeviceMemoryBase* device_dst,
                           const void* host_src, uint64_t size, TF_Status* status) {
  (void)device;
  CopyBytes("sync_memcpy_htod: null source or destination", OpaqueOf(device_dst), host_src, size,
            status);
}

/* Fills `size` bytes with `pattern`, or explains in `status` why it cannot. */
static void FillBytes(const char* operation, SP_DeviceMemoryBase* location, uint8_t pattern,
                      uint64_t size, TF_Status* status) {
  if (size == 0) {
    SetOk(status);
    return;
  }
  void* destination = OpaqueOf(location);
  if (destination == NULL) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, operation);
    return;
  }
  memset(destination, pattern, (size_t)size);
  SetOk(status);
}

static void MemZero(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* location,
                    uint64_t size, TF_Status* status) {
  (void)device;
  (void)stream;
  FillBytes("mem_zero: null location", location, 0, size, status);
}

static void Memset(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* location,
                   uint8_t pattern, uint64_t size, TF_Status* status) {
  (void)device;
  (void)stream;
  FillBytes("memset: null location", location, pattern, size, status);
}

/* `size` is in bytes, as for the other fills; it must hold whole words. */
static void Memset32(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* location,
                     uint32_t pattern, uint64_t size, TF_Status* status) {
  (void)device;
  (void)stream;
  if (size % sizeof(pattern) != 0) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "memset32: size is not a multiple of 4 bytes");
    return;
  }
  if (size == 0) {
    SetOk(status);
    return;
  }
  char* destination = OpaqueOf(location);
  if (destination == NULL) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "memset32: null location");
    return;
  }
  /* memcpy per word: an interior pointer need not be 4-byte aligned. */
  for (uint64_t offset = 0; offset < size; offset += sizeof(pattern)) {
    memcpy(destination + offset, &pattern, sizeof(pattern));
  }
  SetOk(status);
}

/* ---- Host callbacks --------------------------------------------------- */

/* Runs the callback now: everything enqueued before it has already run. A
 * non-OK result becomes the stream's error, as an asynchronous device would
 * report a failed callback. */
static TF_Bool HostCallback(const SP_Device* device, SP_Stream stream,
                            SE_StatusCallbackFn callback_fn, void* callback_arg) {
  (void)device;
  /* Returning false means "not enqueued": the callback is then never run,
   * which keeps the exactly-once promise. */
  if (stream == NULL || callback_fn == NULL) {
    return 0;
  }
  TF_Status* result = TF_NewStatus();
  if (result == NULL) {
    return 0;
  }

  callback_fn(callback_arg, result);

  if (TF_GetCode(result) != TF_OK) {
    pthread_mutex_lock(&the_device.mutex);
    /* Keep the first error: later ones are usually its consequences. */
    if (stream->error_code == TF_OK) {
      stream->error_code = TF_GetCode(result);
      stream->error_message = CopyOf(TF_Message(result));
    }
    pthread_mutex_unlock(&the_device.mutex);
  }
  TF_DeleteStatus(result);
  return 1;
}

/* ---- Platform functions ----------------------------------------------- */

static void GetDeviceCount(const SP_Platform* platform, int* device_count, TF_Status* status) {
  (void)platform;
  if (device_count == NULL) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "get_device_count: device_count is null");
    return;
  }
  *device_count = 1;
  SetOk(status);
}

static void CreateDevice(const SP_Platform* platform, SE_CreateDeviceParams* params,
                         TF_Status* status) {
  (void)platform;
  if (params == NULL) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "create_device: params is null");
    return;
  }
  size_t params_size = HostSize(params->struct_size, SE_CREATE_DEVICE_PARAMS_STRUCT_SIZE);
  if (!FITS(SE_CreateDeviceParams, device, params_size) || params->device == NULL) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "create_device: params->device is missing");
    return;
  }
  if (params->ordinal != 0) {
    TF_SetStatus(status, TF_OUT_OF_RANGE, "create_device: this platform has only device 0");
    return;
  }
  SP_Device* device = params->device;
  size_t device_size = HostSize(device->struct_size, SP_DEVICE_STRUCT_SIZE);
  if (!FITS(SP_Device, device_handle, device_size)) {
    TF_SetStatus(status, TF_FAILED_PRECONDITION,
                 "create_device: the host's SP_Device has no room for device_handle");
    return;
  }

  SET_IF_FITS(SP_Device, device, device_size, ordinal, 0);
  SET_IF_FITS(SP_Device, device, device_size, device_handle, &the_device);
  SET_IF_FITS(SP_Device, device, device_size, hardware_name, kHardwareName);
  SET_IF_FITS(SP_Device, device, device_size, device_vendor, kVendor);
  SET_IF_FITS(SP_Device, device, device_size, pci_bus_id, NULL);
  device->struct_size = Smaller(device_size, SP_DEVICE_STRUCT_SIZE);
  SetOk(status);
}

static void DestroyDevice(const SP_Platform* platform, SP_Device* device) {
  (void)platform;
  (void)device; /* The device state is static; nothing was allocated. */
}

static void CreateDeviceFns(const SP_Platform* platform, SE_CreateDeviceFnsParams* params,
                            TF_Status* status) {
  (void)platform;
  if (params == NULL) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "create_device_fns: params is null");
    return;
  }
  size_t params_size = HostSize(params->struct_size, SE_CREATE_DEVICE_FNS_PARAMS_STRUCT_SIZE);
  if (!FITS(SE_CreateDeviceFnsParams, device_fns, params_size) || params->device_fns == NULL) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "create_device_fns: params->device_fns is missing");
    return;
  }
  /* Every member is optional; the host's zero-filled struct says "unknown". */
  SP_DeviceFns* device_fns = params->device_fns;
  device_fns->struct_size = Smaller(HostSize(device_fns->struct_size, SP_DEVICE_FNS_STRUCT_SIZE),
                                    SP_DEVICE_FNS_STRUCT_SIZE);
  SetOk(status);
}

static void DestroyDeviceFns(const SP_Platform* platform, SP_DeviceFns* device_fns) {
  (void)platform;
  (void)device_fns;
}

static void CreateStreamExecutor(const SP_Platform* platform, SE_CreateStreamExecutorParams* params,
                                 TF_Status* status) {
  (void)platform;
  if (params == NULL) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "create_stream_executor: params is null");
    return;
  }
  size_t params_size = HostSize(params->struct_size, SE_CREATE_STREAM_EXECUTOR_PARAMS_STRUCT_SIZE);
  if (!FITS(SE_CreateStreamExecutorParams, stream_executor, params_size) ||
      params->stream_executor == NULL) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT,
                 "create_stream_executor: params->stream_executor is missing");
    return;
  }
  SP_StreamExecutor* se = params->stream_executor;
  size_t se_size = HostSize(se->struct_size, SP_STREAMEXECUTOR_STRUCT_SIZE);
  /* An older host's layout has host_callback where our mem_zero is; filling
   * it member by member would hand that host the wrong functions. */
  if (se_size < SP_STREAMEXECUTOR_STRUCT_SIZE) {
    TF_SetStatus(status, TF_FAILED_PRECONDITION,
                 "this plugin needs a host with the 288-byte SP_StreamExecutor "
                 "(TensorFlow 2.7 or newer)");
    return;
  }

  /* The host's struct holds every member from here on. */
  se->allocate = Allocate;
  se->deallocate = Deallocate;
  se->host_memory_allocate = HostMemoryAllocate;
  se->host_memory_deallocate = HostMemoryDeallocate;
  se->get_allocator_stats = GetAllocatorStats;
  se->device_memory_usage = DeviceMemoryUsage;
  se->create_stream = CreateStream;
  se->destroy_stream = DestroyStream;
  se->create_stream_dependency = CreateStreamDependency;
  se->get_stream_status = GetStreamStatus;
  se->create_event = CreateEvent;
  se->destroy_event = DestroyEvent;
  se->get_event_status = GetEventStatus;
  se->record_event = RecordEvent;
  se->wait_for_event = WaitForEvent;
  se->memcpy_dtoh = MemcpyDtoH;
  se->memcpy_htod = MemcpyHtoD;
  se->memcpy_dtod = MemcpyDtoD; /* Not validated, but called unconditionally. */
  se->sync_memcpy_dtoh = SyncMemcpyDtoH;
  se->sync_memcpy_htod = SyncMemcpyHtoD;
  se->block_host_for_event = BlockHostForEvent;
  se->synchronize_all_activity = SynchronizeAllActivity;
  se->mem_zero = MemZero;
  se->memset = Memset;
  se->memset32 = Memset32;
  se->host_callback = HostCallback;
  se->struct_size = SP_STREAMEXECUTOR_STRUCT_SIZE;
  SetOk(status);
}

static void DestroyStreamExecutor(const SP_Platform* platform, SP_StreamExecutor* stream_executor) {
  (void)platform;
  (void)stream_executor;
}

/* The newest TensorFlow never asks for timer functions but still hands them
 * back at teardown, so this must exist even though create_timer_fns does not. */
static void DestroyTimerFns(const SP_Platform* platform, SP_TimerFns* timer_fns) {
  (void)platform;
  (void)timer_fns;
}

static void DestroyPlatform(SP_Platform* platform) {
  (void)platform; /* The name and type are static strings. */
}

static void DestroyPlatformFns(SP_PlatformFns* platform_fns) { (void)platform_fns; }

/* ---- Entry point ------------------------------------------------------ */

static void FillPlatform(SP_Platform* platform) {
  size_t size = HostSize(platform->struct_size, SP_PLATFORM_STRUCT_SIZE);
  SET_IF_FITS(SP_Platform, platform, size, name, kPlatformName);
  SET_IF_FITS(SP_Platform, platform, size, type, kPlatformName);
  SET_IF_FITS(SP_Platform, platform, size, supports_unified_memory, 0);
  SET_IF_FITS(SP_Platform, platform, size, use_bfc_allocator, 0);
  SET_IF_FITS(SP_Platform, platform, size, force_memory_growth, 0);
  platform->struct_size = Smaller(size, SP_PLATFORM_STRUCT_SIZE);
}

static void FillPlatformFns(SP_PlatformFns* fns) {
  size_t size = HostSize(fns->struct_size, SP_PLATFORM_FNS_STRUCT_SIZE);
  SET_IF_FITS(SP_PlatformFns, fns, size, get_device_count, GetDeviceCount);
  SET_IF_FITS(SP_PlatformFns, fns, size, create_device, CreateDevice);
  SET_IF_FITS(SP_PlatformFns, fns, size, destroy_device, DestroyDevice);
  SET_IF_FITS(SP_PlatformFns, fns, size, create_device_fns, CreateDeviceFns);
  SET_IF_FITS(SP_PlatformFns, fns, size, destroy_device_fns, DestroyDeviceFns);
  SET_IF_FITS(SP_PlatformFns, fns, size, create_stream_executor, CreateStreamExecutor);
  SET_IF_FITS(SP_PlatformFns, fns, size, destroy_stream_executor, DestroyStreamExecutor);
  SET_IF_FITS(SP_PlatformFns, fns, size, destroy_timer_fns, DestroyTimerFns);
  fns->struct_size = Smaller(size, SP_PLATFORM_FNS_STRUCT_SIZE);
}

TF_CAPI_EXPORT void SE_InitPlugin(SE_PlatformRegistrationParams* params, TF_Status* status) {
  if (params == NULL) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "SE_InitPlugin: params is null");
    return;
  }
  size_t size = HostSize(params->struct_size, SE_PLATFORM_REGISTRATION_PARAMS_STRUCT_SIZE);
  if (!FITS(SE_PlatformRegistrationParams, platform_fns, size)) {
    TF_SetStatus(status, TF_FAILED_PRECONDITION,
                 "SE_InitPlugin: the host's SE_PlatformRegistrationParams ends before "
                 "platform_fns");
    return;
  }
  /* The versioning doc puts the major-version check in the plugin; TensorFlow
   * itself never compares. The fields are the host's: read, never written. */
  if (params->major_version != SE_MAJOR) {
    char message[160];
    snprintf(message, sizeof(message),
             "SE_InitPlugin: the host offers StreamExecutor C API major version %d; this "
             "plugin implements major version %d",
             (int)params->major_version, SE_MAJOR);
    TF_SetStatus(status, TF_FAILED_PRECONDITION, message);
    return;
  }
  if (params->platform == NULL || params->platform_fns == NULL) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT,
                 "SE_InitPlugin: params->platform and params->platform_fns must be set");
    return;
  }

  FillPlatform(params->platform);
  FillPlatformFns(params->platform_fns);

  SET_IF_FITS(SE_PlatformRegistrationParams, params, size, destroy_platform, DestroyPlatform);
  SET_IF_FITS(SE_PlatformRegistrationParams, params, size, destroy_platform_fns,
              DestroyPlatformFns);
  params->struct_size = Smaller(size, SE_PLATFORM_REGISTRATION_PARAMS_STRUCT_SIZE);
  SetOk(status);
}
