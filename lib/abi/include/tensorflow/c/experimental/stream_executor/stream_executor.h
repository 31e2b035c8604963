/* The StreamExecutor C API (PluggableDevice), as TensorFlow ships it.
 *
 * sectl's own text of the interface, layout-identical to TensorFlow's newest
 * header: SP_StreamExecutor with the mem_zero/memset/memset32 family (288
 * bytes), SP_Platform with force_memory_growth (35 bytes), SP_Device with
 * hardware_name/device_vendor/pci_bus_id (56 bytes). A plugin's source written
 * against TensorFlow compiles against this header unchanged.
 *
 * Conventions of the interface:
 *  - SE_* structs are filled by the host (TensorFlow, or sectl), SP_* structs
 *    by the plugin.
 *  - Every struct begins with struct_size. The host pre-fills it with the size
 *    it knows before handing a struct over; the plugin writes the size it was
 *    built with. *_STRUCT_SIZE is the end of the last member, not sizeof.
 *  - `ext` is reserved for extensions and left null.
 *  - Strings the plugin hands over (platform name and type, device strings)
 *    must stay valid after the call that returned them.
 *
 * The layout is not append-only in practice: get_device_count was inserted at
 * the front of SP_PlatformFns, and mem_zero/memset/memset32 before
 * host_callback. sectl keeps those older layouts as data in lib/abi. */
#ifndef TENSORFLOW_C_EXPERIMENTAL_STREAM_EXECUTOR_STREAM_EXECUTOR_H_
#define TENSORFLOW_C_EXPERIMENTAL_STREAM_EXECUTOR_STREAM_EXECUTOR_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/tf_status.h"

/* The interface version the host writes into SE_PlatformRegistrationParams.
 * Unchanged since the RFC, through every layout change above. */
#define SE_MAJOR 0
#define SE_MINOR 0
#define SE_PATCH 1

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque handles, defined by the plugin. */
typedef struct SP_Stream_st* SP_Stream;
typedef struct SP_Event_st* SP_Event;
typedef struct SP_Timer_st* SP_Timer;

/* A host callback. The first argument is the callback_arg given to
 * host_callback; the plugin passes a status the callback writes its result to. */
typedef void (*SE_StatusCallbackFn)(void* const, TF_Status* const);

typedef struct SP_TimerFns {
  size_t struct_size;
  void* ext;
  uint64_t (*nanoseconds)(SP_Timer timer);
} SP_TimerFns;

#define SP_TIMER_FNS_STRUCT_SIZE TF_OFFSET_OF_END(SP_TimerFns, nanoseconds)

/* Allocator statistics. Unlike every other struct, it has no `ext` member. */
typedef struct SP_AllocatorStats {
  size_t struct_size;
  int64_t num_allocs;
  int64_t bytes_in_use;
  int64_t peak_bytes_in_use;
  int64_t largest_alloc_size;

  int8_t has_bytes_limit;
  int64_t bytes_limit;

  int64_t bytes_reserved;
  int64_t peak_bytes_reserved;

  int8_t has_bytes_reservable_limit;
  int64_t bytes_reservable_limit;

  int64_t largest_free_block_bytes;
} SP_AllocatorStats;

#define SP_ALLOCATORSTATS_STRUCT_SIZE TF_OFFSET_OF_END(SP_AllocatorStats, largest_free_block_bytes)

typedef enum SE_EventStatus {
  SE_EVENT_UNKNOWN,
  SE_EVENT_ERROR,
  SE_EVENT_PENDING,
  SE_EVENT_COMPLETE,
} SE_EventStatus;

/* A region of device memory. `opaque` is the device address; `size` its length
 * in bytes; `payload` is free for the plugin. TensorFlow passes interior
 * pointers (BFC sub-allocations) and deallocates with only `opaque` set. */
typedef struct SP_DeviceMemoryBase {
  size_t struct_size;
  void* ext;
  void* opaque;
  uint64_t size;
  uint64_t payload;
} SP_DeviceMemoryBase;

#define SP_DEVICE_MEMORY_BASE_STRUCT_SIZE TF_OFFSET_OF_END(SP_DeviceMemoryBase, payload)

typedef struct SP_Device {
  size_t struct_size;
  void* ext;
  int32_t ordinal;
  void* device_handle;

  /* Optional descriptive strings; null when unknown. */
  const char* hardware_name;
  const char* device_vendor;
  const char* pci_bus_id;
} SP_Device;

#define SP_DEVICE_STRUCT_SIZE TF_OFFSET_OF_END(SP_Device, pci_bus_id)

typedef struct SE_CreateDeviceParams {
  size_t struct_size;
  void* ext;
  int32_t ordinal;
  SP_Device* device; /* in/out: host-owned, struct_size pre-filled */
} SE_CreateDeviceParams;

#define SE_CREATE_DEVICE_PARAMS_STRUCT_SIZE TF_OFFSET_OF_END(SE_CreateDeviceParams, device)

