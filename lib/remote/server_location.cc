#include "remote/server_location.h"

#include <unistd.h>

#include <filesystem>
#include <system_error>

namespace sectl::remote {

std::string PluginServerExecutable() {
  std::error_code error;
  const std::filesystem::path program = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    const std::filesystem::path beside = program.parent_path() / "sectl-plugin-server";
    if (::access(beside.c_str(), X_OK) == 0) return beside.string();
  }
#if defined(SECTL_BUILT_PLUGIN_SERVER)
  if (::access(SECTL_BUILT_PLUGIN_SERVER, X_OK) == 0) return SECTL_BUILT_PLUGIN_SERVER;
#endif
  return {};
}

}  // namespace sectl::remote
