/* Faults for the validation layer's online checks (validate.cmake). */
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fault_hooks.h"

#if defined(FAULT_CONSTRUCTOR_CRASHES)
/* A library constructor that dereferences a driver table it never found:
 * the process dies while the host is still loading the plugin. */
__attribute__((constructor)) static void CrashWhileLoading(void) { raise(SIGSEGV); }
#endif

void PlantRegistrationFault(SE_PlatformRegistrationParams* params, TF_Status* status) {
  (void)params;
#if defined(FAULT_INIT_FAILS)
  /* No driver on this machine: registration fails, as a plugin's should
   * when it has nothing to offer. */
  TF_SetStatus(status, TF_FAILED_PRECONDITION, "faulty: no device driver is loaded");
#elif defined(FAULT_INIT_CRASHES)
  raise(SIGSEGV);
#endif
  (void)status;
}

#if defined(FAULT_NESTED_ALLOCATION)
/* A sub-allocator that hands out a 256-byte block from inside the last
 * large block it returned, while that block is still the host's: the two
 * allocations overlap (the plugin's fault), and every byte of the large
 * one is still the host's to use. The nested block is never freed apart. */
enum { kNestedBytes = 256, kLargeBytes = 4096, kNestedOffset = 256 };
static void (*base_allocate)(const SP_Device*, uint64_t, int64_t, SP_DeviceMemoryBase*);
static void (*base_deallocate)(const SP_Device*, SP_DeviceMemoryBase*);
static char* last_large;
static char* nested;

static void AllocateNested(const SP_Device* device, uint64_t size, int64_t memory_space,
                           SP_DeviceMemoryBase* memory) {
  if (size == kNestedBytes && last_large != NULL && nested == NULL) {
    nested = last_large + kNestedOffset;
    memory->opaque = nested;
    memory->size = size;
    return;
  }
  base_allocate(device, size, memory_space, memory);
  if (size >= kLargeBytes) last_large = (char*)memory->opaque;
}

static void DeallocateNested(const SP_Device* device, SP_DeviceMemoryBase* memory) {
  if (memory->opaque == nested && nested != NULL) {
    nested = NULL;
    return;
  }
  if (memory->opaque == last_large) last_large = NULL;
  base_deallocate(device, memory);
}
#endif

#if defined(FAULT_EVENT_STATUS_OUT_OF_RANGE)
/* A status the enum does not have: a plugin that returns its own runtime's
 * event state (here 7) where SE_EventStatus was meant. */
static SE_EventStatus (*base_get_event_status)(const SP_Device*, SP_Event);

static SE_EventStatus OwnEventState(const SP_Device* device, SP_Event event) {
  const SE_EventStatus status = base_get_event_status(device, event);
  return status == SE_EVENT_COMPLETE ? (SE_EventStatus)7 : status;
}
#endif

#if defined(FAULT_CREATE_EVENT_ERROR_WITH_HANDLE)
/* create_event makes the event, then reports an error for it anyway (a
 * warning from the runtime taken for a failure), leaving the handle set. */
static void (*base_create_event)(const SP_Device*, SP_Event*, TF_Status*);

static void CreateEventReportingError(const SP_Device* device, SP_Event* event, TF_Status* status) {
  base_create_event(device, event, status);
  if (TF_GetCode(status) == TF_OK) TF_SetStatus(status, TF_INTERNAL, "faulty: spurious error");
}
#endif

#if defined(FAULT_OLD_STREAM_EXECUTOR_LAYOUT)
/* Built against the TensorFlow 2.5-2.6 header: SP_StreamExecutor is 264
 * bytes, with host_callback at 256 and no mem_zero, memset or memset32.
 * Correct in such a host; in a newer one, host_callback lands in the
 * host's mem_zero and the host's own host_callback stays null. */
enum { kOldStreamExecutorSize = 264, kOldHostCallbackOffset = 256 };

static void FillOldLayout(SP_StreamExecutor* stream_executor) {
  /* The base filled the host's layout: an older host's is the old one. */
  if (stream_executor->struct_size < SP_STREAMEXECUTOR_STRUCT_SIZE) return;
  void (*host_callback)(void) = (void (*)(void))stream_executor->host_callback;
  unsigned char* bytes = (unsigned char*)stream_executor;
  memset(bytes + kOldHostCallbackOffset, 0, SP_STREAMEXECUTOR_STRUCT_SIZE - kOldHostCallbackOffset);
  memcpy(bytes + kOldHostCallbackOffset, &host_callback, sizeof(host_callback));
  stream_executor->struct_size = kOldStreamExecutorSize;
}
#endif

void PlantStreamExecutorFault(SP_StreamExecutor* stream_executor) {
#if defined(FAULT_NESTED_ALLOCATION)
  base_allocate = stream_executor->allocate;
  base_deallocate = stream_executor->deallocate;
  stream_executor->allocate = AllocateNested;
  stream_executor->deallocate = DeallocateNested;
#endif
#if defined(FAULT_OLD_STREAM_EXECUTOR_LAYOUT)
  FillOldLayout(stream_executor);
#endif
#if defined(FAULT_EVENT_STATUS_OUT_OF_RANGE)
  base_get_event_status = stream_executor->get_event_status;
  stream_executor->get_event_status = OwnEventState;
#endif
#if defined(FAULT_CREATE_EVENT_ERROR_WITH_HANDLE)
  base_create_event = stream_executor->create_event;
  stream_executor->create_event = CreateEventReportingError;
#endif
  (void)stream_executor;
}