/* Optional device properties. */
typedef struct SP_DeviceFns {
  size_t struct_size;
  void* ext;
  /* The NUMA node; a negative value means unknown. */
  int32_t (*get_numa_node)(const SP_Device* device);
  /* Memory bandwidth in bytes per second. */
  int64_t (*get_memory_bandwidth)(const SP_Device* device);
  /* Peak throughput in GFLOP/s. */
  double (*get_gflops)(const SP_Device* device);
} SP_DeviceFns;

#define SP_DEVICE_FNS_STRUCT_SIZE TF_OFFSET_OF_END(SP_DeviceFns, get_gflops)

typedef struct SE_CreateDeviceFnsParams {
  size_t struct_size;
  void* ext;
  SP_DeviceFns* device_fns; /* output */
} SE_CreateDeviceFnsParams;

#define SE_CREATE_DEVICE_FNS_PARAMS_STRUCT_SIZE \
  TF_OFFSET_OF_END(SE_CreateDeviceFnsParams, device_fns)

/* Every device operation. Each member after `ext` is a function pointer. */
typedef struct SP_StreamExecutor {
  size_t struct_size;
  void* ext;

  /* Device memory: fills `mem` (opaque, size) for `size` bytes. */
  void (*allocate)(const SP_Device* device, uint64_t size, int64_t memory_space,
                   SP_DeviceMemoryBase* mem);
  void (*deallocate)(const SP_Device* device, SP_DeviceMemoryBase* memory);

  /* Page-locked host memory for fast transfers. */
  void* (*host_memory_allocate)(const SP_Device* device, uint64_t size);
  void (*host_memory_deallocate)(const SP_Device* device, void* mem);

  /* Memory both host and device can address; required only when the
   * platform sets supports_unified_memory. */
  void* (*unified_memory_allocate)(const SP_Device* device, uint64_t bytes);
  void (*unified_memory_deallocate)(const SP_Device* device, void* location);

  /* Returns true when `stats` was filled. */
  TF_Bool (*get_allocator_stats)(const SP_Device* device, SP_AllocatorStats* stats);
  /* Returns true when `free` and `total` (bytes) were filled. */
  TF_Bool (*device_memory_usage)(const SP_Device* device, int64_t* free, int64_t* total);

  void (*create_stream)(const SP_Device* device, SP_Stream* stream, TF_Status* status);
  void (*destroy_stream)(const SP_Device* device, SP_Stream stream);
  /* Makes `dependent` wait for the work already enqueued on `other`. */
  void (*create_stream_dependency)(const SP_Device* device, SP_Stream dependent, SP_Stream other,
                                   TF_Status* status);
  /* Sets `status` to the stream's error, if it has one. */
  void (*get_stream_status)(const SP_Device* device, SP_Stream stream, TF_Status* status);

  void (*create_event)(const SP_Device* device, SP_Event* event, TF_Status* status);
  void (*destroy_event)(const SP_Device* device, SP_Event event);
  SE_EventStatus (*get_event_status)(const SP_Device* device, SP_Event event);
  /* The event completes when the stream reaches the point of recording. */
  void (*record_event)(const SP_Device* device, SP_Stream stream, SP_Event event,
                       TF_Status* status);
  /* Work enqueued on `stream` after this waits for `event`. */
  void (*wait_for_event)(const SP_Device* const device, SP_Stream stream, SP_Event event,
                         TF_Status* const status);

  /* Timers measure the stream's execution between start and stop. */
  void (*create_timer)(const SP_Device* device, SP_Timer* timer, TF_Status* status);
  void (*destroy_timer)(const SP_Device* device, SP_Timer timer);
  void (*start_timer)(const SP_Device* device, SP_Stream stream, SP_Timer timer, TF_Status* status);
  void (*stop_timer)(const SP_Device* device, SP_Stream stream, SP_Timer timer, TF_Status* status);

  /* Asynchronous copies, ordered on `stream`. Sizes in bytes. */
  void (*memcpy_dtoh)(const SP_Device* device, SP_Stream stream, void* host_dst,
                      const SP_DeviceMemoryBase* device_src, uint64_t size, TF_Status* status);
  void (*memcpy_htod)(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* device_dst,
                      const void* host_src, uint64_t size, TF_Status* status);
  void (*memcpy_dtod)(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* device_dst,
                      const SP_DeviceMemoryBase* device_src, uint64_t size, TF_Status* status);

  /* Copies that return only once the data has arrived. */
  void (*sync_memcpy_dtoh)(const SP_Device* device, void* host_dst,
                           const SP_DeviceMemoryBase* device_src, uint64_t size, TF_Status* status);
  void (*sync_memcpy_htod)(const SP_Device* device, SP_DeviceMemoryBase* device_dst,
                           const void* host_src, uint64_t size, TF_Status* status);
  void (*sync_memcpy_dtod)(const SP_Device* device, SP_DeviceMemoryBase* device_dst,
                           const SP_DeviceMemoryBase* device_src, uint64_t size, TF_Status* status);

  /* Blocks the calling thread until `event` completes. */
  void (*block_host_for_event)(const SP_Device* device, SP_Event event, TF_Status* status);
  /* Blocks until all work on `stream` is done. Optional: without it the host
   * records an event and blocks on that. */
  void (*block_host_until_done)(const SP_Device* device, SP_Stream stream, TF_Status* status);
  /* Blocks until all work on the device is done. */
  void (*synchronize_all_activity)(const SP_Device* device, TF_Status* status);

  /* Fills: `size` is in bytes for all three; memset32 writes size/4 words. */
  void (*mem_zero)(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* location,
                   uint64_t size, TF_Status* status);
  void (*memset)(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* location,
                 uint8_t pattern, uint64_t size, TF_Status* status);
  void (*memset32)(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* location,
                   uint32_t pattern, uint64_t size, TF_Status* status);

  /* Enqueues `callback_fn(callback_arg, status)` after the work already on
   * the stream. It must be called exactly once. Returns false when it could
   * not be enqueued. */
  TF_Bool (*host_callback)(const SP_Device* device, SP_Stream stream,
                           SE_StatusCallbackFn callback_fn, void* callback_arg);
} SP_StreamExecutor;

