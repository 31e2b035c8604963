// Compile-time proof that sectl's copy of the ABI is layout-identical to
// TensorFlow's shipped header (LP64). If any of these fires, a plugin built
// against TensorFlow would be misread by sectl.
#include <cstddef>

#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

#define SECTL_ASSERT_OFFSET(type, member, expected) \
  static_assert(offsetof(type, member) == (expected), #type "." #member " moved")

static_assert(sizeof(void*) == 8 && sizeof(size_t) == 8, "sectl's ABI tables assume LP64");
static_assert(sizeof(TF_Bool) == 1);
static_assert(sizeof(SE_EventStatus) == 4);
static_assert(SE_EVENT_UNKNOWN == 0 && SE_EVENT_ERROR == 1 && SE_EVENT_PENDING == 2 &&
              SE_EVENT_COMPLETE == 3);
static_assert(SE_MAJOR == 0 && SE_MINOR == 0 && SE_PATCH == 1);

SECTL_ASSERT_OFFSET(SP_TimerFns, struct_size, 0);
SECTL_ASSERT_OFFSET(SP_TimerFns, ext, 8);
SECTL_ASSERT_OFFSET(SP_TimerFns, nanoseconds, 16);
static_assert(SP_TIMER_FNS_STRUCT_SIZE == 24);

SECTL_ASSERT_OFFSET(SP_AllocatorStats, struct_size, 0);
SECTL_ASSERT_OFFSET(SP_AllocatorStats, num_allocs, 8);
SECTL_ASSERT_OFFSET(SP_AllocatorStats, bytes_in_use, 16);
SECTL_ASSERT_OFFSET(SP_AllocatorStats, peak_bytes_in_use, 24);
SECTL_ASSERT_OFFSET(SP_AllocatorStats, largest_alloc_size, 32);
SECTL_ASSERT_OFFSET(SP_AllocatorStats, has_bytes_limit, 40);
SECTL_ASSERT_OFFSET(SP_AllocatorStats, bytes_limit, 48);
SECTL_ASSERT_OFFSET(SP_AllocatorStats, bytes_reserved, 56);
SECTL_ASSERT_OFFSET(SP_AllocatorStats, peak_bytes_reserved, 64);
SECTL_ASSERT_OFFSET(SP_AllocatorStats, has_bytes_reservable_limit, 72);
SECTL_ASSERT_OFFSET(SP_AllocatorStats, bytes_reservable_limit, 80);
SECTL_ASSERT_OFFSET(SP_AllocatorStats, largest_free_block_bytes, 88);
static_assert(SP_ALLOCATORSTATS_STRUCT_SIZE == 96);

SECTL_ASSERT_OFFSET(SP_DeviceMemoryBase, struct_size, 0);
SECTL_ASSERT_OFFSET(SP_DeviceMemoryBase, ext, 8);
SECTL_ASSERT_OFFSET(SP_DeviceMemoryBase, opaque, 16);
SECTL_ASSERT_OFFSET(SP_DeviceMemoryBase, size, 24);
SECTL_ASSERT_OFFSET(SP_DeviceMemoryBase, payload, 32);
static_assert(SP_DEVICE_MEMORY_BASE_STRUCT_SIZE == 40);

SECTL_ASSERT_OFFSET(SP_Device, struct_size, 0);
SECTL_ASSERT_OFFSET(SP_Device, ext, 8);
SECTL_ASSERT_OFFSET(SP_Device, ordinal, 16);
SECTL_ASSERT_OFFSET(SP_Device, device_handle, 24);
SECTL_ASSERT_OFFSET(SP_Device, hardware_name, 32);
SECTL_ASSERT_OFFSET(SP_Device, device_vendor, 40);
SECTL_ASSERT_OFFSET(SP_Device, pci_bus_id, 48);
static_assert(SP_DEVICE_STRUCT_SIZE == 56);

SECTL_ASSERT_OFFSET(SE_CreateDeviceParams, struct_size, 0);
SECTL_ASSERT_OFFSET(SE_CreateDeviceParams, ext, 8);
SECTL_ASSERT_OFFSET(SE_CreateDeviceParams, ordinal, 16);
SECTL_ASSERT_OFFSET(SE_CreateDeviceParams, device, 24);
static_assert(SE_CREATE_DEVICE_PARAMS_STRUCT_SIZE == 32);

SECTL_ASSERT_OFFSET(SP_DeviceFns, struct_size, 0);
SECTL_ASSERT_OFFSET(SP_DeviceFns, ext, 8);
SECTL_ASSERT_OFFSET(SP_DeviceFns, get_numa_node, 16);
SECTL_ASSERT_OFFSET(SP_DeviceFns, get_memory_bandwidth, 24);
SECTL_ASSERT_OFFSET(SP_DeviceFns, get_gflops, 32);
static_assert(SP_DEVICE_FNS_STRUCT_SIZE == 40);

SECTL_ASSERT_OFFSET(SE_CreateDeviceFnsParams, struct_size, 0);
SECTL_ASSERT_OFFSET(SE_CreateDeviceFnsParams, ext, 8);
SECTL_ASSERT_OFFSET(SE_CreateDeviceFnsParams, device_fns, 16);
static_assert(SE_CREATE_DEVICE_FNS_PARAMS_STRUCT_SIZE == 24);

SECTL_ASSERT_OFFSET(SP_StreamExecutor, struct_size, 0);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, ext, 8);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, allocate, 16);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, deallocate, 24);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, host_memory_allocate, 32);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, host_memory_deallocate, 40);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, unified_memory_allocate, 48);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, unified_memory_deallocate, 56);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, get_allocator_stats, 64);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, device_memory_usage, 72);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, create_stream, 80);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, destroy_stream, 88);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, create_stream_dependency, 96);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, get_stream_status, 104);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, create_event, 112);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, destroy_event, 120);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, get_event_status, 128);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, record_event, 136);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, wait_for_event, 144);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, create_timer, 152);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, destroy_timer, 160);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, start_timer, 168);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, stop_timer, 176);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, memcpy_dtoh, 184);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, memcpy_htod, 192);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, memcpy_dtod, 200);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, sync_memcpy_dtoh, 208);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, sync_memcpy_htod, 216);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, sync_memcpy_dtod, 224);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, block_host_for_event, 232);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, block_host_until_done, 240);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, synchronize_all_activity, 248);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, mem_zero, 256);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, memset, 264);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, memset32, 272);
SECTL_ASSERT_OFFSET(SP_StreamExecutor, host_callback, 280);
static_assert(SP_STREAMEXECUTOR_STRUCT_SIZE == 288);

