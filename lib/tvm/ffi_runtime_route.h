// The DeviceAPI route over a TVM runtime library from v0.21 on, whose
// DeviceAPI is reached only through tvm-ffi: global functions TVM registers
// (runtime.Device_StreamCreate, runtime.TVMTensorAllocWithScope, ...)
// called with TVMFFIFunctionCall, and TVMBackendAllocWorkspace. Flat data
// space comes from 1-D uint8 tensors whose dtype makes TVM's own alignment
// rule ask the alignment wanted; copies go through
// runtime.TVMTensorCopyFromTo, on the null stream only. See
// docs/tvm-runtime-abi.md for every fact used.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "host/journal.h"
#include "loader/plugin_library.h"
#include "tvm/device_api_route.h"

namespace sectl::tvm {

// The entry points `library` lacks for this route (empty: it offers it).
std::vector<std::string> MissingFfiRuntimeEntryPoints(const loader::PluginLibrary& library);

// The route for `device_type` over the loaded `library` (kept alive by the
// caller). kNotFound names the first missing entry point. Global functions
// are looked up on first use; every object reference the route takes is
// released by the time it is destroyed. Every call into the runtime is
// journalled in `journal` (kept alive by the caller), or in a journal of
// the route's own when null (tvm/runtime_call.h).
Expected<std::unique_ptr<DeviceApiRoute>> MakeFfiRuntimeRoute(const loader::PluginLibrary& library,
                                                              int device_type,
                                                              host::Journal* journal = nullptr);

}  // namespace sectl::tvm
