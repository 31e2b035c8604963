// Before a TVM C Device API run (profile tvm-c-device): which devices the
// file exports and which are under test, read without running plugin code,
// then a load in a child process, so that a plugin whose constructors crash
// or hang is reported as a load error, as for StreamExecutor plugins.
#pragma once

#include <chrono>
#include <string>

#include "base/error.h"
#include "conform/common_check_context.h"
#include "isolation/confinement.h"
#include "tvm/c_device_catalog.h"

namespace sectl::conform {

struct TvmPluginFacts {
  tvm::DevicesUnderTest devices;
  int device_count = 0;
};

// kInvalidArgument for a --tvm-device the plugin does not have (a usage
// error); any other error is the plugin's load error.
Expected<TvmPluginFacts> PreflightTvmCDevice(const CheckSettings& settings,
                                             std::chrono::milliseconds timeout, bool isolate,
                                             const isolation::Confinement& confinement);

}  // namespace sectl::conform
