/* hostile_input_negative_devices: get_device_count answers -3. sectl must
 * write a full report in which device.count fails (hostile_input_devices.h). */
#define HOSTILE_DEVICE_COUNT (-3)
#include "hostile_input_devices.h"
