#include "tvm/runtime_route.h"

#include <fmt/format.h>

#include "tvm/c_runtime_abi.h"
#include "tvm/c_runtime_route.h"
#include "tvm/ffi_runtime_abi.h"
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

std::optional<bool> HasDeviceApi(const loader::PluginLibrary& library, int device_type) {
  const std::string name = "device_api." + DeviceTypeName(device_type);
  ffi_abi::FunctionGetGlobal ffi_get_global = nullptr;
  ffi_abi::ObjectDecRef release = nullptr;
  std::vector<std::string> missing;
  library.BindFunction("TVMFFIFunctionGetGlobal", ffi_get_global, missing);
  library.BindFunction("TVMFFIObjectDecRef", release, missing);
  if (missing.empty()) {
    const ffi_abi::ByteArray bytes{name.data(), name.size()};
    ffi_abi::ObjectHandle function = nullptr;
    if (ffi_get_global(&bytes, &function) != 0) return std::nullopt;
    if (function != nullptr) release(function);  // tvm-ffi hands out an owned reference
    return function != nullptr;
  }
  c_abi::FuncGetGlobal c_get_global = nullptr;
  missing.clear();
  library.BindFunction("TVMFuncGetGlobal", c_get_global, missing);
  if (!missing.empty()) return std::nullopt;
  c_abi::FunctionHandle function = nullptr;
  if (c_get_global(name.c_str(), &function) != 0) return std::nullopt;
  return function != nullptr;
}

std::vector<int> RegisteredDeviceTypes(const loader::PluginLibrary& library) {
  std::vector<int> types;
  for (int type : NamedDeviceTypes()) {
    if (HasDeviceApi(library, type).value_or(false)) types.push_back(type);
  }
  return types;
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
