// Which DeviceAPI route a loaded TVM runtime library offers, read from the
// entry points it resolves: TVM's C API (up to v0.20) or tvm-ffi (from
// v0.21; see docs/tvm-runtime-abi.md), and the route itself.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "host/journal.h"
#include "loader/plugin_library.h"
#include "tvm/device_api_route.h"

namespace sectl::tvm {

enum class RuntimeFlavour {
  kCApi,    // TVMDeviceAllocDataSpace & co. (TVM up to v0.20)
  kTvmFfi,  // TVMFFIFunctionGetGlobal & co., no C device entry points (v0.21 on)
  kNone,    // neither
};

RuntimeFlavour RecogniseRuntimeFlavour(const loader::PluginLibrary& library);
// "TVM C runtime API (TVM up to v0.20)", ...
std::string_view RuntimeFlavourName(RuntimeFlavour flavour);

// Whether TVM's DeviceAPI for `device_type` is registered in the runtime's
// global table: the global "device_api.<name>" (TVM's DeviceAPIManager looks
// it up by that name; a backend library registers it when loaded). Asked
// through TVMFFIFunctionGetGlobal or TVMFuncGetGlobal, which run no backend
// code; nullopt for a library offering neither.
std::optional<bool> HasDeviceApi(const loader::PluginLibrary& library, int device_type);

// The device types TVM names (NamedDeviceTypes) whose DeviceAPI is
// registered.
std::vector<int> RegisteredDeviceTypes(const loader::PluginLibrary& library);

// The route for `device_type`: c_runtime_route.h or ffi_runtime_route.h.
// kNotFound names what a library offering neither lacks. Every call into
// the runtime is journalled in `journal` (kept alive by the caller), or in
// a journal of the route's own when null.
Expected<std::unique_ptr<DeviceApiRoute>> OpenRuntimeRoute(const loader::PluginLibrary& library,
                                                           int device_type,
                                                           host::Journal* journal = nullptr);

}  // namespace sectl::tvm
