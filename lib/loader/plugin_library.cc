#include "loader/plugin_library.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "loader/exported_symbols.h"

namespace sectl::loader {
namespace {

// The entry point's name in the 2020 RFC drafts, renamed before release.
constexpr const char* kDraftEntryPoint = "SE_InitializePlugin";
constexpr const char* kEntryPoint = "SE_InitPlugin";
// The prefix of every TVM C Device API hook (TVMDeviceEthosUOpen).
constexpr std::string_view kTvmDeviceHookPrefix = "TVMDevice";

bool ExportsTvmDeviceHooks(const std::vector<std::string>& functions) {
  return std::any_of(functions.begin(), functions.end(), [](const std::string& name) {
    return name.starts_with(kTvmDeviceHookPrefix);
  });
}

std::string AfterMarker(const std::string& text, std::string_view marker) {
  auto at = text.find(marker);
  if (at == std::string::npos) return {};
  auto rest = text.substr(at + marker.size());
  auto end = rest.find_first_of(" ,)\n");
  return end == std::string::npos ? rest : rest.substr(0, end);
}

}  // namespace

Expected<PluginAbi> RecognisePluginAbi(const std::string& path) {
  auto identity = InspectPluginFile(path);
  if (!identity) return tl::unexpected(identity.error());
  auto functions = ExportedFunctions(path);
  if (!functions) return tl::unexpected(functions.error());
  if (std::binary_search(functions->begin(), functions->end(), std::string(kEntryPoint))) {
    return PluginAbi::kStreamExecutor;
  }
  return ExportsTvmDeviceHooks(*functions) ? PluginAbi::kTvmCDevice : PluginAbi::kStreamExecutor;
}

std::string_view PluginAbiName(PluginAbi abi) {
  return abi == PluginAbi::kTvmCDevice ? "tvm-c-device" : "streamexecutor";
}

Expected<PluginAbi> ChoosePluginAbi(const std::string& flag, const std::string& path) {
  if (flag == "streamexecutor") return PluginAbi::kStreamExecutor;
  if (flag == "tvm-c-device") return PluginAbi::kTvmCDevice;
  auto recognised = RecognisePluginAbi(path);
  // A file that cannot be read is diagnosed by Open, as before.
  return recognised ? *recognised : PluginAbi::kStreamExecutor;
}

std::string PluginPathFromArgument(const std::string& argument) {
  if (argument.find('/') != std::string::npos || argument == "." || argument == "..") {
    return argument;
  }
  return "./" + argument;
}

namespace {

// The file name glibc puts before `marker` in a dlerror text.
std::string FileBefore(const std::string& dlerror_text, std::string_view marker) {
  const auto at = dlerror_text.find(marker);
  if (at == std::string::npos) return "";
  return dlerror_text.substr(0, at);
}

// Whether two paths name the same file (or, failing that, the same text).
bool SameFile(const std::string& first, const std::string& second) {
  std::error_code error;
  const bool same = std::filesystem::equivalent(first, second, error);
  return error ? first == second : same;
}

}  // namespace

std::string ExplainDlopenFailure(const std::string& path, const std::string& dlerror_text,
                                 bool lazy) {
  // glibc: "<needed>: cannot open shared object file: No such file or directory"
  constexpr std::string_view kMissingLibrary = ": cannot open shared object file";
  if (auto at = dlerror_text.find(kMissingLibrary); at != std::string::npos) {
    std::string needed = dlerror_text.substr(0, at);
    if (auto colon = needed.rfind(": "); colon != std::string::npos) {
      needed = needed.substr(colon + 2);
    }
    return fmt::format(
        "{}: needs library {}, which was not found (check LD_LIBRARY_PATH, "
        "the plugin's RUNPATH, or install it)",
        path, needed);
  }
  // glibc: "<file>: undefined symbol: <name>", where <file> is the object
  // that needs the symbol: the plugin, or a library the plugin needs.
  if (std::string symbol = AfterMarker(dlerror_text, "undefined symbol: "); !symbol.empty()) {
    const std::string needing = FileBefore(dlerror_text, ": undefined symbol: ");
    if (!needing.empty() && !SameFile(needing, path)) {
      return fmt::format(
          "{}: needs library {}, which has an unresolved symbol {} of its own (the defect is in "
          "that library, or it is another version than the one the plugin was built against)",
          path, needing, symbol);
    }
    std::string hint;
    if (!lazy && symbol.starts_with("TF_")) {
      hint =
          "; it is a TensorFlow symbol sectl does not provide: try --lazy if it is only "
          "used by kernel code";
    }
    return fmt::format("{}: unresolved symbol {}{}", path, symbol, hint);
  }
  // glibc: "... version `GLIBC_2.38' not found (required by <file>)"
  if (dlerror_text.find("version `") != std::string::npos) {
    return fmt::format("{}: needs a newer system library: {}", path, dlerror_text);
  }
  return fmt::format("{}: cannot be loaded: {}", path, dlerror_text);
}

Expected<PluginLibrary> PluginLibrary::Open(const std::string& path, const LoadOptions& options) {
  auto identity = InspectPluginFile(path);
  if (!identity) return tl::unexpected(identity.error());

  ::dlerror();  // clear any stale message
  const int mode = (options.lazy ? RTLD_LAZY : RTLD_NOW) | RTLD_LOCAL;
  void* handle = ::dlopen(path.c_str(), mode);
  if (handle == nullptr) {
    const char* text = ::dlerror();
    return Fail(ErrorCode::kFailedPrecondition,
                ExplainDlopenFailure(path, text ? text : "unknown dlopen error", options.lazy));
  }
  if (options.abi == PluginAbi::kTvmCDevice) {
    return PluginLibrary(path, *identity, handle, nullptr);
  }
  auto init = reinterpret_cast<InitPluginFunction>(::dlsym(handle, kEntryPoint));
  if (init == nullptr) {
    auto functions = ExportedFunctions(path);
    if (functions && ExportsTvmDeviceHooks(*functions)) {
      return Fail(ErrorCode::kNotFound,
                  fmt::format("{}: does not export {}, but exports TVM C Device API hooks "
                              "(TVMDevice<Name><Hook>): check it with --abi tvm-c-device",
                              path, kEntryPoint));
    }
    if (::dlsym(handle, kDraftEntryPoint) != nullptr) {
      return Fail(ErrorCode::kAbiMismatch,
                  fmt::format("{}: exports {}, the entry point of the 2020 RFC draft; it was "
                              "renamed {} before TensorFlow shipped, and the draft's structs are "
                              "incompatible with the shipped layout: rebuild the plugin against "
                              "TensorFlow's stream_executor.h",
                              path, kDraftEntryPoint, kEntryPoint));
    }
    return Fail(
        ErrorCode::kNotFound,
        fmt::format("{}: does not export {}: not a StreamExecutor plugin", path, kEntryPoint));
  }
  return PluginLibrary(path, *identity, handle, init);
}

void* PluginLibrary::FindSymbol(const char* name) const { return ::dlsym(handle_, name); }

}  // namespace sectl::loader
