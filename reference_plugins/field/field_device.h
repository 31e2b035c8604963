/* The working device behind the field corpus: memory, streams, events,
 * copies, fills, host callbacks and timers that really work, written as
 * plain C so that the C and the C++ plugins of the corpus share it.
 *
 * The corpus tests sectl's verdicts on the *styles* real plugins are written
 * in (how they fill TensorFlow's structs, which members they leave unset,
 * which shortcuts they take), not on device behaviour, so every plugin runs
 * the same correct, fully synchronous device: when a call returns, its work
 * is done, a legal design that DirectML and Huawei's plugins use. Each plugin
 * includes this header once and overrides what its style changes.
 *
 * "Device memory" is host memory, 64-byte aligned as TensorFlow's Tensor
 * CHECKs, with a header in front because TensorFlow deallocates with only
 * `opaque` set. Only ABI headers are used: the plugins are built as a vendor
 * builds against TensorFlow's header. */
#ifndef SECTL_REFERENCE_PLUGINS_FIELD_FIELD_DEVICE_H_
#define SECTL_REFERENCE_PLUGINS_FIELD_FIELD_DEVICE_H_

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Memory ------------------------------------------------------------- */

enum { kFieldAlignment = 64 };

typedef struct FieldCounters {
  int64_t num_allocs;
  int64_t bytes_in_use;
  int64_t peak_bytes_in_use;
  int64_t largest_alloc_size;
} FieldCounters;

/* Static: memory outlives any SP_Device, and a deallocate may come after
 * destroy_device. The mutex also guards stream errors set by callbacks. */
static pthread_mutex_t field_mutex = PTHREAD_MUTEX_INITIALIZER;
static FieldCounters field_counters;

static inline void FieldSetOk(TF_Status* status) { TF_SetStatus(status, TF_OK, ""); }

/* Counts an allocation of `size` bytes in the statistics. */
static inline void FieldCountAllocation(uint64_t size) {
  pthread_mutex_lock(&field_mutex);
  field_counters.num_allocs += 1;
  field_counters.bytes_in_use += (int64_t)size;
  if (field_counters.bytes_in_use > field_counters.peak_bytes_in_use) {
    field_counters.peak_bytes_in_use = field_counters.bytes_in_use;
  }
  if ((int64_t)size > field_counters.largest_alloc_size) {
    field_counters.largest_alloc_size = (int64_t)size;
  }
  pthread_mutex_unlock(&field_mutex);
}

static inline void FieldCountFree(uint64_t size) {
  pthread_mutex_lock(&field_mutex);
  field_counters.bytes_in_use -= (int64_t)size;
  pthread_mutex_unlock(&field_mutex);
}

/* Returns a 64-byte aligned block of `size` bytes, or null (also for 0 bytes,
 * which get no block). The size is kept in front for deallocate. */
static inline void* FieldAllocateBlock(uint64_t size) {
  void* block = NULL;
  if (size == 0 || size > (uint64_t)INT64_MAX - kFieldAlignment ||
      posix_memalign(&block, kFieldAlignment, (size_t)size + kFieldAlignment) != 0) {
    return NULL;
  }
  memcpy(block, &size, sizeof(size));
  FieldCountAllocation(size);
  return (char*)block + kFieldAlignment;
}

/* The size FieldAllocateBlock kept in front of `opaque`. */
static inline uint64_t FieldBlockSize(const void* opaque) {
  uint64_t size;
  memcpy(&size, (const char*)opaque - kFieldAlignment, sizeof(size));
  return size;
}

static inline void FieldFreeBlock(void* opaque) {
  if (opaque == NULL) {
    return;
  }
  FieldCountFree(FieldBlockSize(opaque));
  free((char*)opaque - kFieldAlignment);
}

/* Sets opaque, size and payload: every released SP_DeviceMemoryBase has them
 * (40 bytes), and TensorFlow pre-fills struct_size, so none is written. */
