// field_no_struct_size: written the way NEC's VEDA plugin is.
//
// Style: no struct_size is written anywhere (TensorFlow pre-fills every one);
// supports_unified_memory is true, with unified memory that really works;
// use_bfc_allocator is false (TensorFlow's pass-through allocator); and
// create_stream hands out one shared static stream, as VEDA does: every
// operation runs synchronously, so one stream serves every caller, and
// destroy_stream has nothing to free.
#include <cstdlib>

#include "field_device.h"

namespace {

constexpr char kName[] = "NEC_VECTOR_ENGINE";
constexpr char kType[] = "VE";

SP_Stream_st the_stream{};

void GetDeviceCount(const SP_Platform* /*platform*/, int* device_count, TF_Status* status) {
  *device_count = 1;
  TF_SetStatus(status, TF_OK, "");
}

void CreateDevice(const SP_Platform* /*platform*/, SE_CreateDeviceParams* params,
                  TF_Status* status) {
  if (params->ordinal != 0) {
    TF_SetStatus(status, TF_NOT_FOUND, "VE: no such device");
    return;
  }
  params->device->ordinal = 0;
  params->device->hardware_name = "VE host-memory device";
  TF_SetStatus(status, TF_OK, "");
}

void DestroyDevice(const SP_Platform* /*platform*/, SP_Device* /*device*/) {}

void CreateDeviceFns(const SP_Platform* /*platform*/, SE_CreateDeviceFnsParams* /*params*/,
                     TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
}

void DestroyDeviceFns(const SP_Platform* /*platform*/, SP_DeviceFns* /*device_fns*/) {}

void CreateStream(const SP_Device* /*device*/, SP_Stream* stream, TF_Status* status) {
  *stream = &the_stream;
  TF_SetStatus(status, TF_OK, "");
}

void DestroyStream(const SP_Device* /*device*/, SP_Stream /*stream*/) {}

// Unified memory is host memory that the device addresses directly.
void* UnifiedMemoryAllocate(const SP_Device* /*device*/, uint64_t bytes) {
  void* block = nullptr;
  if (bytes == 0 || posix_memalign(&block, kFieldAlignment, bytes) != 0) return nullptr;
  return block;
}

void UnifiedMemoryDeallocate(const SP_Device* /*device*/, void* location) { std::free(location); }

void CreateStreamExecutor(const SP_Platform* /*platform*/, SE_CreateStreamExecutorParams* params,
                          TF_Status* status) {
  SP_StreamExecutor* se = params->stream_executor;
  se->allocate = FieldAllocate;
  se->deallocate = FieldDeallocate;
  se->host_memory_allocate = FieldHostMemoryAllocate;
  se->host_memory_deallocate = FieldHostMemoryDeallocate;
  se->unified_memory_allocate = UnifiedMemoryAllocate;
  se->unified_memory_deallocate = UnifiedMemoryDeallocate;
  se->get_allocator_stats = FieldGetAllocatorStats;
  se->device_memory_usage = FieldDeviceMemoryUsage;
  se->create_stream = CreateStream;
  se->destroy_stream = DestroyStream;
  se->create_stream_dependency = FieldCreateStreamDependency;
  se->get_stream_status = FieldGetStreamStatus;
  se->create_event = FieldCreateEvent;
  se->destroy_event = FieldDestroyEvent;
  se->get_event_status = FieldGetEventStatus;
  se->record_event = FieldRecordEvent;
  se->wait_for_event = FieldWaitForEvent;
  se->create_timer = FieldCreateTimer;
  se->destroy_timer = FieldDestroyTimer;
  se->start_timer = FieldStartTimer;
  se->stop_timer = FieldStopTimer;
  se->memcpy_dtoh = FieldMemcpyDtoH;
  se->memcpy_htod = FieldMemcpyHtoD;
  se->memcpy_dtod = FieldMemcpyDtoD;
  se->sync_memcpy_dtoh = FieldSyncMemcpyDtoH;
  se->sync_memcpy_htod = FieldSyncMemcpyHtoD;
  se->sync_memcpy_dtod = FieldSyncMemcpyDtoD;
  se->block_host_for_event = FieldBlockHostForEvent;
  se->block_host_until_done = FieldBlockHostUntilDone;
  se->synchronize_all_activity = FieldSynchronizeAllActivity;
  se->mem_zero = FieldMemZero;
  se->memset = FieldMemset;
  se->memset32 = FieldMemset32;
  se->host_callback = FieldHostCallback;
  TF_SetStatus(status, TF_OK, "");
}

void DestroyStreamExecutor(const SP_Platform* /*platform*/, SP_StreamExecutor* /*se*/) {}

void CreateTimerFns(const SP_Platform* /*platform*/, SP_TimerFns* timer_fns, TF_Status* status) {
  timer_fns->nanoseconds = FieldNanoseconds;
  TF_SetStatus(status, TF_OK, "");
}

void DestroyTimerFns(const SP_Platform* /*platform*/, SP_TimerFns* /*timer_fns*/) {}
void DestroyPlatform(SP_Platform* /*platform*/) {}
void DestroyPlatformFns(SP_PlatformFns* /*platform_fns*/) {}

}  // namespace

extern "C" TF_CAPI_EXPORT void SE_InitPlugin(SE_PlatformRegistrationParams* params,
                                             TF_Status* status) {
  params->platform->name = kName;
  params->platform->type = kType;
  params->platform->supports_unified_memory = 1;
  params->platform->use_bfc_allocator = 0;

  SP_PlatformFns* fns = params->platform_fns;
  fns->get_device_count = GetDeviceCount;
  fns->create_device = CreateDevice;
  fns->destroy_device = DestroyDevice;
  fns->create_device_fns = CreateDeviceFns;
  fns->destroy_device_fns = DestroyDeviceFns;
  fns->create_stream_executor = CreateStreamExecutor;
  fns->destroy_stream_executor = DestroyStreamExecutor;
  fns->create_timer_fns = CreateTimerFns;
  fns->destroy_timer_fns = DestroyTimerFns;

  params->destroy_platform = DestroyPlatform;
  params->destroy_platform_fns = DestroyPlatformFns;
  TF_SetStatus(status, TF_OK, "");
}
