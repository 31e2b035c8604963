// A TVM backend library of the v0.25+ shape (libtvm_runtime_vulkan.so and
// libtvm_runtime_opencl.so are the real ones): it exports nothing of TVM's,
// needs the core (DT_NEEDED libtvm_runtime.so) and, when loaded, registers
// its DeviceAPI factory "device_api.ext_dev" in the core's global table
// through tvm-ffi's TVMFFIFunctionCreate and TVMFFIFunctionSetGlobal, as
// TVM_FFI_STATIC_INIT_BLOCK does. The core (built with EXT_DEV_FROM_BACKEND)
// serves ext_dev from then on.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "ffi_abi.h"

namespace ffi = reference_runtime::ffi;

// The core's, resolved through DT_NEEDED.
extern "C" int TVMFFIFunctionCreate(void* self, ffi::SafeCall safe_call, void (*deleter)(void*),
                                    void** out);
extern "C" int TVMFFIFunctionSetGlobal(const ffi::ByteArray* name, void* f, int allow_override);
extern "C" int TVMFFIObjectDecRef(void* obj);

namespace {

// device_api.ext_dev: TVM's factories answer the DeviceAPI singleton as an
// opaque pointer; nothing calls this one but sectl's tests of the shape.
int DeviceApiFactory(void* /*self*/, const ffi::Any* /*args*/, int32_t /*num_args*/,
                     ffi::Any* result) {
  static int device_api = 0;
  *result = ffi::Any{};
  result->type_index = ffi::kOpaquePtr;
  result->v_ptr = &device_api;
  return 0;
}

void Register() {
  constexpr char kName[] = "device_api.ext_dev";
  void* function = nullptr;
  const ffi::ByteArray name{kName, sizeof(kName) - 1};
  if (TVMFFIFunctionCreate(nullptr, &DeviceApiFactory, nullptr, &function) != 0 ||
      TVMFFIFunctionSetGlobal(&name, function, 0) != 0) {
    std::fprintf(stderr, "libtvm_runtime_ext_dev: registering %s failed\n", kName);
    std::abort();
  }
  TVMFFIObjectDecRef(function);  // the global table keeps its own
}

// A static initialiser, as TVM's backends register theirs.
const bool registered = (Register(), true);

}  // namespace