static inline void FieldAllocate(const SP_Device* device, uint64_t size, int64_t memory_space,
                                 SP_DeviceMemoryBase* mem) {
  (void)device;
  (void)memory_space;
  void* opaque = FieldAllocateBlock(size);
  mem->opaque = opaque;
  mem->size = opaque != NULL ? size : 0;
  mem->payload = 0;
}

static inline void FieldDeallocate(const SP_Device* device, SP_DeviceMemoryBase* memory) {
  (void)device;
  if (memory != NULL) {
    FieldFreeBlock(memory->opaque);
  }
}

static inline void* FieldHostMemoryAllocate(const SP_Device* device, uint64_t size) {
  (void)device;
  void* block = NULL;
  if (size == 0 || size > SIZE_MAX || posix_memalign(&block, kFieldAlignment, (size_t)size) != 0) {
    return NULL;
  }
  return block;
}

static inline void FieldHostMemoryDeallocate(const SP_Device* device, void* mem) {
  (void)device;
  free(mem);
}

/* Fills the 96-byte SP_AllocatorStats every released header has. */
static inline TF_Bool FieldGetAllocatorStats(const SP_Device* device, SP_AllocatorStats* stats) {
  (void)device;
  pthread_mutex_lock(&field_mutex);
  FieldCounters snapshot = field_counters;
  pthread_mutex_unlock(&field_mutex);
  stats->num_allocs = snapshot.num_allocs;
  stats->bytes_in_use = snapshot.bytes_in_use;
  stats->peak_bytes_in_use = snapshot.peak_bytes_in_use;
  stats->largest_alloc_size = snapshot.largest_alloc_size;
  stats->has_bytes_limit = 0;
  stats->bytes_limit = 0;
  stats->bytes_reserved = 0;
  stats->peak_bytes_reserved = 0;
  stats->has_bytes_reservable_limit = 0;
  stats->bytes_reservable_limit = 0;
  stats->largest_free_block_bytes = 0;
  return 1;
}

/* A 16 GiB device whose free memory shrinks with what is allocated. */
static const int64_t kFieldTotalBytes = (int64_t)16 << 30;

static inline TF_Bool FieldDeviceMemoryUsage(const SP_Device* device, int64_t* free_bytes,
                                             int64_t* total_bytes) {
  (void)device;
  pthread_mutex_lock(&field_mutex);
  int64_t in_use = field_counters.bytes_in_use;
  pthread_mutex_unlock(&field_mutex);
  *total_bytes = kFieldTotalBytes;
  *free_bytes = in_use < kFieldTotalBytes ? kFieldTotalBytes - in_use : 0;
  return 1;
}

/* ---- Streams and events -------------------------------------------------- */

/* A stream keeps the first error a host callback reported. */
struct SP_Stream_st {
  TF_Code error_code;
  char message[128];
};

struct SP_Event_st {
  SE_EventStatus status;
};

static inline void FieldCreateStream(const SP_Device* device, SP_Stream* stream,
                                     TF_Status* status) {
  (void)device;
  *stream = (SP_Stream)calloc(1, sizeof(struct SP_Stream_st));
  if (*stream == NULL) {
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "create_stream: out of host memory");
    return;
  }
  FieldSetOk(status);
}

static inline void FieldDestroyStream(const SP_Device* device, SP_Stream stream) {
  (void)device;
  free(stream);
}

static inline void FieldCreateStreamDependency(const SP_Device* device, SP_Stream dependent,
                                               SP_Stream other, TF_Status* status) {
  (void)device;
  (void)dependent;
  (void)other;
  FieldSetOk(status); /* `other` never has unfinished work. */
}

static inline void FieldGetStreamStatus(const SP_Device* device, SP_Stream stream,
                                        TF_Status* status) {
  (void)device;
  pthread_mutex_lock(&field_mutex);
  if (stream == NULL || stream->error_code == TF_OK) {
    FieldSetOk(status);
  } else {
    TF_SetStatus(status, stream->error_code, stream->message);
  }
  pthread_mutex_unlock(&field_mutex);
}

