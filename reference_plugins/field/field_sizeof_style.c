/* field_sizeof_style: written the way the Rust plugin (rust-tf-pluggabledevice)
 * and DirectML fill TensorFlow's structs.
 *
 * Style: every struct_size the plugin writes is sizeof(the struct), as
 * `size_of::<T>()` gives in Rust (SP_Platform: 40, not the 36 of
 * SP_PLATFORM_STRUCT_SIZE), including params->struct_size, and the version
 * fields of the registration params are overwritten with the plugin's own
 * version (DirectML writes its plugin version; TensorFlow never reads them
 * back). Plain C. */
#include "field_device.h"

enum { kPluginMajor = 1, kPluginMinor = 4, kPluginPatch = 2 };

static const char kName[] = "RUSTY";
static const char kType[] = "RUSTY";

static void GetDeviceCount(const SP_Platform* platform, int* device_count, TF_Status* status) {
  (void)platform;
  *device_count = 1;
  FieldSetOk(status);
}

static void CreateDevice(const SP_Platform* platform, SE_CreateDeviceParams* params,
                         TF_Status* status) {
  (void)platform;
  if (params->ordinal != 0) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "rusty: only device 0 exists");
    return;
  }
  SP_Device* device = params->device;
  device->struct_size = sizeof(SP_Device);
  device->ordinal = 0;
  device->device_handle = NULL;
  device->hardware_name = "rusty host device";
  device->device_vendor = "rusty";
  device->pci_bus_id = NULL;
  FieldSetOk(status);
}

static void DestroyDevice(const SP_Platform* platform, SP_Device* device) {
  (void)platform;
  (void)device;
}

static int32_t GetNumaNode(const SP_Device* device) {
  (void)device;
  return -1;
}

static int64_t GetMemoryBandwidth(const SP_Device* device) {
  (void)device;
  return (int64_t)20 << 30;
}

static double GetGflops(const SP_Device* device) {
  (void)device;
  return 100.0;
}

static void CreateDeviceFns(const SP_Platform* platform, SE_CreateDeviceFnsParams* params,
                            TF_Status* status) {
  (void)platform;
  SP_DeviceFns* device_fns = params->device_fns;
  device_fns->struct_size = sizeof(SP_DeviceFns);
  device_fns->get_numa_node = GetNumaNode;
  device_fns->get_memory_bandwidth = GetMemoryBandwidth;
  device_fns->get_gflops = GetGflops;
  FieldSetOk(status);
}

static void DestroyDeviceFns(const SP_Platform* platform, SP_DeviceFns* device_fns) {
  (void)platform;
  (void)device_fns;
}

/* Rust writes the output struct's size whenever it fills one. */
static void Allocate(const SP_Device* device, uint64_t size, int64_t memory_space,
                     SP_DeviceMemoryBase* mem) {
  FieldAllocate(device, size, memory_space, mem);
  mem->struct_size = sizeof(SP_DeviceMemoryBase);
}

static TF_Bool GetAllocatorStats(const SP_Device* device, SP_AllocatorStats* stats) {
  stats->struct_size = sizeof(SP_AllocatorStats);
  return FieldGetAllocatorStats(device, stats);
}

static void CreateStreamExecutor(const SP_Platform* platform, SE_CreateStreamExecutorParams* params,
                                 TF_Status* status) {
  (void)platform;
  SP_StreamExecutor* se = params->stream_executor;
  se->struct_size = sizeof(SP_StreamExecutor);
  se->allocate = Allocate;
  se->deallocate = FieldDeallocate;
  se->host_memory_allocate = FieldHostMemoryAllocate;
  se->host_memory_deallocate = FieldHostMemoryDeallocate;
  se->get_allocator_stats = GetAllocatorStats;
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
  FieldSetOk(status);
}

static void DestroyStreamExecutor(const SP_Platform* platform, SP_StreamExecutor* se) {
  (void)platform;
  (void)se;
}

static void CreateTimerFns(const SP_Platform* platform, SP_TimerFns* timer_fns, TF_Status* status) {
  (void)platform;
  timer_fns->struct_size = sizeof(SP_TimerFns);
  timer_fns->nanoseconds = FieldNanoseconds;
  FieldSetOk(status);
}

static void DestroyTimerFns(const SP_Platform* platform, SP_TimerFns* timer_fns) {
  (void)platform;
  (void)timer_fns;
}

static void DestroyPlatform(SP_Platform* platform) { (void)platform; }

static void DestroyPlatformFns(SP_PlatformFns* platform_fns) { (void)platform_fns; }

TF_CAPI_EXPORT void SE_InitPlugin(SE_PlatformRegistrationParams* params, TF_Status* status) {
  params->struct_size = sizeof(SE_PlatformRegistrationParams);
  params->major_version = kPluginMajor;
  params->minor_version = kPluginMinor;
  params->patch_version = kPluginPatch;

  SP_Platform* platform = params->platform;
  platform->struct_size = sizeof(SP_Platform);
  platform->name = kName;
  platform->type = kType;
  platform->supports_unified_memory = 0;
  platform->use_bfc_allocator = 1;
  platform->force_memory_growth = 0;

  SP_PlatformFns* fns = params->platform_fns;
  fns->struct_size = sizeof(SP_PlatformFns);
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
  FieldSetOk(status);
}
