// field_tf_test_plugin: behaves as TensorFlow's own test plugin
// (test_pluggable_device.so over stream_executor_test_util.cc,
// se-c-api-facts.md §4.1), which TensorFlow's unit tests register and which
// plugin authors copy as a starting point.
//
// Every callback is a no-op that reports success:
//  - allocate leaves `mem` untouched, so opaque stays null;
//  - create_stream and create_event hand back null handles;
//  - get_event_status answers UNKNOWN, whatever the event went through;
//  - host_callback returns true and never calls the callback;
//  - create_timer sets nothing, and nanoseconds reads `timer->timer_id`
//    through the null handle it got (SIGSEGV);
//  - copies, waits and fills do nothing; get_allocator_stats and
//    device_memory_usage return true without filling anything.
// Two devices named "MY_DEVICE" of type "GPU"; the statuses of most
// callbacks are never written (the host's fresh TF_Status is OK). No
// block_host_until_done, memcpy_dtod or sync_memcpy_dtod, as in test_util.
//
// tests/field_corpus_test.cc asserts which checks catch each defect, with
// which root cause, under TensorFlow 2.10 (timers required) and latest.
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

struct SP_Stream_st {
  int stream_id;
};
struct SP_Event_st {
  int event_id;
};
struct SP_Timer_st {
  int timer_id;
};