static inline void FieldCreateEvent(const SP_Device* device, SP_Event* event, TF_Status* status) {
  (void)device;
  *event = (SP_Event)calloc(1, sizeof(struct SP_Event_st));
  if (*event == NULL) {
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "create_event: out of host memory");
    return;
  }
  /* Nothing is ever pending, so a fresh event has nothing to wait for. */
  (*event)->status = SE_EVENT_COMPLETE;
  FieldSetOk(status);
}

static inline void FieldDestroyEvent(const SP_Device* device, SP_Event event) {
  (void)device;
  free(event);
}

static inline SE_EventStatus FieldGetEventStatus(const SP_Device* device, SP_Event event) {
  (void)device;
  return event != NULL ? event->status : SE_EVENT_COMPLETE;
}

static inline void FieldRecordEvent(const SP_Device* device, SP_Stream stream, SP_Event event,
                                    TF_Status* status) {
  (void)device;
  (void)stream;
  if (event != NULL) {
    event->status = SE_EVENT_COMPLETE; /* the earlier work has already run */
  }
  FieldSetOk(status);
}

static inline void FieldWaitForEvent(const SP_Device* device, SP_Stream stream, SP_Event event,
                                     TF_Status* status) {
  (void)device;
  (void)stream;
  (void)event;
  FieldSetOk(status);
}

static inline void FieldBlockHostForEvent(const SP_Device* device, SP_Event event,
                                          TF_Status* status) {
  (void)device;
  (void)event;
  FieldSetOk(status);
}

static inline void FieldBlockHostUntilDone(const SP_Device* device, SP_Stream stream,
                                           TF_Status* status) {
  (void)device;
  (void)stream;
  FieldSetOk(status);
}

static inline void FieldSynchronizeAllActivity(const SP_Device* device, TF_Status* status) {
  (void)device;
  FieldSetOk(status);
}

/* ---- Copies and fills ---------------------------------------------------- */

static inline void FieldCopy(void* destination, const void* source, uint64_t size,
                             TF_Status* status) {
  if (size == 0) {
    FieldSetOk(status); /* DirectML's short cut: no pointer is looked at */
    return;
  }
  if (destination == NULL || source == NULL) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "copy: null source or destination");
    return;
  }
  memmove(destination, source, (size_t)size);
  FieldSetOk(status);
}

static inline void FieldMemcpyDtoH(const SP_Device* device, SP_Stream stream, void* host_dst,
                                   const SP_DeviceMemoryBase* device_src, uint64_t size,
                                   TF_Status* status) {
  (void)device;
  (void)stream;
  FieldCopy(host_dst, device_src->opaque, size, status);
}

static inline void FieldMemcpyHtoD(const SP_Device* device, SP_Stream stream,
                                   SP_DeviceMemoryBase* device_dst, const void* host_src,
                                   uint64_t size, TF_Status* status) {
  (void)device;
  (void)stream;
  FieldCopy(device_dst->opaque, host_src, size, status);
}

static inline void FieldMemcpyDtoD(const SP_Device* device, SP_Stream stream,
                                   SP_DeviceMemoryBase* device_dst,
                                   const SP_DeviceMemoryBase* device_src, uint64_t size,
                                   TF_Status* status) {
  (void)device;
  (void)stream;
  FieldCopy(device_dst->opaque, device_src->opaque, size, status);
}

static inline void FieldSyncMemcpyDtoH(const SP_Device* device, void* host_dst,
                                       const SP_DeviceMemoryBase* device_src, uint64_t size,
                                       TF_Status* status) {
  (void)device;
  FieldCopy(host_dst, device_src->opaque, size, status);
}

static inline void FieldSyncMemcpyHtoD(const SP_Device* device, SP_DeviceMemoryBase* device_dst,
                                       const void* host_src, uint64_t size, TF_Status* status) {
  (void)device;
  FieldCopy(device_dst->opaque, host_src, size, status);
}

static inline void FieldSyncMemcpyDtoD(const SP_Device* device, SP_DeviceMemoryBase* device_dst,
                                       const SP_DeviceMemoryBase* device_src, uint64_t size,
                                       TF_Status* status) {
  (void)device;
  FieldCopy(device_dst->opaque, device_src->opaque, size, status);
}

