// field_test_util_style: written the way TensorFlow's own test plugin
// (stream_executor_test_util.cc) is, but with callbacks that really work.
//
// Style kept from test_util: each struct is assigned whole from a braced
// initialiser holding its *_STRUCT_SIZE (`*platform = {SP_PLATFORM_STRUCT_SIZE}`),
// platform_fns->struct_size is never written (TensorFlow pre-fills it), two
// devices named "MY_DEVICE" of type "GPU", create_timer_fns fills the
// timer functions, and allocate is malloc-like: a 0-byte request gets a
// unique non-null pointer, as malloc(0) gives in glibc.
#include "field_device.h"

namespace {

constexpr int kDeviceCount = 2;
constexpr char kDeviceName[] = "MY_DEVICE";
constexpr char kDeviceType[] = "GPU";

void GetDeviceCount(const SP_Platform* /*platform*/, int* device_count, TF_Status* status) {
  *device_count = kDeviceCount;
  TF_SetStatus(status, TF_OK, "");
}

void CreateDevice(const SP_Platform* /*platform*/, SE_CreateDeviceParams* params,
                  TF_Status* status) {
  if (params->ordinal < 0 || params->ordinal >= kDeviceCount) {
    TF_SetStatus(status, TF_OUT_OF_RANGE, "MY_DEVICE: no device with this ordinal");
    return;
  }
  *params->device = {SP_DEVICE_STRUCT_SIZE};
  params->device->ordinal = params->ordinal;
  TF_SetStatus(status, TF_OK, "");
}

void DestroyDevice(const SP_Platform* /*platform*/, SP_Device* /*device*/) {}

void CreateDeviceFns(const SP_Platform* /*platform*/, SE_CreateDeviceFnsParams* params,
                     TF_Status* status) {
  params->device_fns->struct_size = SP_DEVICE_FNS_STRUCT_SIZE;
  TF_SetStatus(status, TF_OK, "");
}

void DestroyDeviceFns(const SP_Platform* /*platform*/, SP_DeviceFns* /*device_fns*/) {}

void Allocate(const SP_Device* /*device*/, uint64_t size, int64_t /*memory_space*/,
              SP_DeviceMemoryBase* mem) {
  // One byte for a 0-byte request: its pointer is unique and may be freed.
  mem->opaque = FieldAllocateBlock(size == 0 ? 1 : size);
  mem->size = mem->opaque != nullptr ? size : 0;
  mem->payload = 0;
}

void PopulateDefaultStreamExecutor(SP_StreamExecutor* se) {
  *se = {SP_STREAMEXECUTOR_STRUCT_SIZE};
  se->allocate = Allocate;
  se->deallocate = FieldDeallocate;
  se->host_memory_allocate = FieldHostMemoryAllocate;
  se->host_memory_deallocate = FieldHostMemoryDeallocate;
  se->get_allocator_stats = FieldGetAllocatorStats;
  se->device_memory_usage = FieldDeviceMemoryUsage;
  se->create_stream = FieldCreateStream;
  se->destroy_stream = FieldDestroyStream;
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
}

void CreateStreamExecutor(const SP_Platform* /*platform*/, SE_CreateStreamExecutorParams* params,
                          TF_Status* status) {
  PopulateDefaultStreamExecutor(params->stream_executor);
  TF_SetStatus(status, TF_OK, "");
}

void DestroyStreamExecutor(const SP_Platform* /*platform*/, SP_StreamExecutor* /*se*/) {}

void CreateTimerFns(const SP_Platform* /*platform*/, SP_TimerFns* timer_fns, TF_Status* status) {
  *timer_fns = {SP_TIMER_FNS_STRUCT_SIZE};
  timer_fns->nanoseconds = FieldNanoseconds;
  TF_SetStatus(status, TF_OK, "");
}

void DestroyTimerFns(const SP_Platform* /*platform*/, SP_TimerFns* /*timer_fns*/) {}

void DestroyPlatform(SP_Platform* /*platform*/) {}
void DestroyPlatformFns(SP_PlatformFns* /*platform_fns*/) {}

// As test_util: the platform struct whole, the platform_fns members one by
// one with no struct_size, leaving the host's pre-filled value.
void PopulateDefaultPlatform(SP_Platform* platform, SP_PlatformFns* platform_fns) {
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
}

}  // namespace

extern "C" TF_CAPI_EXPORT void SE_InitPlugin(SE_PlatformRegistrationParams* params,
                                             TF_Status* status) {
  PopulateDefaultPlatform(params->platform, params->platform_fns);
  params->destroy_platform = DestroyPlatform;
  params->destroy_platform_fns = DestroyPlatformFns;
  TF_SetStatus(status, TF_OK, "");
}

// Like TensorFlow's sample plugin, the library also carries kernels: the
// host calls TF_InitKernel after SE_InitPlugin to register them. There are
// none here; the symbol is what matters (the validation layer must hand the
// host this very function, tests/validate_layer_test.cc).
extern "C" TF_CAPI_EXPORT void TF_InitKernel() {}
