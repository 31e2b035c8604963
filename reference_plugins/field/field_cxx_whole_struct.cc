// field_cxx_whole_struct: a C++ plugin that assigns every struct whole, from
// designated initialisers, as modern C++ vendors write it:
// `*se = SP_StreamExecutor{.struct_size = ..., .allocate = ...}`.
//
// The 288-byte SP_StreamExecutor of the header it is built against is written
// unconditionally, whatever struct_size the host pre-filled. That harms no
// TensorFlow built against the same header (2.7 and later, `latest`); only
// TensorFlow 2.5/2.6, whose struct is 264 bytes, would be hurt, which is what
// compat.tf_2_5 is for. The platform name and type live in static
// std::strings, as C++ plugins keep them.
//
// The defect corpus (field_defects.h) is this plugin with one function
// replaced; FIELD_DEFECT_* selects which.
#include <string>

#include "field_device.h"

#ifdef FIELD_DEFECT
#include "field_defects.h"
#endif

#ifndef FIELD_ALLOCATE
#define FIELD_ALLOCATE FieldAllocate
#endif
#ifndef FIELD_DEALLOCATE
#define FIELD_DEALLOCATE FieldDeallocate
#endif
#ifndef FIELD_HOST_CALLBACK
#define FIELD_HOST_CALLBACK FieldHostCallback
#endif
#ifndef FIELD_CREATE_TIMER
#define FIELD_CREATE_TIMER FieldCreateTimer
#endif
#ifndef FIELD_START_TIMER
#define FIELD_START_TIMER FieldStartTimer
#endif
#ifndef FIELD_STOP_TIMER
#define FIELD_STOP_TIMER FieldStopTimer
#endif
#ifndef FIELD_SYNC_MEMCPY_HTOD
#define FIELD_SYNC_MEMCPY_HTOD FieldSyncMemcpyHtoD
#endif
#ifndef FIELD_DESTROY_STREAM
#define FIELD_DESTROY_STREAM FieldDestroyStream
#endif
#ifndef FIELD_DESTROY_EVENT
#define FIELD_DESTROY_EVENT FieldDestroyEvent
#endif
#ifndef FIELD_GET_EVENT_STATUS
#define FIELD_GET_EVENT_STATUS FieldGetEventStatus
#endif
// How create_device turns down an ordinal it does not have.
#ifndef FIELD_REFUSE_ORDINAL
#define FIELD_REFUSE_ORDINAL(status) \
  TF_SetStatus(status, TF_OUT_OF_RANGE, "no device with this ordinal")
#endif

