#include "loader/tvm_backend_library.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

namespace sectl::loader {
namespace {

constexpr std::string_view kBackendPrefix = "libtvm_runtime_";
// A core library needing another core library that needs another: TVM's
// chain is two deep (libtvm_runtime.so -> libtvm_ffi.so); more is a loop.
constexpr int kMostCoreLibraries = 4;

std::string FileName(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

std::string Directory(const std::string& path) {
  const std::string directory = std::filesystem::path(path).parent_path().string();
  return directory.empty() ? "." : directory;
}

bool IsFile(const std::string& path) {
  std::error_code error;
  return std::filesystem::is_regular_file(path, error);
}

// Where sectl looks for core library `name`: --tvm-core itself when its
// file name is `name`, then beside --tvm-core, then in `directories`.
std::optional<std::string> FindCoreLibrary(const std::string& name, const std::string& tvm_core,
                                           const std::vector<std::string>& directories) {
  std::vector<std::string> candidates;
  if (!tvm_core.empty()) {
    if (FileName(tvm_core) == name) candidates.push_back(tvm_core);
    candidates.push_back(Directory(tvm_core) + "/" + name);
  }
  for (const std::string& directory : directories) candidates.push_back(directory + "/" + name);
  for (const std::string& candidate : candidates) {
    if (IsFile(candidate)) return candidate;
  }
  return std::nullopt;
}

Error CoreNotFound(const std::string& path, const std::string& name) {
  return Error(ErrorCode::kFailedPrecondition,
               fmt::format("{}: needs TVM's core library {} (DT_NEEDED), which neither the "
                           "dynamic linker (RUNPATH, LD_LIBRARY_PATH) nor the directory of {} "
                           "holds: name it with --tvm-core PATH",
                           path, name, FileName(path)));
}

// Opens `path`; when that fails for a missing core library, loads that from
// where FindCoreLibrary looks and tries again, up to kMostCoreLibraries
// times. `needing` is the file the error is about: the backend library.
Expected<void*> OpenLoadingCores(const std::string& path, int mode, const std::string& tvm_core,
                                 std::vector<std::string>& directories, const std::string& needing,
                                 int depth) {
  for (int round = 0; round <= kMostCoreLibraries; ++round) {
    ::dlerror();
    if (void* handle = ::dlopen(path.c_str(), mode); handle != nullptr) return handle;
    const char* text = ::dlerror();
    const std::string error = text == nullptr ? "unknown dlopen error" : text;
    const std::string missing = MissingLibraryIn(error);
    if (missing.empty() || !IsTvmCoreLibraryName(missing) || depth >= kMostCoreLibraries) {
      return Fail(ErrorCode::kFailedPrecondition,
                  fmt::format("{}: cannot be loaded: {}", path, error));
    }
    const auto core = FindCoreLibrary(missing, tvm_core, directories);
    if (!core) return tl::unexpected(CoreNotFound(needing, missing));
    directories.push_back(Directory(*core));
    auto loaded = OpenLoadingCores(*core, mode, tvm_core, directories, needing, depth + 1);
    if (!loaded) return loaded;
  }
  return Fail(ErrorCode::kFailedPrecondition,
              fmt::format("{}: TVM's core libraries it needs do not load", path));
}

}  // namespace

bool IsTvmCoreLibraryName(std::string_view file_name) {
  return (file_name.starts_with("libtvm_runtime") || file_name.starts_with("libtvm_ffi")) &&
         file_name.find(".so") != std::string_view::npos;
}

std::string BackendNameFromFileName(const std::string& path) {
  const std::string name = FileName(path);
  if (!name.starts_with(kBackendPrefix)) return "";
  const auto end = name.find(".so", kBackendPrefix.size());
  if (end == std::string::npos) return "";
  return name.substr(kBackendPrefix.size(), end - kBackendPrefix.size());
}

std::optional<TvmBackendLibrary> RecogniseTvmBackendLibrary(
    const std::string& path, const std::vector<std::string>& exported_functions,
    const DynamicDependencies& dependencies) {
  const bool exports_entry_point = std::any_of(
      exported_functions.begin(), exported_functions.end(),
      [](const std::string& name) { return name == "SE_InitPlugin" || name.starts_with("TVM"); });
  if (exports_entry_point) return std::nullopt;
  TvmBackendLibrary backend;
  for (const std::string& needed : dependencies.needed) {
    if (IsTvmCoreLibraryName(needed)) backend.core_libraries.push_back(needed);
  }
  if (backend.core_libraries.empty()) return std::nullopt;
  backend.served_name = BackendNameFromFileName(path);
  return backend;
}

std::optional<TvmBackendLibrary> ReadTvmBackendLibrary(const std::string& path) {
  auto functions = ExportedFunctions(path);
  auto dependencies = ReadDynamicDependencies(path);
  if (!functions || !dependencies) return std::nullopt;
  return RecogniseTvmBackendLibrary(path, *functions, *dependencies);
}

std::vector<std::string> BackendLibrariesBeside(const std::string& core_path) {
  std::vector<std::string> backends;
  if (!BackendNameFromFileName(core_path).empty()) return backends;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(Directory(core_path), error)) {
    const std::string path = entry.path().string();
    if (!BackendNameFromFileName(path).empty() && entry.is_regular_file(error)) {
      backends.push_back(path);
    }
  }
  std::sort(backends.begin(), backends.end());
  return backends;
}

std::string MissingLibraryIn(const std::string& dlerror_text) {
  // glibc: "<needed>: cannot open shared object file: No such file or directory"
  constexpr std::string_view kMissingLibrary = ": cannot open shared object file";
  const auto at = dlerror_text.find(kMissingLibrary);
  if (at == std::string::npos) return "";
  std::string needed = dlerror_text.substr(0, at);
  if (auto colon = needed.rfind(": "); colon != std::string::npos)
    needed = needed.substr(colon + 2);
  return needed;
}

std::optional<Expected<void*>> OpenBesideTvmCore(const std::string& path, int mode,
                                                 const std::string& tvm_core,
                                                 const std::string& dlerror_text) {
  if (!IsTvmCoreLibraryName(MissingLibraryIn(dlerror_text))) return std::nullopt;
  std::vector<std::string> directories = {Directory(path)};
  return OpenLoadingCores(path, mode, tvm_core, directories, path, 0);
}

Expected<void> PreloadTvmCore(const std::string& tvm_core, int mode) {
  if (!IsFile(tvm_core)) {
    return Fail(ErrorCode::kFailedPrecondition,
                fmt::format("--tvm-core {}: no such file", tvm_core));
  }
  std::vector<std::string> directories = {Directory(tvm_core)};
  auto loaded = OpenLoadingCores(tvm_core, mode, tvm_core, directories, tvm_core, 0);
  if (!loaded) return tl::unexpected(loaded.error());
  return {};
}

}  // namespace sectl::loader
