#include "loader/tensorflow_stand_ins.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <mutex>
#include <system_error>

namespace sectl::loader {
namespace {

namespace fs = std::filesystem;

// The SONAMEs real plugins name (tf-module-c-api-facts.md §1): the C++
// framework library, and the Python extension that carries the C API.
constexpr const char* kStandInNames[] = {"libtensorflow_framework.so.2",
                                         "_pywrap_tensorflow_internal.so"};

std::vector<std::string> StandInsIn(const fs::path& directory) {
  std::vector<std::string> paths;
  for (const char* name : kStandInNames) {
    const fs::path path = directory / name;
    if (::access(path.c_str(), R_OK) == 0) paths.push_back(path.string());
  }
  return paths;
}

}  // namespace

std::vector<std::string> TensorFlowStandIns() {
  std::error_code error;
  const fs::path program = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    const fs::path beside =
        program.parent_path() / SECTL_PLUGIN_DIRECTORY_FROM_BINARY / ".." / "tensorflow";
    if (auto found = StandInsIn(beside.lexically_normal()); !found.empty()) return found;
  }
#if defined(SECTL_BUILT_TENSORFLOW_STAND_INS)
  return StandInsIn(SECTL_BUILT_TENSORFLOW_STAND_INS);
#else
  return {};
#endif
}

Expected<void> LoadTensorFlowStandIns() {
  static std::once_flag loaded;
  static Expected<void> outcome;
  std::call_once(loaded, [] {
    for (const std::string& path : TensorFlowStandIns()) {
      // Local: they define nothing a plugin resolves; a loaded library's
      // SONAME meets a DT_NEEDED of that name whatever its scope. Never
      // closed: a plugin may need them for the life of the process.
      if (::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL) == nullptr) {
        const char* why = ::dlerror();
        outcome =
            Fail(ErrorCode::kInternal, fmt::format("sectl could not load its stand-in {}: {}", path,
                                                   why != nullptr ? why : "dlopen failed"));
        return;
      }
    }
  });
  return outcome;
}

}  // namespace sectl::loader