namespace {

constexpr int kDeviceCount = 1;

// Set once by SE_InitPlugin, then only read: TensorFlow copies the pointers.
std::string& PlatformName() {
  static std::string name = "WHOLE_STRUCT";
  return name;
}

std::string& DeviceType() {
  static std::string type = "WHOLE_STRUCT";
  return type;
}

void GetDeviceCount(const SP_Platform* /*platform*/, int* device_count, TF_Status* status) {
  *device_count = kDeviceCount;
  TF_SetStatus(status, TF_OK, "");
}

void CreateDevice(const SP_Platform* /*platform*/, SE_CreateDeviceParams* params,
                  TF_Status* status) {
  if (params->ordinal < 0 || params->ordinal >= kDeviceCount) {
    FIELD_REFUSE_ORDINAL(status);
    return;
  }
  *params->device = SP_Device{.struct_size = SP_DEVICE_STRUCT_SIZE,
                              .ordinal = params->ordinal,
                              .hardware_name = "whole-struct host device",
                              .device_vendor = "field corpus"};
  TF_SetStatus(status, TF_OK, "");
}

void DestroyDevice(const SP_Platform* /*platform*/, SP_Device* /*device*/) {}

int32_t GetNumaNode(const SP_Device* /*device*/) { return 0; }

void CreateDeviceFns(const SP_Platform* /*platform*/, SE_CreateDeviceFnsParams* params,
                     TF_Status* status) {
  *params->device_fns =
      SP_DeviceFns{.struct_size = SP_DEVICE_FNS_STRUCT_SIZE, .get_numa_node = GetNumaNode};
  TF_SetStatus(status, TF_OK, "");
}

void DestroyDeviceFns(const SP_Platform* /*platform*/, SP_DeviceFns* /*device_fns*/) {}

void CreateStreamExecutor(const SP_Platform* /*platform*/, SE_CreateStreamExecutorParams* params,
                          TF_Status* status) {
  *params->stream_executor = SP_StreamExecutor{
      .struct_size = SP_STREAMEXECUTOR_STRUCT_SIZE,
      .allocate = FIELD_ALLOCATE,
      .deallocate = FIELD_DEALLOCATE,
      .host_memory_allocate = FieldHostMemoryAllocate,
      .host_memory_deallocate = FieldHostMemoryDeallocate,
      .get_allocator_stats = FieldGetAllocatorStats,
      .device_memory_usage = FieldDeviceMemoryUsage,
      .create_stream = FieldCreateStream,
      .destroy_stream = FIELD_DESTROY_STREAM,
      .create_stream_dependency = FieldCreateStreamDependency,
      .get_stream_status = FieldGetStreamStatus,
      .create_event = FieldCreateEvent,
      .destroy_event = FIELD_DESTROY_EVENT,
      .get_event_status = FIELD_GET_EVENT_STATUS,
      .record_event = FieldRecordEvent,
      .wait_for_event = FieldWaitForEvent,
      .create_timer = FIELD_CREATE_TIMER,
      .destroy_timer = FieldDestroyTimer,
      .start_timer = FIELD_START_TIMER,
      .stop_timer = FIELD_STOP_TIMER,
      .memcpy_dtoh = FieldMemcpyDtoH,
      .memcpy_htod = FieldMemcpyHtoD,
      .memcpy_dtod = FieldMemcpyDtoD,
      .sync_memcpy_dtoh = FieldSyncMemcpyDtoH,
      .sync_memcpy_htod = FIELD_SYNC_MEMCPY_HTOD,
      .sync_memcpy_dtod = FieldSyncMemcpyDtoD,
      .block_host_for_event = FieldBlockHostForEvent,
      .block_host_until_done = FieldBlockHostUntilDone,
      .synchronize_all_activity = FieldSynchronizeAllActivity,
      .mem_zero = FieldMemZero,
      .memset = FieldMemset,
      .memset32 = FieldMemset32,
      .host_callback = FIELD_HOST_CALLBACK,
  };
  TF_SetStatus(status, TF_OK, "");
}

void DestroyStreamExecutor(const SP_Platform* /*platform*/, SP_StreamExecutor* /*se*/) {}

void CreateTimerFns(const SP_Platform* /*platform*/, SP_TimerFns* timer_fns, TF_Status* status) {
  *timer_fns =
      SP_TimerFns{.struct_size = SP_TIMER_FNS_STRUCT_SIZE, .nanoseconds = FieldNanoseconds};
  TF_SetStatus(status, TF_OK, "");
}

void DestroyTimerFns(const SP_Platform* /*platform*/, SP_TimerFns* /*timer_fns*/) {}
void DestroyPlatform(SP_Platform* /*platform*/) {}
void DestroyPlatformFns(SP_PlatformFns* /*platform_fns*/) {}

}  // namespace

extern "C" TF_CAPI_EXPORT void SE_InitPlugin(SE_PlatformRegistrationParams* params,
                                             TF_Status* status) {
  *params->platform = SP_Platform{.struct_size = SP_PLATFORM_STRUCT_SIZE,
                                  .name = PlatformName().c_str(),
                                  .type = DeviceType().c_str(),
                                  .use_bfc_allocator = 1};
  *params->platform_fns = SP_PlatformFns{
      .struct_size = SP_PLATFORM_FNS_STRUCT_SIZE,
      .get_device_count = GetDeviceCount,
      .create_device = CreateDevice,
      .destroy_device = DestroyDevice,
      .create_device_fns = CreateDeviceFns,
      .destroy_device_fns = DestroyDeviceFns,
      .create_stream_executor = CreateStreamExecutor,
      .destroy_stream_executor = DestroyStreamExecutor,
      .create_timer_fns = CreateTimerFns,
      .destroy_timer_fns = DestroyTimerFns,
  };
  params->destroy_platform = DestroyPlatform;
  params->destroy_platform_fns = DestroyPlatformFns;
  TF_SetStatus(status, TF_OK, "");
}
