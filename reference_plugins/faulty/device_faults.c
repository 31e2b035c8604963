/* Faults in devices and their lifecycle (checks/device_checks.cc,
 * checks/lifecycle_checks.cc). Each wraps one or two of the base's functions;
 * device.cmake names the base (the minimal plugin unless the fault needs
 * the cpu plugin's second device). */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fault_hooks.h"

/* The base's functions a fault wraps. */
static void (*base_get_device_count)(const SP_Platform*, int*, TF_Status*);
static void (*base_create_device)(const SP_Platform*, SE_CreateDeviceParams*, TF_Status*);
static void (*base_destroy_device)(const SP_Platform*, SP_Device*);
static void (*base_create_stream)(const SP_Device*, SP_Stream*, TF_Status*);
static void (*base_create_event)(const SP_Device*, SP_Event*, TF_Status*);
static void (*base_allocate)(const SP_Device*, uint64_t, int64_t, SP_DeviceMemoryBase*);

#if defined(FAULT_UNSTABLE_DEVICE_COUNT)
/* From the third call on, the count alternates between the truth and one
 * more: a count read from a racy or flaky enumeration. (The first two calls,
 * which every check's registration and device creation make, are right.) */
static void UnstableDeviceCount(const SP_Platform* platform, int* count, TF_Status* status) {
  static int calls = 0;
  base_get_device_count(platform, count, status);
  calls += 1;
  if (calls >= 3 && TF_GetCode(status) == TF_OK) *count += calls % 2;
}
#endif

#if defined(FAULT_ORDINAL_NOT_SET)
/* SP_Device.ordinal keeps whatever the host put there (0). */
static void CreateDeviceWithoutOrdinal(const SP_Platform* platform, SE_CreateDeviceParams* params,
                                       TF_Status* status) {
  const int32_t prefilled = params->device->ordinal;
  base_create_device(platform, params, status);
  params->device->ordinal = prefilled;
}
#endif

#if defined(FAULT_OUT_OF_RANGE_SUCCEEDS)
/* Any ordinal gets device 0, passed off as the ordinal asked for. */
static void CreateAnyDevice(const SP_Platform* platform, SE_CreateDeviceParams* params,
                            TF_Status* status) {
  const int32_t asked = params->ordinal;
  params->ordinal = 0;
  base_create_device(platform, params, status);
  params->ordinal = asked;
  if (TF_GetCode(status) == TF_OK) params->device->ordinal = asked;
}
#endif

#if defined(FAULT_SHARED_CONTEXT_TEARDOWN)
/* A driver context shared by all devices, which destroy_device tears down
 * without counting the devices still using it: with two devices alive at
 * once (as TensorFlow keeps them), the second destroy_device uses a context
 * that is gone. */
typedef struct DriverContext {
  int devices_seen;
} DriverContext;

static DriverContext* driver_context;

static void CreateDeviceOnSharedContext(const SP_Platform* platform, SE_CreateDeviceParams* params,
                                        TF_Status* status) {
  base_create_device(platform, params, status);
  if (TF_GetCode(status) != TF_OK) return;
  if (driver_context == NULL) driver_context = calloc(1, sizeof(DriverContext));
  driver_context->devices_seen += 1;
}

static void DestroyDeviceAndSharedContext(const SP_Platform* platform, SP_Device* device) {
  DriverContext* volatile context = driver_context;
  context->devices_seen -= 1; /* SIGSEGV once the context is gone */
  free(context);
  driver_context = NULL;
  base_destroy_device(platform, device);
}
#endif

#if defined(FAULT_DEVICE_TABLE_EXHAUSTED)
/* Devices live in a fixed table whose slots destroy_device never returns:
 * after 16 creations, create_device fails. */
enum { kDeviceSlots = 16 };

static void CreateDeviceInTable(const SP_Platform* platform, SE_CreateDeviceParams* params,
                                TF_Status* status) {
  static int slots_used = 0;
  if (slots_used == kDeviceSlots) {
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "faulty: no free slot in the device table");
    return;
  }
  base_create_device(platform, params, status);
  if (TF_GetCode(status) == TF_OK) slots_used += 1;
}
#endif

#if defined(FAULT_LEAKS_STREAM_THREADS)
/* Every stream starts a helper thread that destroy_stream never stops. */
static void* HelperThread(void* argument) {
  (void)argument;
  for (;;) sleep(3600);
  return NULL;
}

static void CreateStreamWithHelperThread(const SP_Device* device, SP_Stream* stream,
                                         TF_Status* status) {
  base_create_stream(device, stream, status);
  if (TF_GetCode(status) != TF_OK) return;
  pthread_t helper;
  if (pthread_create(&helper, NULL, HelperThread, NULL) == 0) pthread_detach(helper);
}
#endif

