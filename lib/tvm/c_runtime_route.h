// The DeviceAPI route over a TVM runtime library up to v0.20: every call
// goes through the C entry points the library exports (c_runtime_abi.h),
// the way TVM's Python frontend and generated code reach a DeviceAPI, never
// through the C++ vtable, whose layout changes between releases.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "host/journal.h"
#include "loader/plugin_library.h"
#include "tvm/device_api_route.h"

namespace sectl::tvm {

// The v0.20 entry points `library` lacks (empty: it offers the route).
// TVMDeviceAllocDataSpaceWithScope is optional and never listed.
std::vector<std::string> MissingCRuntimeEntryPoints(const loader::PluginLibrary& library);

// The route for `device_type` over the loaded `library` (kept alive by the
// caller). kNotFound names the first missing entry point. Every call into
// the runtime is journalled in `journal` (kept alive by the caller), or in
// a journal of the route's own when null (tvm/runtime_call.h).
Expected<std::unique_ptr<DeviceApiRoute>> MakeCRuntimeRoute(const loader::PluginLibrary& library,
                                                            int device_type,
                                                            host::Journal* journal = nullptr);

}  // namespace sectl::tvm
