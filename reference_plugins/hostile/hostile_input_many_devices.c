/* hostile_input_many_devices: get_device_count answers INT_MAX, and every
 * ordinal can be created. Nothing in sectl may size memory by that count
 * (hostile_input_devices.h). */
#include <limits.h>

#define HOSTILE_DEVICE_COUNT INT_MAX
#include "hostile_input_devices.h"