#define SP_STREAMEXECUTOR_STRUCT_SIZE TF_OFFSET_OF_END(SP_StreamExecutor, host_callback)

typedef struct SE_CreateStreamExecutorParams {
  size_t struct_size;
  void* ext;
  SP_StreamExecutor* stream_executor; /* output */
} SE_CreateStreamExecutorParams;

#define SE_CREATE_STREAM_EXECUTOR_PARAMS_STRUCT_SIZE \
  TF_OFFSET_OF_END(SE_CreateStreamExecutorParams, stream_executor)

typedef struct SP_Platform {
  size_t struct_size;
  void* ext;

  /* Both must match [A-Z][A-Z_]* and outlive SE_InitPlugin. `name` names the
   * platform (e.g. "MY_DEVICE"), `type` the device type (e.g. "GPU"). */
  const char* name;
  const char* type;

  /* Unified memory callbacks become required when set. */
  TF_Bool supports_unified_memory;

  /* Wrap the plugin's allocator in TensorFlow's BFC allocator. */
  TF_Bool use_bfc_allocator;

  /* Force the BFC allocator to grow on demand, whatever the user asked. */
  TF_Bool force_memory_growth;
} SP_Platform;

#define SP_PLATFORM_STRUCT_SIZE TF_OFFSET_OF_END(SP_Platform, force_memory_growth)

typedef struct SP_PlatformFns {
  size_t struct_size;
  void* ext;

  void (*get_device_count)(const SP_Platform* platform, int* device_count, TF_Status* status);

  /* Fills params->device for params->ordinal. The SP_Device is host-owned
   * and copied afterwards: later calls see a different address. */
  void (*create_device)(const SP_Platform* platform, SE_CreateDeviceParams* params,
                        TF_Status* status);
  void (*destroy_device)(const SP_Platform* platform, SP_Device* device);

  void (*create_device_fns)(const SP_Platform* platform, SE_CreateDeviceFnsParams* params,
                            TF_Status* status);
  void (*destroy_device_fns)(const SP_Platform* platform, SP_DeviceFns* device_fns);

  void (*create_stream_executor)(const SP_Platform* platform, SE_CreateStreamExecutorParams* params,
                                 TF_Status* status);
  void (*destroy_stream_executor)(const SP_Platform* platform, SP_StreamExecutor* stream_executor);

  void (*create_timer_fns)(const SP_Platform* platform, SP_TimerFns* timer, TF_Status* status);
  void (*destroy_timer_fns)(const SP_Platform* platform, SP_TimerFns* timer_fns);
} SP_PlatformFns;

#define SP_PLATFORM_FNS_STRUCT_SIZE TF_OFFSET_OF_END(SP_PlatformFns, destroy_timer_fns)

typedef struct SE_PlatformRegistrationParams {
  size_t struct_size;
  void* ext;

  /* Written by the host before SE_InitPlugin: SE_MAJOR, SE_MINOR, SE_PATCH. */
  int32_t major_version;
  int32_t minor_version;
  int32_t patch_version;

  SP_Platform* platform;        /* host-owned; the plugin fills it */
  SP_PlatformFns* platform_fns; /* host-owned; the plugin fills it */

  /* Set by the plugin; both required. */
  void (*destroy_platform)(SP_Platform* platform);
  void (*destroy_platform_fns)(SP_PlatformFns* platform_fns);
} SE_PlatformRegistrationParams;

#define SE_PLATFORM_REGISTRATION_PARAMS_STRUCT_SIZE \
  TF_OFFSET_OF_END(SE_PlatformRegistrationParams, destroy_platform_fns)

/* The one symbol the host looks up in a StreamExecutor plugin. */
void SE_InitPlugin(SE_PlatformRegistrationParams* params, TF_Status* status);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* TENSORFLOW_C_EXPERIMENTAL_STREAM_EXECUTOR_STREAM_EXECUTOR_H_ */