SECTL_ASSERT_OFFSET(SE_CreateStreamExecutorParams, struct_size, 0);
SECTL_ASSERT_OFFSET(SE_CreateStreamExecutorParams, ext, 8);
SECTL_ASSERT_OFFSET(SE_CreateStreamExecutorParams, stream_executor, 16);
static_assert(SE_CREATE_STREAM_EXECUTOR_PARAMS_STRUCT_SIZE == 24);

SECTL_ASSERT_OFFSET(SP_Platform, struct_size, 0);
SECTL_ASSERT_OFFSET(SP_Platform, ext, 8);
SECTL_ASSERT_OFFSET(SP_Platform, name, 16);
SECTL_ASSERT_OFFSET(SP_Platform, type, 24);
SECTL_ASSERT_OFFSET(SP_Platform, supports_unified_memory, 32);
SECTL_ASSERT_OFFSET(SP_Platform, use_bfc_allocator, 33);
SECTL_ASSERT_OFFSET(SP_Platform, force_memory_growth, 34);
static_assert(SP_PLATFORM_STRUCT_SIZE == 35);
static_assert(sizeof(SP_Platform) == 40);

SECTL_ASSERT_OFFSET(SP_PlatformFns, struct_size, 0);
SECTL_ASSERT_OFFSET(SP_PlatformFns, ext, 8);
SECTL_ASSERT_OFFSET(SP_PlatformFns, get_device_count, 16);
SECTL_ASSERT_OFFSET(SP_PlatformFns, create_device, 24);
SECTL_ASSERT_OFFSET(SP_PlatformFns, destroy_device, 32);
SECTL_ASSERT_OFFSET(SP_PlatformFns, create_device_fns, 40);
SECTL_ASSERT_OFFSET(SP_PlatformFns, destroy_device_fns, 48);
SECTL_ASSERT_OFFSET(SP_PlatformFns, create_stream_executor, 56);
SECTL_ASSERT_OFFSET(SP_PlatformFns, destroy_stream_executor, 64);
SECTL_ASSERT_OFFSET(SP_PlatformFns, create_timer_fns, 72);
SECTL_ASSERT_OFFSET(SP_PlatformFns, destroy_timer_fns, 80);
static_assert(SP_PLATFORM_FNS_STRUCT_SIZE == 88);

SECTL_ASSERT_OFFSET(SE_PlatformRegistrationParams, struct_size, 0);
SECTL_ASSERT_OFFSET(SE_PlatformRegistrationParams, ext, 8);
SECTL_ASSERT_OFFSET(SE_PlatformRegistrationParams, major_version, 16);
SECTL_ASSERT_OFFSET(SE_PlatformRegistrationParams, minor_version, 20);
SECTL_ASSERT_OFFSET(SE_PlatformRegistrationParams, patch_version, 24);
SECTL_ASSERT_OFFSET(SE_PlatformRegistrationParams, platform, 32);
SECTL_ASSERT_OFFSET(SE_PlatformRegistrationParams, platform_fns, 40);
SECTL_ASSERT_OFFSET(SE_PlatformRegistrationParams, destroy_platform, 48);
SECTL_ASSERT_OFFSET(SE_PlatformRegistrationParams, destroy_platform_fns, 56);
static_assert(SE_PLATFORM_REGISTRATION_PARAMS_STRUCT_SIZE == 64);
