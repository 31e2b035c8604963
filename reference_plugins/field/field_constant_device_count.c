/* field_constant_device_count: written the way the TensorFlow community
 * sample plugin (cpu_device_plugin.cc) is, with its bugs fixed.
 *
 * Style: a constant device count of 1, and create_device ignores the ordinal
 * (always device 0: TensorFlow only creates ordinals below the count);
 * device_handle left null; a pooled allocator that keeps freed blocks for
 * reuse and reports constant free memory; no timers (create_timer_fns unset,
 * as the newest TensorFlow never asks); no block_host_until_done (TensorFlow
 * falls back to an event); no sync_memcpy_dtod. Plain C. */
#include "field_device.h"

static const char kName[] = "FAKE_CPU_DEVICE";
static const char kType[] = "MY_DEVICE";

/* ---- A pooled allocator -------------------------------------------------
 * Blocks come in power-of-two classes from 64 bytes; a freed block goes on
 * its class's free list and is handed out again, never back to the system.
 * The pool claims a fixed 8 GiB, all of it always "free", as pools that
 * reserve their memory up front report. */
enum { kSmallestClassLog2 = 6, kClassCount = 34 - kSmallestClassLog2 };
static const int64_t kPoolBytes = (int64_t)8 << 30;

typedef struct PoolBlock {
  struct PoolBlock* next_free; /* while on a free list */
  uint32_t size_class;
} PoolBlock;

static PoolBlock* free_lists[kClassCount];

static int ClassOf(uint64_t size) {
  int size_class = 0;
  while (((uint64_t)1 << (size_class + kSmallestClassLog2)) < size) {
    size_class += 1;
  }
  return size_class;
}

static void PoolAllocate(const SP_Device* device, uint64_t size, int64_t memory_space,
                         SP_DeviceMemoryBase* mem) {
  (void)device;
  (void)memory_space;
  mem->opaque = NULL;
  mem->size = 0;
  mem->payload = 0;
  if (size == 0 || size > (uint64_t)kPoolBytes) {
    return;
  }
  int size_class = ClassOf(size);
  uint64_t class_bytes = (uint64_t)1 << (size_class + kSmallestClassLog2);
  pthread_mutex_lock(&field_mutex);
  PoolBlock* block = free_lists[size_class];
  if (block != NULL) {
    free_lists[size_class] = block->next_free;
  }
  pthread_mutex_unlock(&field_mutex);
  if (block == NULL) {
    void* memory = NULL;
    if (posix_memalign(&memory, kFieldAlignment, (size_t)class_bytes + kFieldAlignment) != 0) {
      return;
    }
    block = (PoolBlock*)memory;
    block->size_class = (uint32_t)size_class;
  }
  mem->opaque = (char*)block + kFieldAlignment;
  mem->size = size;
}

static void PoolDeallocate(const SP_Device* device, SP_DeviceMemoryBase* memory) {
  (void)device;
  if (memory->opaque == NULL) {
    return;
  }
  PoolBlock* block = (PoolBlock*)((char*)memory->opaque - kFieldAlignment);
  pthread_mutex_lock(&field_mutex);
  block->next_free = free_lists[block->size_class];
  free_lists[block->size_class] = block;
  pthread_mutex_unlock(&field_mutex);
}

static TF_Bool PoolMemoryUsage(const SP_Device* device, int64_t* free_bytes, int64_t* total_bytes) {
  (void)device;
  *free_bytes = kPoolBytes;
  *total_bytes = kPoolBytes;
  return 1;
}

/* The sample fills no statistics it does not have; it says so. */
static TF_Bool PoolAllocatorStats(const SP_Device* device, SP_AllocatorStats* stats) {
  (void)device;
  (void)stats;
  return 0;
}

/* ---- Platform -------------------------------------------------------------- */

static void GetDeviceCount(const SP_Platform* platform, int* device_count, TF_Status* status) {
  (void)platform;
  *device_count = 1;
  FieldSetOk(status);
}

