/* The woofles reference device (see woofles.h). Every hook returns exactly 0
 * on success, as generated code requires, and -1 when it refuses: a NULL
 * context, a context Init never saw, or a call out of order. */
#include "woofles.h"

#include <stddef.h>

/* Both devices behave alike; each keeps its own state in its own context. */
static int Usable(const tvm_device_woofles_t* context) {
  return context != NULL && context->magic == WOOFLES_MAGIC;
}

static int32_t Init(tvm_device_woofles_t* context) {
  if (context == NULL) return -1;
  context->magic = WOOFLES_MAGIC;
  context->active = 0;
  context->open = 0;
  context->operators_run = 0;
  return 0;
}

/* Activate starts a run. It also accepts a context left active by a run that
 * generated code abandoned (it returned -1 without Close or Deactivate), and
 * starts afresh: nothing may keep the next run from working. */
static int32_t Activate(tvm_device_woofles_t* context) {
  if (!Usable(context)) return -1;
  context->active = 1;
  context->open = 0;
  return 0;
}

static int32_t Open(tvm_device_woofles_t* context) {
  if (!Usable(context) || !context->active) return -1;
  context->open = 1;
  context->operators_run++;
  return 0;
}

static int32_t Close(tvm_device_woofles_t* context) {
  if (!Usable(context) || !context->open) return -1;
  context->open = 0;
  return 0;
}

static int32_t Deactivate(tvm_device_woofles_t* context) {
  if (!Usable(context) || !context->active) return -1;
  context->active = 0;
  context->open = 0;
  return 0;
}

static int32_t Destroy(tvm_device_woofles_t* context) {
  if (!Usable(context)) return -1;
  context->magic = 0;
  return 0;
}

int32_t TVMDeviceWooflesInit(tvm_device_woofles_t* context) { return Init(context); }
int32_t TVMDeviceWooflesActivate(tvm_device_woofles_t* context) { return Activate(context); }
int32_t TVMDeviceWooflesOpen(tvm_device_woofles_t* context) { return Open(context); }
int32_t TVMDeviceWooflesClose(tvm_device_woofles_t* context) { return Close(context); }
int32_t TVMDeviceWooflesDeactivate(tvm_device_woofles_t* context) { return Deactivate(context); }
int32_t TVMDeviceWooflesDestroy(tvm_device_woofles_t* context) { return Destroy(context); }

int32_t TVMDeviceWooflesDmaInit(tvm_device_woofles_dma_t* context) { return Init(context); }
int32_t TVMDeviceWooflesDmaActivate(tvm_device_woofles_dma_t* context) { return Activate(context); }
int32_t TVMDeviceWooflesDmaOpen(tvm_device_woofles_dma_t* context) { return Open(context); }
int32_t TVMDeviceWooflesDmaClose(tvm_device_woofles_dma_t* context) { return Close(context); }
int32_t TVMDeviceWooflesDmaDeactivate(tvm_device_woofles_dma_t* context) {
  return Deactivate(context);
}
int32_t TVMDeviceWooflesDmaDestroy(tvm_device_woofles_dma_t* context) { return Destroy(context); }
