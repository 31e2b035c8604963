#include "tool/bundled_plugin.h"

#include <fmt/format.h>

#include <filesystem>

namespace sectl::tool {

Expected<std::string> BundledPluginPath(const std::string& name) {
  std::error_code error;
  const auto executable = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) {
    return Fail(ErrorCode::kInternal,
                fmt::format("cannot locate the sectl executable: {}", error.message()));
  }
  const auto plugin =
      (executable.parent_path() / SECTL_PLUGIN_DIRECTORY_FROM_BINARY / (name + ".so"))
          .lexically_normal();
  if (!std::filesystem::is_regular_file(plugin, error)) {
    return Fail(ErrorCode::kNotFound,
                fmt::format("the bundled plugin {} is missing (looked for {}); is sectl "
                            "installed completely?",
                            name, plugin.string()));
  }
  return plugin.string();
}

}  // namespace sectl::tool
