// field_synchronous: written the way Microsoft's DirectML plugin is.
//
// Style: everything synchronous; memcpy_dtoh blocks until the bytes are on
// the host; zero-size copies return OK before looking at any pointer;
// create_event does nothing and hands back a null handle (so TensorFlow
// never destroys it), get_event_status always answers COMPLETE; BFC with
// force_memory_growth; host_callback runs the callback at once and returns
// true. Name "DML", type "GPU".
#include "field_device.h"

namespace {

constexpr char kName[] = "DML";
constexpr char kType[] = "GPU";

void GetDeviceCount(const SP_Platform* /*platform*/, int* device_count, TF_Status* status) {
  *device_count = 1;
  TF_SetStatus(status, TF_OK, "");
}

void CreateDevice(const SP_Platform* /*platform*/, SE_CreateDeviceParams* params,
                  TF_Status* status) {
  if (params->ordinal != 0) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "DML: adapter ordinal out of range");
    return;
  }
  params->device->struct_size = SP_DEVICE_STRUCT_SIZE;
  params->device->ordinal = 0;
  params->device->hardware_name = "DML host-memory adapter";
  params->device->device_vendor = "field corpus";
  TF_SetStatus(status, TF_OK, "");
}

void DestroyDevice(const SP_Platform* /*platform*/, SP_Device* /*device*/) {}

void CreateDeviceFns(const SP_Platform* /*platform*/, SE_CreateDeviceFnsParams* params,
                     TF_Status* status) {
  params->device_fns->struct_size = SP_DEVICE_FNS_STRUCT_SIZE;
  TF_SetStatus(status, TF_OK, "");
}

void DestroyDeviceFns(const SP_Platform* /*platform*/, SP_DeviceFns* /*device_fns*/) {}

// Events carry nothing: every operation has finished when it returns.
void CreateEvent(const SP_Device* /*device*/, SP_Event* /*event*/, TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
}

void DestroyEvent(const SP_Device* /*device*/, SP_Event /*event*/) {}

SE_EventStatus GetEventStatus(const SP_Device* /*device*/, SP_Event /*event*/) {
  return SE_EVENT_COMPLETE;
}

void RecordEvent(const SP_Device* /*device*/, SP_Stream /*stream*/, SP_Event /*event*/,
                 TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
}

void CreateStreamExecutor(const SP_Platform* /*platform*/, SE_CreateStreamExecutorParams* params,
                          TF_Status* status) {
  SP_StreamExecutor* se = params->stream_executor;
  se->struct_size = SP_STREAMEXECUTOR_STRUCT_SIZE;
  se->allocate = FieldAllocate;
  se->deallocate = FieldDeallocate;
  se->host_memory_allocate = FieldHostMemoryAllocate;
  se->host_memory_deallocate = FieldHostMemoryDeallocate;
  se->get_allocator_stats = FieldGetAllocatorStats;
  se->device_memory_usage = FieldDeviceMemoryUsage;
  se->create_stream = FieldCreateStream;
  se->destroy_stream = FieldDestroyStream;
  se->create_stream_dependency = FieldCreateStreamDependency;
  se->get_stream_status = FieldGetStreamStatus;
  se->create_event = CreateEvent;
  se->destroy_event = DestroyEvent;
  se->get_event_status = GetEventStatus;
  se->record_event = RecordEvent;
  se->wait_for_event = FieldWaitForEvent;
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
void DestroyTimerFns(const SP_Platform* /*platform*/, SP_TimerFns* /*timer_fns*/) {}
void DestroyPlatform(SP_Platform* /*platform*/) {}
void DestroyPlatformFns(SP_PlatformFns* /*platform_fns*/) {}

}  // namespace

extern "C" TF_CAPI_EXPORT void SE_InitPlugin(SE_PlatformRegistrationParams* params,
                                             TF_Status* status) {
  params->platform->struct_size = SP_PLATFORM_STRUCT_SIZE;
  params->platform->name = kName;
  params->platform->type = kType;
  params->platform->supports_unified_memory = 0;
  params->platform->use_bfc_allocator = 1;
  params->platform->force_memory_growth = 1;

  SP_PlatformFns* fns = params->platform_fns;
  fns->struct_size = SP_PLATFORM_FNS_STRUCT_SIZE;
  fns->get_device_count = GetDeviceCount;
  fns->create_device = CreateDevice;
  fns->destroy_device = DestroyDevice;
  fns->create_device_fns = CreateDeviceFns;
  fns->destroy_device_fns = DestroyDeviceFns;
  fns->create_stream_executor = CreateStreamExecutor;
  fns->destroy_stream_executor = DestroyStreamExecutor;
  fns->destroy_timer_fns = DestroyTimerFns;  // the newest TF never asks for timers

  params->destroy_platform = DestroyPlatform;
  params->destroy_platform_fns = DestroyPlatformFns;
  TF_SetStatus(status, TF_OK, "");
}
