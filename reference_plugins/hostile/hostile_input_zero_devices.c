/* hostile_input_zero_devices: a plugin on a machine without its device. It
 * registers its platform and reports 0 devices; sectl must still write a full
 * report that says so (hostile_input_devices.h). */
#define HOSTILE_DEVICE_COUNT 0
#include "hostile_input_devices.h"