namespace {

constexpr int kDeviceCount = 2;
constexpr char kDeviceName[] = "MY_DEVICE";
constexpr char kDeviceType[] = "GPU";

// ---- SP_StreamExecutor: every member a no-op ---------------------------------

void Allocate(const SP_Device* /*device*/, uint64_t /*size*/, int64_t /*memory_space*/,
              SP_DeviceMemoryBase* /*mem*/) {}
void Deallocate(const SP_Device* /*device*/, SP_DeviceMemoryBase* /*mem*/) {}
void* HostMemoryAllocate(const SP_Device* /*device*/, uint64_t /*size*/) { return nullptr; }
void HostMemoryDeallocate(const SP_Device* /*device*/, void* /*mem*/) {}
TF_Bool GetAllocatorStats(const SP_Device* /*device*/, SP_AllocatorStats* /*stats*/) { return 1; }
TF_Bool DeviceMemoryUsage(const SP_Device* /*device*/, int64_t* /*free*/, int64_t* /*total*/) {
  return 1;
}
void CreateStream(const SP_Device* /*device*/, SP_Stream* stream, TF_Status* /*status*/) {
  *stream = nullptr;
}
void DestroyStream(const SP_Device* /*device*/, SP_Stream /*stream*/) {}
void CreateStreamDependency(const SP_Device* /*device*/, SP_Stream /*dependent*/,
                            SP_Stream /*other*/, TF_Status* /*status*/) {}
void GetStreamStatus(const SP_Device* /*device*/, SP_Stream /*stream*/, TF_Status* /*status*/) {}
void CreateEvent(const SP_Device* /*device*/, SP_Event* event, TF_Status* /*status*/) {
  *event = nullptr;
}
void DestroyEvent(const SP_Device* /*device*/, SP_Event /*event*/) {}
SE_EventStatus GetEventStatus(const SP_Device* /*device*/, SP_Event /*event*/) {
  return SE_EVENT_UNKNOWN;
}
void RecordEvent(const SP_Device* /*device*/, SP_Stream /*stream*/, SP_Event /*event*/,
                 TF_Status* /*status*/) {}
void WaitForEvent(const SP_Device* /*device*/, SP_Stream /*stream*/, SP_Event /*event*/,
                  TF_Status* /*status*/) {}
void CreateTimer(const SP_Device* /*device*/, SP_Timer* /*timer*/, TF_Status* /*status*/) {}
void DestroyTimer(const SP_Device* /*device*/, SP_Timer /*timer*/) {}
void StartOrStopTimer(const SP_Device* /*device*/, SP_Stream /*stream*/, SP_Timer /*timer*/,
                      TF_Status* /*status*/) {}
void MemcpyDtoH(const SP_Device* /*device*/, SP_Stream /*stream*/, void* /*host_dst*/,
                const SP_DeviceMemoryBase* /*device_src*/, uint64_t /*size*/,
                TF_Status* /*status*/) {}
void MemcpyHtoD(const SP_Device* /*device*/, SP_Stream /*stream*/,
                SP_DeviceMemoryBase* /*device_dst*/, const void* /*host_src*/, uint64_t /*size*/,
                TF_Status* /*status*/) {}
void SyncMemcpyDtoH(const SP_Device* /*device*/, void* /*host_dst*/,
                    const SP_DeviceMemoryBase* /*device_src*/, uint64_t /*size*/,
                    TF_Status* /*status*/) {}
void SyncMemcpyHtoD(const SP_Device* /*device*/, SP_DeviceMemoryBase* /*device_dst*/,
                    const void* /*host_src*/, uint64_t /*size*/, TF_Status* /*status*/) {}
void BlockHostForEvent(const SP_Device* /*device*/, SP_Event /*event*/, TF_Status* /*status*/) {}
void SynchronizeAllActivity(const SP_Device* /*device*/, TF_Status* /*status*/) {}
TF_Bool HostCallback(const SP_Device* /*device*/, SP_Stream /*stream*/,
                     SE_StatusCallbackFn /*callback_fn*/, void* /*callback_arg*/) {
  return 1;  // "enqueued", and never called
}
void MemZero(const SP_Device* /*device*/, SP_Stream /*stream*/, SP_DeviceMemoryBase* /*location*/,
             uint64_t /*size*/, TF_Status* /*status*/) {}
void Memset(const SP_Device* /*device*/, SP_Stream /*stream*/, SP_DeviceMemoryBase* /*location*/,
            uint8_t /*pattern*/, uint64_t /*size*/, TF_Status* /*status*/) {}
void Memset32(const SP_Device* /*device*/, SP_Stream /*stream*/, SP_DeviceMemoryBase* /*location*/,
              uint32_t /*pattern*/, uint64_t /*size*/, TF_Status* /*status*/) {}

// ---- Timers: the handle create_timer never set, read through --------------------

uint64_t Nanoseconds(SP_Timer timer) { return static_cast<uint64_t>(timer->timer_id); }

// ---- Registration -------------------------------------------------------------

void PopulateStreamExecutor(SP_StreamExecutor* se) {
  *se = {SP_STREAMEXECUTOR_STRUCT_SIZE};
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
  se->create_timer = CreateTimer;
  se->destroy_timer = DestroyTimer;
  se->start_timer = StartOrStopTimer;
  se->stop_timer = StartOrStopTimer;
  se->memcpy_dtoh = MemcpyDtoH;
  se->memcpy_htod = MemcpyHtoD;
  se->sync_memcpy_dtoh = SyncMemcpyDtoH;
  se->sync_memcpy_htod = SyncMemcpyHtoD;
  se->block_host_for_event = BlockHostForEvent;
  se->synchronize_all_activity = SynchronizeAllActivity;
  se->host_callback = HostCallback;
  se->mem_zero = MemZero;
  se->memset = Memset;
  se->memset32 = Memset32;
}

void CreateStreamExecutor(const SP_Platform* /*platform*/, SE_CreateStreamExecutorParams* params,
                          TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  PopulateStreamExecutor(params->stream_executor);
}
void DestroyStreamExecutor(const SP_Platform* /*platform*/, SP_StreamExecutor* /*se*/) {}

// The timer functions without struct_size: the host pre-filled it.
void CreateTimerFns(const SP_Platform* /*platform*/, SP_TimerFns* timer_fns, TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  timer_fns->nanoseconds = Nanoseconds;
}
void DestroyTimerFns(const SP_Platform* /*platform*/, SP_TimerFns* /*timer_fns*/) {}

void GetDeviceCount(const SP_Platform* /*platform*/, int* device_count, TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  *device_count = kDeviceCount;
}
// Every ordinal gets a device; only struct_size is written.
void CreateDevice(const SP_Platform* /*platform*/, SE_CreateDeviceParams* params,
                  TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  params->device->struct_size = SP_DEVICE_STRUCT_SIZE;
}
void DestroyDevice(const SP_Platform* /*platform*/, SP_Device* /*device*/) {}
void CreateDeviceFns(const SP_Platform* /*platform*/, SE_CreateDeviceFnsParams* params,
                     TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  params->device_fns->struct_size = SP_DEVICE_FNS_STRUCT_SIZE;
}
void DestroyDeviceFns(const SP_Platform* /*platform*/, SP_DeviceFns* /*device_fns*/) {}
void DestroyPlatform(SP_Platform* /*platform*/) {}
void DestroyPlatformFns(SP_PlatformFns* /*platform_fns*/) {}

}  // namespace

extern "C" TF_CAPI_EXPORT void SE_InitPlugin(SE_PlatformRegistrationParams* params,
                                             TF_Status* /*status*/) {
  SP_Platform* platform = params->platform;
  SP_PlatformFns* platform_fns = params->platform_fns;
  *platform = {SP_PLATFORM_STRUCT_SIZE};
  platform->name = kDeviceName;
  platform->type = kDeviceType;
  platform_fns->get_device_count = GetDeviceCount;
  platform_fns->create_device = CreateDevice;
  platform_fns->destroy_device = DestroyDevice;
  platform_fns->create_device_fns = CreateDeviceFns;
  platform_fns->destroy_device_fns = DestroyDeviceFns;
  platform_fns->create_stream_executor = CreateStreamExecutor;
  platform_fns->destroy_stream_executor = DestroyStreamExecutor;
  platform_fns->create_timer_fns = CreateTimerFns;
  platform_fns->destroy_timer_fns = DestroyTimerFns;
  params->destroy_platform = DestroyPlatform;
  params->destroy_platform_fns = DestroyPlatformFns;
}

// test_pluggable_device.cc defines an empty TF_InitKernel beside SE_InitPlugin.
extern "C" TF_CAPI_EXPORT void TF_InitKernel() {}
