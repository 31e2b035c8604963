/* The woofles reference device for TVM's C Device API (RFC 0031): two
 * devices in one plugin, "woofles" and "woofles-dma" (C names Woofles and
 * WooflesDma), each with the six hooks TVMDevice<Name>{Init, Activate, Open,
 * Close, Deactivate, Destroy}.
 *
 * As the RFC asks, the application provides the context storage,
 * tvm_device_woofles_t, and the hooks never allocate. All state lives in the
 * context, so two contexts (two model instances, two threads) never interact,
 * and a run that generated code abandoned half-way (it returns -1 without
 * calling Close or Deactivate) leaves nothing that blocks the next one. */
#ifndef SECTL_REFERENCE_PLUGINS_TVM_WOOFLES_H_
#define SECTL_REFERENCE_PLUGINS_TVM_WOOFLES_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What Init writes, so the other hooks can tell a context they may use. */
#define WOOFLES_MAGIC 0x574f4f46u /* "WOOF" */

typedef struct tvm_device_woofles_t {
  uint32_t magic;
  uint32_t active; /* between Activate and Deactivate */
  uint32_t open;   /* between Open and Close */
  uint32_t operators_run;
} tvm_device_woofles_t;

typedef tvm_device_woofles_t tvm_device_woofles_dma_t;

#define WOOFLES_EXPORT __attribute__((visibility("default")))

WOOFLES_EXPORT int32_t TVMDeviceWooflesInit(tvm_device_woofles_t* context);
WOOFLES_EXPORT int32_t TVMDeviceWooflesActivate(tvm_device_woofles_t* context);
WOOFLES_EXPORT int32_t TVMDeviceWooflesOpen(tvm_device_woofles_t* context);
WOOFLES_EXPORT int32_t TVMDeviceWooflesClose(tvm_device_woofles_t* context);
WOOFLES_EXPORT int32_t TVMDeviceWooflesDeactivate(tvm_device_woofles_t* context);
WOOFLES_EXPORT int32_t TVMDeviceWooflesDestroy(tvm_device_woofles_t* context);

WOOFLES_EXPORT int32_t TVMDeviceWooflesDmaInit(tvm_device_woofles_dma_t* context);
WOOFLES_EXPORT int32_t TVMDeviceWooflesDmaActivate(tvm_device_woofles_dma_t* context);
WOOFLES_EXPORT int32_t TVMDeviceWooflesDmaOpen(tvm_device_woofles_dma_t* context);
WOOFLES_EXPORT int32_t TVMDeviceWooflesDmaClose(tvm_device_woofles_dma_t* context);
WOOFLES_EXPORT int32_t TVMDeviceWooflesDmaDeactivate(tvm_device_woofles_dma_t* context);
WOOFLES_EXPORT int32_t TVMDeviceWooflesDmaDestroy(tvm_device_woofles_dma_t* context);

#ifdef __cplusplus
}
#endif

#endif /* SECTL_REFERENCE_PLUGINS_TVM_WOOFLES_H_ */
