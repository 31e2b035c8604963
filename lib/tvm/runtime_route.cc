#include "tvm/runtime_route.h"

#include <fmt/format.h>

#include "tvm/c_runtime_route.h"
#include "tvm/ffi_runtime_route.h"

namespace sectl::tvm {

RuntimeFlavour RecogniseRuntimeFlavour(const loader::PluginLibrary& library) {
  if (MissingCRuntimeEntryPoints(library).empty()) return RuntimeFlavour::kCApi;
  // dlsym on the library's handle also searches its dependencies, where
  // TVM from v0.21 keeps these (libtvm_ffi.so).
  if (library.FindSymbol("TVMFFIFunctionGetGlobal") != nullptr &&
      library.FindSymbol("TVMFFIFunctionCall") != nullptr) {
    return RuntimeFlavour::kTvmFfi;
  }
  return RuntimeFlavour::kNone;
}

std::string_view RuntimeFlavourName(RuntimeFlavour flavour) {
  switch (flavour) {
    case RuntimeFlavour::kCApi:
      return "TVM C runtime API (TVM up to v0.20)";
    case RuntimeFlavour::kTvmFfi:
      return "tvm-ffi (TVM v0.21 and later)";
    case RuntimeFlavour::kNone:
      break;
  }
  return "none";
}

Expected<std::unique_ptr<DeviceApiRoute>> OpenRuntimeRoute(const loader::PluginLibrary& library,
                                                           int device_type,
                                                           host::Journal* journal) {
  switch (RecogniseRuntimeFlavour(library)) {
    case RuntimeFlavour::kCApi:
      return MakeCRuntimeRoute(library, device_type, journal);
    case RuntimeFlavour::kTvmFfi:
      return MakeFfiRuntimeRoute(library, device_type, journal);
    case RuntimeFlavour::kNone:
      break;
  }
  auto missing = MissingCRuntimeEntryPoints(library);
  return Fail(ErrorCode::kNotFound,
              fmt::format("{}: does not export {} (TVM's C runtime API) nor "
                          "TVMFFIFunctionGetGlobal (tvm-ffi): not a TVM runtime library",
                          library.path(), missing.empty() ? "?" : missing.front()));
}

}  // namespace sectl::tvm
