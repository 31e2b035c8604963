// Before a tvm-device-api run on a TVM runtime library (--abi tvm-runtime):
// in a child process, load the library, reach the chosen device type's
// DeviceAPI through the runtime's own entry points and ask kExist for the
// device under test, so that a runtime that crashes on load is a load
// error and an absent device is the user's mistake, before any check runs.
#pragma once

#include <chrono>
#include <string>

#include "base/error.h"
#include "conform/check_runner.h"
#include "conform/common_check_context.h"
#include "isolation/confinement.h"

namespace sectl::conform {

// kInvalidArgument when kExist says the device under test is absent (a
// usage error); kInternal for sectl's own failure; any other error is the
// runtime's load error. The facts' abi_vintage names the route.
Expected<PluginFacts> PreflightTvmRuntime(const CheckSettings& settings,
                                          std::chrono::milliseconds timeout, bool isolate,
                                          const isolation::Confinement& confinement);

}  // namespace sectl::conform
