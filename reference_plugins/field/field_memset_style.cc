// field_memset_style: written the way Moore Threads' MUSA plugin fills
// TensorFlow's structs: each struct the host hands over is memset to zero
// first, then its *_STRUCT_SIZE and members are set. Two devices, each with
// its own device_handle and SP_DeviceFns getters.
#include <cstring>

#include "field_device.h"

namespace {

constexpr char kName[] = "MUSA";
constexpr int kDeviceCount = 2;

struct MusaDevice {
  int32_t ordinal;
  int32_t numa_node;
};

MusaDevice musa_devices[kDeviceCount] = {{0, 0}, {1, 0}};

void GetDeviceCount(const SP_Platform* /*platform*/, int* device_count, TF_Status* status) {
  *device_count = kDeviceCount;
  TF_SetStatus(status, TF_OK, "");
}

void CreateDevice(const SP_Platform* /*platform*/, SE_CreateDeviceParams* params,
                  TF_Status* status) {
  if (params->ordinal < 0 || params->ordinal >= kDeviceCount) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "MUSA: invalid device ordinal");
    return;
  }
  SP_Device* device = params->device;
  std::memset(device, 0, sizeof(SP_Device));
  device->struct_size = SP_DEVICE_STRUCT_SIZE;
  device->ordinal = params->ordinal;
  device->device_handle = &musa_devices[params->ordinal];
  device->hardware_name = "MUSA host-memory device";
  device->device_vendor = "field corpus";
  device->pci_bus_id = params->ordinal == 0 ? "0000:00:00.0" : "0000:00:01.0";
  TF_SetStatus(status, TF_OK, "");
}

void DestroyDevice(const SP_Platform* /*platform*/, SP_Device* device) {
  device->device_handle = nullptr;
}

int32_t GetNumaNode(const SP_Device* device) {
  return static_cast<const MusaDevice*>(device->device_handle)->numa_node;
}

int64_t GetMemoryBandwidth(const SP_Device* /*device*/) { return int64_t{10} << 30; }

void CreateDeviceFns(const SP_Platform* /*platform*/, SE_CreateDeviceFnsParams* params,
                     TF_Status* status) {
  SP_DeviceFns* device_fns = params->device_fns;
  std::memset(device_fns, 0, sizeof(SP_DeviceFns));
  device_fns->struct_size = SP_DEVICE_FNS_STRUCT_SIZE;
  device_fns->get_numa_node = GetNumaNode;
  device_fns->get_memory_bandwidth = GetMemoryBandwidth;
  TF_SetStatus(status, TF_OK, "");
}

void DestroyDeviceFns(const SP_Platform* /*platform*/, SP_DeviceFns* /*device_fns*/) {}

void CreateStreamExecutor(const SP_Platform* /*platform*/, SE_CreateStreamExecutorParams* params,
                          TF_Status* status) {
  SP_StreamExecutor* se = params->stream_executor;
  std::memset(se, 0, sizeof(SP_StreamExecutor));
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
  std::memset(timer_fns, 0, sizeof(SP_TimerFns));
  timer_fns->struct_size = SP_TIMER_FNS_STRUCT_SIZE;
  timer_fns->nanoseconds = FieldNanoseconds;
  TF_SetStatus(status, TF_OK, "");
}

void DestroyTimerFns(const SP_Platform* /*platform*/, SP_TimerFns* /*timer_fns*/) {}
void DestroyPlatform(SP_Platform* /*platform*/) {}
void DestroyPlatformFns(SP_PlatformFns* /*platform_fns*/) {}

}  // namespace

extern "C" TF_CAPI_EXPORT void SE_InitPlugin(SE_PlatformRegistrationParams* params,
                                             TF_Status* status) {
  SP_Platform* platform = params->platform;
  std::memset(platform, 0, sizeof(SP_Platform));
  platform->struct_size = SP_PLATFORM_STRUCT_SIZE;
  platform->name = kName;
  platform->type = kName;
  platform->use_bfc_allocator = 1;

  SP_PlatformFns* fns = params->platform_fns;
  std::memset(fns, 0, sizeof(SP_PlatformFns));
  fns->struct_size = SP_PLATFORM_FNS_STRUCT_SIZE;
  fns->get_device_count = GetDeviceCount;
  fns->create_device = CreateDevice;
  fns->destroy_device = DestroyDevice;
  fns->create_device_fns = CreateDeviceFns;
  fns->destroy_device_fns = DestroyDeviceFns;
  fns->create_stream_executor = CreateStreamExecutor;
  fns->destroy_stream_executor = DestroyStreamExecutor;
  fns->create_timer_fns = CreateTimerFns;
  fns->destroy_timer_fns = DestroyTimerFns;

  params->struct_size = SE_PLATFORM_REGISTRATION_PARAMS_STRUCT_SIZE;
  params->destroy_platform = DestroyPlatform;
  params->destroy_platform_fns = DestroyPlatformFns;
  TF_SetStatus(status, TF_OK, "");
}