#if defined(FAULT_LEAKS_MEMORY_PER_STREAM)
/* Every stream gets a 1 MiB staging buffer that destroy_stream never frees. */
enum { kStagingBytes = 1 << 20 };

/* Where the newest buffer's address escapes to, so that the compiler keeps
 * the allocation; the older ones are lost, as in the real bug. */
static void* volatile newest_staging_buffer;

static void CreateStreamWithStagingBuffer(const SP_Device* device, SP_Stream* stream,
                                          TF_Status* status) {
  base_create_stream(device, stream, status);
  if (TF_GetCode(status) != TF_OK) return;
  void* staging = malloc(kStagingBytes);
  if (staging != NULL) memset(staging, 0x5A, kStagingBytes); /* resident, and leaked */
  newest_staging_buffer = staging;
}
#endif

#if defined(FAULT_LEAKS_DEVICE_MEMORY_PER_EVENT)
/* Every event takes 4 KiB of device memory that destroy_event never frees. */
static void CreateEventWithDeviceMemory(const SP_Device* device, SP_Event* event,
                                        TF_Status* status) {
  base_create_event(device, event, status);
  if (TF_GetCode(status) != TF_OK) return;
  SP_DeviceMemoryBase marker = {SP_DEVICE_MEMORY_BASE_STRUCT_SIZE};
  base_allocate(device, 4096, 0, &marker);
}
#endif

#if defined(FAULT_DEVICE_DESTROY_LEAKS_MEMORY)
/* Every device gets a 1 MiB logical-device context (a command buffer pool,
 * say) that destroy_device never releases. */
enum { kDeviceContextBytes = 1 << 20 };

/* Where the newest context's address escapes to, so that the compiler keeps
 * the allocation; the older ones are lost, as in the real bug. */
static void* volatile newest_device_context;

static void CreateDeviceWithContext(const SP_Platform* platform, SE_CreateDeviceParams* params,
                                    TF_Status* status) {
  base_create_device(platform, params, status);
  if (TF_GetCode(status) != TF_OK) return;
  void* context = malloc(kDeviceContextBytes);
  if (context != NULL) memset(context, 0x5D, kDeviceContextBytes); /* resident, and leaked */
  newest_device_context = context;
}
#endif

#if defined(FAULT_DEVICE_DESTROY_LEAKS_THREAD)
/* Every device starts a service thread (an interrupt or completion poller)
 * that destroy_device never stops. */
static void* DeviceServiceThread(void* argument) {
  (void)argument;
  for (;;) sleep(3600);
  return NULL;
}

static void CreateDeviceWithServiceThread(const SP_Platform* platform,
                                          SE_CreateDeviceParams* params, TF_Status* status) {
  base_create_device(platform, params, status);
  if (TF_GetCode(status) != TF_OK) return;
  pthread_t service;
  if (pthread_create(&service, NULL, DeviceServiceThread, NULL) == 0) pthread_detach(service);
}
#endif

void PlantRegistrationFault(SE_PlatformRegistrationParams* params, TF_Status* status) {
  (void)status;
  SP_PlatformFns* fns = params->platform_fns;
  base_get_device_count = fns->get_device_count;
  base_create_device = fns->create_device;
  base_destroy_device = fns->destroy_device;
#if defined(FAULT_UNSTABLE_DEVICE_COUNT)
  fns->get_device_count = UnstableDeviceCount;
#elif defined(FAULT_ORDINAL_NOT_SET)
  fns->create_device = CreateDeviceWithoutOrdinal;
#elif defined(FAULT_OUT_OF_RANGE_SUCCEEDS)
  fns->create_device = CreateAnyDevice;
#elif defined(FAULT_SHARED_CONTEXT_TEARDOWN)
  fns->create_device = CreateDeviceOnSharedContext;
  fns->destroy_device = DestroyDeviceAndSharedContext;
#elif defined(FAULT_DEVICE_TABLE_EXHAUSTED)
  fns->create_device = CreateDeviceInTable;
#elif defined(FAULT_DEVICE_DESTROY_LEAKS_MEMORY)
  fns->create_device = CreateDeviceWithContext;
#elif defined(FAULT_DEVICE_DESTROY_LEAKS_THREAD)
  fns->create_device = CreateDeviceWithServiceThread;
#endif
}

void PlantStreamExecutorFault(SP_StreamExecutor* stream_executor) {
  base_create_stream = stream_executor->create_stream;
  base_create_event = stream_executor->create_event;
  base_allocate = stream_executor->allocate;
#if defined(FAULT_LEAKS_STREAM_THREADS)
  stream_executor->create_stream = CreateStreamWithHelperThread;
#elif defined(FAULT_LEAKS_MEMORY_PER_STREAM)
  stream_executor->create_stream = CreateStreamWithStagingBuffer;
#elif defined(FAULT_LEAKS_DEVICE_MEMORY_PER_EVENT)
  stream_executor->create_event = CreateEventWithDeviceMemory;
#endif
}