static void CreateDevice(const SP_Platform* platform, SE_CreateDeviceParams* params,
                         TF_Status* status) {
  (void)platform;
  params->device->struct_size = SP_DEVICE_STRUCT_SIZE;
  params->device->ordinal = 0;
  params->device->device_handle = NULL;
  FieldSetOk(status);
}

static void DestroyDevice(const SP_Platform* platform, SP_Device* device) {
  (void)platform;
  device->device_handle = NULL;
}

static void CreateDeviceFns(const SP_Platform* platform, SE_CreateDeviceFnsParams* params,
                            TF_Status* status) {
  (void)platform;
  params->device_fns->struct_size = SP_DEVICE_FNS_STRUCT_SIZE;
  FieldSetOk(status);
}

static void DestroyDeviceFns(const SP_Platform* platform, SP_DeviceFns* device_fns) {
  (void)platform;
  (void)device_fns;
}

static void CreateStreamExecutor(const SP_Platform* platform, SE_CreateStreamExecutorParams* params,
                                 TF_Status* status) {
  (void)platform;
  SP_StreamExecutor* se = params->stream_executor;
  se->struct_size = SP_STREAMEXECUTOR_STRUCT_SIZE;
  se->allocate = PoolAllocate;
  se->deallocate = PoolDeallocate;
  se->host_memory_allocate = FieldHostMemoryAllocate;
  se->host_memory_deallocate = FieldHostMemoryDeallocate;
  se->get_allocator_stats = PoolAllocatorStats;
  se->device_memory_usage = PoolMemoryUsage;
  se->create_stream = FieldCreateStream;
  se->destroy_stream = FieldDestroyStream;
  se->create_stream_dependency = FieldCreateStreamDependency;
  se->get_stream_status = FieldGetStreamStatus;
  se->create_event = FieldCreateEvent;
  se->destroy_event = FieldDestroyEvent;
  se->get_event_status = FieldGetEventStatus;
  se->record_event = FieldRecordEvent;
  se->wait_for_event = FieldWaitForEvent;
  se->memcpy_dtoh = FieldMemcpyDtoH;
  se->memcpy_htod = FieldMemcpyHtoD;
  se->memcpy_dtod = FieldMemcpyDtoD;
  se->sync_memcpy_dtoh = FieldSyncMemcpyDtoH;
  se->sync_memcpy_htod = FieldSyncMemcpyHtoD;
  se->block_host_for_event = FieldBlockHostForEvent;
  se->synchronize_all_activity = FieldSynchronizeAllActivity;
  se->mem_zero = FieldMemZero;
  se->memset = FieldMemset;
  se->memset32 = FieldMemset32;
  se->host_callback = FieldHostCallback;
  FieldSetOk(status);
}

static void DestroyStreamExecutor(const SP_Platform* platform, SP_StreamExecutor* se) {
  (void)platform;
  (void)se;
}

static void DestroyTimerFns(const SP_Platform* platform, SP_TimerFns* timer_fns) {
  (void)platform;
  (void)timer_fns;
}

static void DestroyPlatform(SP_Platform* platform) { (void)platform; }

static void DestroyPlatformFns(SP_PlatformFns* platform_fns) { (void)platform_fns; }

TF_CAPI_EXPORT void SE_InitPlugin(SE_PlatformRegistrationParams* params, TF_Status* status) {
  params->platform->struct_size = SP_PLATFORM_STRUCT_SIZE;
  params->platform->name = kName;
  params->platform->type = kType;
  params->platform->use_bfc_allocator = 1;

  SP_PlatformFns* fns = params->platform_fns;
  fns->get_device_count = GetDeviceCount;
  fns->create_device = CreateDevice;
  fns->destroy_device = DestroyDevice;
  fns->create_device_fns = CreateDeviceFns;
  fns->destroy_device_fns = DestroyDeviceFns;
  fns->create_stream_executor = CreateStreamExecutor;
  fns->destroy_stream_executor = DestroyStreamExecutor;
  fns->destroy_timer_fns = DestroyTimerFns;

  params->destroy_platform = DestroyPlatform;
  params->destroy_platform_fns = DestroyPlatformFns;
  FieldSetOk(status);
}