static inline void FieldMemZero(const SP_Device* device, SP_Stream stream,
                                SP_DeviceMemoryBase* location, uint64_t size, TF_Status* status) {
  (void)device;
  (void)stream;
  if (size != 0) {
    memset(location->opaque, 0, (size_t)size);
  }
  FieldSetOk(status);
}

static inline void FieldMemset(const SP_Device* device, SP_Stream stream,
                               SP_DeviceMemoryBase* location, uint8_t pattern, uint64_t size,
                               TF_Status* status) {
  (void)device;
  (void)stream;
  if (size != 0) {
    memset(location->opaque, pattern, (size_t)size);
  }
  FieldSetOk(status);
}

/* `size` is in bytes, a multiple of 4, as TensorFlow passes it. */
static inline void FieldMemset32(const SP_Device* device, SP_Stream stream,
                                 SP_DeviceMemoryBase* location, uint32_t pattern, uint64_t size,
                                 TF_Status* status) {
  (void)device;
  (void)stream;
  if (size % sizeof(pattern) != 0) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "memset32: size is not a multiple of 4 bytes");
    return;
  }
  char* destination = (char*)location->opaque;
  for (uint64_t offset = 0; offset < size; offset += sizeof(pattern)) {
    memcpy(destination + offset, &pattern, sizeof(pattern));
  }
  FieldSetOk(status);
}

/* ---- Host callbacks ------------------------------------------------------ */

/* Runs the callback now (the earlier work is done) exactly once; its error
 * becomes the stream's, as an asynchronous device would report it. */
static inline TF_Bool FieldHostCallback(const SP_Device* device, SP_Stream stream,
                                        SE_StatusCallbackFn callback_fn, void* callback_arg) {
  (void)device;
  TF_Status* result = TF_NewStatus();
  if (result == NULL) {
    return 0; /* not enqueued, so never run */
  }
  callback_fn(callback_arg, result);
  if (TF_GetCode(result) != TF_OK && stream != NULL) {
    pthread_mutex_lock(&field_mutex);
    if (stream->error_code == TF_OK) {
      stream->error_code = TF_GetCode(result);
      strncpy(stream->message, TF_Message(result), sizeof(stream->message) - 1);
    }
    pthread_mutex_unlock(&field_mutex);
  }
  TF_DeleteStatus(result);
  return 1;
}

/* ---- Timers -------------------------------------------------------------- */

struct SP_Timer_st {
  uint64_t start_ns;
  uint64_t stop_ns;
};

static inline uint64_t FieldNowNs(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static inline void FieldCreateTimer(const SP_Device* device, SP_Timer* timer, TF_Status* status) {
  (void)device;
  *timer = (SP_Timer)calloc(1, sizeof(struct SP_Timer_st));
  if (*timer == NULL) {
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "create_timer: out of host memory");
    return;
  }
  FieldSetOk(status);
}

static inline void FieldDestroyTimer(const SP_Device* device, SP_Timer timer) {
  (void)device;
  free(timer);
}

/* The stream's earlier work is done when this runs, so host time is stream
 * time on this device. */
static inline void FieldStartTimer(const SP_Device* device, SP_Stream stream, SP_Timer timer,
                                   TF_Status* status) {
  (void)device;
  (void)stream;
  timer->start_ns = FieldNowNs();
  timer->stop_ns = timer->start_ns;
  FieldSetOk(status);
}

static inline void FieldStopTimer(const SP_Device* device, SP_Stream stream, SP_Timer timer,
                                  TF_Status* status) {
  (void)device;
  (void)stream;
  timer->stop_ns = FieldNowNs();
  FieldSetOk(status);
}

static inline uint64_t FieldNanoseconds(SP_Timer timer) { return timer->stop_ns - timer->start_ns; }

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // SECTL_REFERENCE_PLUGINS_FIELD_FIELD_DEVICE_H_
