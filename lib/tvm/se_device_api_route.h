// The DeviceAPI route over a StreamExecutor plugin: sectl's adapter
// (device_api.h) seen through the DeviceApiRoute interface, so that the
// tvm-device-api checks run the same on a plugin and on a TVM runtime.
#pragma once

#include <memory>

#include "host/platform.h"
#include "tvm/device_api_route.h"

namespace sectl::tvm {

// A route over the registered `platform` (kept alive by the caller). The
// device type is what a TVM backend over the plugin would claim; the
// adapter answers the same for any.
std::unique_ptr<DeviceApiRoute> MakeStreamExecutorRoute(host::Platform& platform, int device_type);

}  // namespace sectl::tvm
