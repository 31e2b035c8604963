/* Faulty woofles devices (checks/tvm_c_device_*.cc): the woofles base with
 * its hooks renamed Base_* (woofles_renamed_base.c), and here the exported
 * hooks, each passing straight to the base unless the FAULT_<NAME> this
 * plugin is built with changes it. One fault per plugin. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "woofles.h"

#define BASE(name) Base_TVMDevice##name
#define DECLARE_BASE(name) int32_t BASE(name)(tvm_device_woofles_t * context);
DECLARE_BASE(WooflesInit)
DECLARE_BASE(WooflesActivate)
DECLARE_BASE(WooflesOpen)
DECLARE_BASE(WooflesClose)
DECLARE_BASE(WooflesDeactivate)
DECLARE_BASE(WooflesDestroy)
DECLARE_BASE(WooflesDmaInit)
DECLARE_BASE(WooflesDmaActivate)
DECLARE_BASE(WooflesDmaOpen)
DECLARE_BASE(WooflesDmaClose)
DECLARE_BASE(WooflesDmaDeactivate)
DECLARE_BASE(WooflesDmaDestroy)

#if defined(FAULT_ACTIVATE_LEAKS_SLOT)
/* Activate takes one of 64 session slots and Deactivate never gives it back:
 * the 65th run fails. One run, or twenty, show nothing. */
static int slots_taken = 0;
#endif

#if defined(FAULT_ONE_ACTIVE_DEVICE)
/* Both devices share one "active" flag, as if they drove one bus: the second
 * device cannot be activated while the first is, which is exactly what the
 * AOT executor does with two devices. */
static int woofles_active = 0;
static int woofles_dma_active = 0;
#endif

#if defined(FAULT_MUTEX_IN_OPEN)
/* The RFC's example: Open locks the device's mutex, Close unlocks it. After
 * a run generated code abandoned (no Close), the next Open waits forever. */
static pthread_mutex_t device_lock = PTHREAD_MUTEX_INITIALIZER;
#endif

#if defined(FAULT_MALLOC_IN_OPEN)
/* Open allocates a command buffer and Close frees it: against the RFC's
 * promise that the application provides all storage. One per thread, so the
 * only fault is the allocation: two threads running models at once (the
 * two_threads diagnostic) must not free each other's buffer. */
static _Thread_local void* command_buffer = NULL;
#endif

#if defined(FAULT_RACY_ACROSS_CONTEXTS)
/* One global "busy" flag for all contexts, held while Open works: two
 * threads with two contexts collide, and the second Open fails. */
static int busy = 0;
#endif

int32_t TVMDeviceWooflesInit(tvm_device_woofles_t* context) { return BASE(WooflesInit)(context); }

int32_t TVMDeviceWooflesActivate(tvm_device_woofles_t* context) {
#if defined(FAULT_ACTIVATE_LEAKS_SLOT)
  if (slots_taken == 64) return -1;
  ++slots_taken;
#elif defined(FAULT_ONE_ACTIVE_DEVICE)
  if (woofles_dma_active) return -1;
  woofles_active = 1;
#elif defined(FAULT_NULL_CONTEXT_CRASH)
  /* Reads the context without checking it. */
  if (((volatile tvm_device_woofles_t*)context)->magic != WOOFLES_MAGIC) return -1;
#elif defined(FAULT_DOUBLE_ACTIVATE_ABORT)
  /* Asserts that an idle device is never activated twice. */
  if (context != NULL && context->active && !context->open) abort();
#endif
  return BASE(WooflesActivate)(context);
}

int32_t TVMDeviceWooflesOpen(tvm_device_woofles_t* context) {
#if defined(FAULT_OPEN_RETURNS_ONE)
  /* "Positive success": 1 for opened. Generated code reads it as failure. */
  int32_t result = BASE(WooflesOpen)(context);
  return result == 0 ? 1 : result;
#elif defined(FAULT_MUTEX_IN_OPEN)
  pthread_mutex_lock(&device_lock);
#elif defined(FAULT_MALLOC_IN_OPEN)
  command_buffer = malloc(4096);
#elif defined(FAULT_RACY_ACROSS_CONTEXTS)
  if (__atomic_exchange_n(&busy, 1, __ATOMIC_ACQ_REL)) return -2;
  /* Some work while holding the flag widens the window. */
  struct timespec pause = {0, 200 * 1000};
  nanosleep(&pause, NULL);
  __atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
#endif
  return BASE(WooflesOpen)(context);
}

#if defined(FAULT_CXX_LINKAGE_CLOSE)
/* Close declared without extern "C" in a C++ file: exported only under its
 * mangled name, which generated C code cannot call. */
int32_t MangledClose(tvm_device_woofles_t* context) __asm__("_Z21TVMDeviceWooflesClosePv");
WOOFLES_EXPORT int32_t MangledClose(tvm_device_woofles_t* context) {
  return BASE(WooflesClose)(context);
}
#else
int32_t TVMDeviceWooflesClose(tvm_device_woofles_t* context) {
#if defined(FAULT_CLOSE_WITHOUT_OPEN_CRASH)
  /* Uses the session Open would have set up, without checking there is one. */
  if (context != NULL && !context->open) *(volatile int*)(uintptr_t)context->open = 0;
#endif
  int32_t result = BASE(WooflesClose)(context);
#if defined(FAULT_MUTEX_IN_OPEN)
  if (result == 0) pthread_mutex_unlock(&device_lock);
#elif defined(FAULT_MALLOC_IN_OPEN)
  free(command_buffer);
  command_buffer = NULL;
#endif
  return result;
}
#endif

int32_t TVMDeviceWooflesDeactivate(tvm_device_woofles_t* context) {
#if defined(FAULT_ONE_ACTIVE_DEVICE)
  woofles_active = 0;
#endif
  return BASE(WooflesDeactivate)(context);
}

int32_t TVMDeviceWooflesDestroy(tvm_device_woofles_t* context) {
  return BASE(WooflesDestroy)(context);
}

int32_t TVMDeviceWooflesDmaInit(tvm_device_woofles_dma_t* context) {
  return BASE(WooflesDmaInit)(context);
}

int32_t TVMDeviceWooflesDmaActivate(tvm_device_woofles_dma_t* context) {
#if defined(FAULT_ONE_ACTIVE_DEVICE)
  if (woofles_active) return -1;
  woofles_dma_active = 1;
#endif
  return BASE(WooflesDmaActivate)(context);
}

int32_t TVMDeviceWooflesDmaOpen(tvm_device_woofles_dma_t* context) {
  return BASE(WooflesDmaOpen)(context);
}

int32_t TVMDeviceWooflesDmaClose(tvm_device_woofles_dma_t* context) {
  return BASE(WooflesDmaClose)(context);
}

int32_t TVMDeviceWooflesDmaDeactivate(tvm_device_woofles_dma_t* context) {
#if defined(FAULT_ONE_ACTIVE_DEVICE)
  woofles_dma_active = 0;
#endif
  return BASE(WooflesDmaDeactivate)(context);
}

int32_t TVMDeviceWooflesDmaDestroy(tvm_device_woofles_dma_t* context) {
  return BASE(WooflesDmaDestroy)(context);
}
