// The split core's side of a TVM v0.25+ backend library (ext_dev_backend.cc):
// ext_dev is served once "device_api.ext_dev" is registered, as TVM's
// DeviceAPIManager finds a backend by that global.
#include "ffi_objects.h"

namespace reference_runtime {

bool ExtDevRegisteredByBackend() { return ffi::FindGlobal("device_api.ext_dev") != nullptr; }

}  // namespace reference_runtime
