#include "tool/plugin_argument.h"

#include <filesystem>

#include "loader/elf_identity.h"
#include "loader/plugin_library.h"
#include "loader/tvm_backend_library.h"
#include "tool/bundled_plugin.h"
#include "tvm/device_api_route.h"

namespace sectl::tool {

Expected<std::string> ChoosePluginPath(const std::string& argument, std::string_view bundled_name) {
  if (argument.empty()) return BundledPluginPath(std::string(bundled_name));
  std::string path = loader::PluginPathFromArgument(argument);
  if (auto file = loader::InspectPluginFile(path);
      !file && loader::NamesNoSharedLibrary(file.error())) {
    return Fail(ErrorCode::kInvalidArgument, file.error().message());
  }
  // Absolute: the plugin's process works in a scratch directory of its own
  // (isolation/plugin_identity.h), where a relative path names nothing.
  return AbsolutePath(path);
}

std::string AbsolutePath(const std::string& path) {
  if (path.empty() || path.front() == '/') return path;
  std::error_code error;
  const auto absolute = std::filesystem::absolute(path, error);
  return error ? path : absolute.string();
}

Expected<int> ChooseTvmDeviceType(const std::string& flag, const std::string& plugin_path) {
  if (!flag.empty()) return tvm::ParseDeviceType(flag);
  if (auto backend = loader::ReadTvmBackendLibrary(plugin_path)) {
    if (auto served = tvm::DeviceTypeFromName(backend->served_name)) return *served;
  }
  return kDLCPU;
}

}  // namespace sectl::tool
