/* The device-count hostile plugins: sectl_minimal, except that
 * get_device_count answers HOSTILE_DEVICE_COUNT, and create_device accepts
 * exactly the ordinals below that count (none at all when it is 0 or less).
 * A CI machine without the device looks like the 0 case; a negative count
 * and INT_MAX are what a careless or hostile plugin says instead.
 *
 * Each hostile_input_*_devices.c defines HOSTILE_DEVICE_COUNT and includes
 * this header once. */
#ifndef SECTL_REFERENCE_PLUGINS_HOSTILE_HOSTILE_INPUT_DEVICES_H_
#define SECTL_REFERENCE_PLUGINS_HOSTILE_HOSTILE_INPUT_DEVICES_H_

/* The minimal plugin, its entry point renamed so that ours can wrap it. */
#define SE_InitPlugin Minimal_SE_InitPlugin
#include "../minimal/minimal.c"
#undef SE_InitPlugin

static void HostileGetDeviceCount(const SP_Platform* platform, int* device_count,
                                  TF_Status* status) {
  (void)platform;
  if (device_count == NULL) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "get_device_count: device_count is null");
    return;
  }
  *device_count = HOSTILE_DEVICE_COUNT;
  SetOk(status);
}

/* Every ordinal below the count is the one static device of minimal.c. */
static void HostileCreateDevice(const SP_Platform* platform, SE_CreateDeviceParams* params,
                                TF_Status* status) {
  if (params == NULL || params->ordinal < 0 || params->ordinal >= HOSTILE_DEVICE_COUNT) {
    TF_SetStatus(status, TF_OUT_OF_RANGE, "create_device: no such device");
    return;
  }
  const int ordinal = params->ordinal;
  params->ordinal = 0;
  CreateDevice(platform, params, status);
  params->ordinal = ordinal;
  if (TF_GetCode(status) == TF_OK) params->device->ordinal = ordinal;
}

TF_CAPI_EXPORT void SE_InitPlugin(SE_PlatformRegistrationParams* params, TF_Status* status) {
  Minimal_SE_InitPlugin(params, status);
  if (TF_GetCode(status) != TF_OK) return;
  params->platform_fns->get_device_count = HostileGetDeviceCount;
  params->platform_fns->create_device = HostileCreateDevice;
}

#endif /* SECTL_REFERENCE_PLUGINS_HOSTILE_HOSTILE_INPUT_DEVICES_H_ */
