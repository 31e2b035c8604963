#include "loader/plugin_library.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <optional>

#include "base/file_digest.h"
#include "loader/exported_symbols.h"
#include "loader/fatal_signal_handlers.h"
#include "loader/plugin_file_pin.h"
#include "loader/tensorflow_stand_ins.h"
#include "loader/tvm_backend_library.h"
#include "remote/plugin_server.h"

namespace sectl::loader {
namespace {

// The entry point's name in the 2020 RFC drafts, renamed before release.
constexpr const char* kDraftEntryPoint = "SE_InitializePlugin";
constexpr const char* kEntryPoint = "SE_InitPlugin";
// The prefix of every TVM C Device API hook (TVMDeviceEthosUOpen).
constexpr std::string_view kTvmDeviceHookPrefix = "TVMDevice";

// Entry points only a TVM runtime library exports: the C API up to v0.20,
// the backend API generated code calls, and tvm-ffi's from v0.21.
constexpr std::array<std::string_view, 4> kTvmRuntimeEntryPoints = {
    "TVMFuncGetGlobal", "TVMDeviceAllocDataSpace", "TVMBackendAllocWorkspace",
    "TVMFFIFunctionGetGlobal"};

bool ExportsTvmRuntime(const std::vector<std::string>& functions) {
  return std::any_of(
      kTvmRuntimeEntryPoints.begin(), kTvmRuntimeEntryPoints.end(), [&](std::string_view name) {
        return std::binary_search(functions.begin(), functions.end(), std::string(name));
      });
}

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
  if (ExportsTvmRuntime(*functions)) return PluginAbi::kTvmRuntime;
  if (auto dependencies = ReadDynamicDependencies(path);
      dependencies && RecogniseTvmBackendLibrary(path, *functions, *dependencies)) {
    return PluginAbi::kTvmRuntime;
  }
  return ExportsTvmDeviceHooks(*functions) ? PluginAbi::kTvmCDevice : PluginAbi::kStreamExecutor;
}

std::string_view PluginAbiName(PluginAbi abi) {
  switch (abi) {
    case PluginAbi::kTvmCDevice:
      return "tvm-c-device";
    case PluginAbi::kTvmRuntime:
      return "tvm-runtime";
    case PluginAbi::kStreamExecutor:
      break;
  }
  return "streamexecutor";
}

Expected<PluginAbi> ChoosePluginAbi(const std::string& flag, const std::string& path) {
  if (flag == "streamexecutor") return PluginAbi::kStreamExecutor;
  if (flag == "tvm-c-device") return PluginAbi::kTvmCDevice;
  if (flag == "tvm-runtime") return PluginAbi::kTvmRuntime;
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
    // TensorFlow's C++ API (tensorflow::, and tsl:: it is built on): only
    // TensorFlow's own libraries define it, and a plugin that
    // registers kernels through it (REGISTER_KERNEL_BUILDER) runs in
    // nothing but the TensorFlow it was built against.
    for (const std::string_view prefix : {"_ZN10tensorflow", "_ZNK10tensorflow", "_ZN3tsl",
                                          "_ZNK3tsl", "_ZTIN10tensorflow", "_ZTVN10tensorflow"}) {
      if (symbol.starts_with(prefix)) {
        return fmt::format(
            "{}: needs TensorFlow's C++ API (unresolved symbol {}), which only TensorFlow's own "
            "libraries define: sectl provides TensorFlow's C API, so a plugin whose kernels use "
            "the C++ API cannot be loaded outside TensorFlow{}",
            path, symbol, lazy ? "" : " (--lazy defers the symbol, if only kernels use it)");
      }
    }
    std::string hint;
    if (!lazy && symbol.starts_with("TF_")) {
      hint =
          "; it is a TensorFlow C function sectl does not provide (lib/tf_c_api lists those it "
          "does): try --lazy if only kernel code calls it";
    }
    return fmt::format("{}: unresolved symbol {}{}", path, symbol, hint);
  }
  // glibc: "... version `GLIBC_2.38' not found (required by <file>)"
  if (dlerror_text.find("version `") != std::string::npos) {
    return fmt::format("{}: needs a newer system library: {}", path, dlerror_text);
  }
  return fmt::format("{}: cannot be loaded: {}", path, dlerror_text);
}

namespace {

// A file opened for reading, closed when it goes out of scope.
class ReadOnlyDescriptor {
 public:
  explicit ReadOnlyDescriptor(const std::string& path)
      : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)) {}
  ReadOnlyDescriptor(const ReadOnlyDescriptor&) = delete;
  ReadOnlyDescriptor& operator=(const ReadOnlyDescriptor&) = delete;
  ~ReadOnlyDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

// Before dlopen: the pinned path still names the file hashed, unchanged.
Expected<void> VerifyBeforeLoading(const std::string& path, const FileIdentity& pinned,
                                   const ReadOnlyDescriptor& file) {
  if (file.get() < 0) {
    return tl::unexpected(
        PluginFileChanged(path, fmt::format("it cannot be opened: {}", std::strerror(errno))));
  }
  auto now = IdentityOfOpenFile(file.get());
  if (!now || *now != pinned) {
    return tl::unexpected(
        PluginFileChanged(path, now && now->inode == pinned.inode && now->device == pinned.device
                                    ? "it was rewritten since it was hashed"
                                    : "the path names another file than the one hashed"));
  }
  return {};
}

// A page of the plugin file mapped read-only, so that /proc/self/maps shows
// how the kernel names that file in a mapping.
class MappedPage {
 public:
  explicit MappedPage(int fd) : address_(::mmap(nullptr, kLength, PROT_READ, MAP_PRIVATE, fd, 0)) {}
  MappedPage(const MappedPage&) = delete;
  MappedPage& operator=(const MappedPage&) = delete;
  ~MappedPage() {
    if (address_ != MAP_FAILED) ::munmap(address_, kLength);
  }
  const void* address() const { return address_ == MAP_FAILED ? nullptr : address_; }

 private:
  static constexpr size_t kLength = 1;  // rounded up to a page
  void* address_;
};

// The next space-separated field of `line`, taken off its front.
std::string_view TakeField(std::string_view& line) {
  const size_t start = std::min(line.find_first_not_of(' '), line.size());
  line.remove_prefix(start);
  const size_t end = std::min(line.find(' '), line.size());
  const std::string_view field = line.substr(0, end);
  line.remove_prefix(end);
  return field;
}

// The "device inode" columns of the line of /proc/self/maps whose range
// holds `address` ("start-end perms offset device inode path"), or "" when
// no line does. Parsed by hand: sscanf made this the costliest step of a load.
std::string MappedFileAt(std::string_view maps, uintptr_t address) {
  while (!maps.empty()) {
    const size_t line_end = std::min(maps.find('\n'), maps.size());
    std::string_view line = maps.substr(0, line_end);
    maps.remove_prefix(std::min(line_end + 1, maps.size()));
    uintptr_t start = 0;
    uintptr_t end = 0;
    const char* const line_stop = line.data() + line.size();
    const auto [dash, start_error] = std::from_chars(line.data(), line_stop, start, 16);
    if (start_error != std::errc() || dash == line_stop || *dash != '-') continue;
    const auto [after, end_error] = std::from_chars(dash + 1, line_stop, end, 16);
    if (end_error != std::errc() || address < start || address >= end) continue;
    line.remove_prefix(static_cast<size_t>(after - line.data()));
    TakeField(line);  // permissions
    TakeField(line);  // offset
    const std::string_view device = TakeField(line);
    const std::string_view inode = TakeField(line);
    if (device.empty() || inode.empty()) return "";
    return fmt::format("{} {}", device, inode);
  }
  return "";
}

// /proc/self/maps, or nothing where /proc is not mounted. Read with read(2):
// a stream costs more than the rest of the verification together.
std::optional<std::string> ReadOwnMappings() {
  const ReadOnlyDescriptor maps("/proc/self/maps");
  if (maps.get() < 0) return std::nullopt;
  std::string text;
  std::array<char, size_t{16} * 1024> chunk{};
  for (;;) {
    const ssize_t count = ::read(maps.get(), chunk.data(), chunk.size());
    if (count == 0) return text;
    if (count < 0 && errno != EINTR) return std::nullopt;
    if (count > 0) text.append(chunk.data(), static_cast<size_t>(count));
  }
}

// After dlopen: the object loaded is the file open on `file` (the path may
// have been switched to another file and back while dlopen read it, and
// dlopen answers a path it loaded before with what it loaded then), and
// that file was not rewritten meanwhile. Both mappings are compared as
// /proc/self/maps shows them, so that a file system that maps another
// inode than stat reports (overlayfs) names both alike.
Expected<void> VerifyAfterLoading(const std::string& path, const FileIdentity& pinned,
                                  const ReadOnlyDescriptor& file, void* loaded) {
  const MappedPage page(file.get());
  link_map* map = nullptr;
  std::optional<std::string> maps;
  if (page.address() != nullptr && ::dlinfo(loaded, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr) {
    maps = ReadOwnMappings();
  }
  if (maps) {
    const std::string hashed = MappedFileAt(*maps, reinterpret_cast<uintptr_t>(page.address()));
    const std::string running = MappedFileAt(*maps, reinterpret_cast<uintptr_t>(map->l_ld));
    if (hashed.empty() || hashed != running) {
      return tl::unexpected(PluginFileChanged(path, "the library loaded is not the file hashed"));
    }
  } else {
    // No /proc: the path, read again, must still name the file hashed.
    const ReadOnlyDescriptor again(path);
    if (auto verified = VerifyBeforeLoading(path, pinned, again); !verified) return verified;
  }
  auto now = IdentityOfOpenFile(file.get());
  if (!now || *now != pinned) {
    return tl::unexpected(PluginFileChanged(path, "it was rewritten while it was being loaded"));
  }
  return {};
}

}  // namespace

Expected<PluginLibrary> PluginLibrary::Open(const std::string& path, const LoadOptions& options) {
  auto identity = InspectPluginFile(path);
  if (!identity) return tl::unexpected(identity.error());

  // A pinned file (loader/plugin_file_pin.h) is verified on both sides of
  // dlopen, through one descriptor held open across it.
  const std::optional<FileIdentity> pinned = PinnedIdentity(path);
  std::optional<ReadOnlyDescriptor> pinned_file;
  if (pinned) {
    pinned_file.emplace(path);
    if (auto verified = VerifyBeforeLoading(path, *pinned, *pinned_file); !verified) {
      return tl::unexpected(verified.error());
    }
  }

  const int mode = (options.lazy ? RTLD_LAZY : RTLD_NOW) | RTLD_LOCAL;
  const bool tvm_runtime = options.abi == PluginAbi::kTvmRuntime;
  // A runtime's static initialisers may take over the fatal signals.
  const FatalSignalHandlers handlers_before = FatalSignalHandlers::Snapshot();
  if (tvm_runtime && !options.tvm_core.empty()) {
    if (auto preloaded = PreloadTvmCore(options.tvm_core, mode); !preloaded) {
      return tl::unexpected(preloaded.error());
    }
  }
  // What TensorFlow's installation provides by name (a StreamExecutor
  // plugin's modules need it; a TVM runtime does not).
  if (!tvm_runtime && options.abi != PluginAbi::kTvmCDevice) {
    if (auto stand_ins = LoadTensorFlowStandIns(); !stand_ins) {
      return tl::unexpected(stand_ins.error());
    }
  }
  ::dlerror();  // clear any stale message
  void* handle = ::dlopen(path.c_str(), mode);
  if (handle == nullptr) {
    const char* text = ::dlerror();
    const std::string error = text ? text : "unknown dlopen error";
    // A TVM backend library whose core the dynamic linker does not find:
    // the core beside it, or --tvm-core's.
    auto beside =
        tvm_runtime ? OpenBesideTvmCore(path, mode, options.tvm_core, error) : std::nullopt;
    if (!beside) {
      return Fail(ErrorCode::kFailedPrecondition, ExplainDlopenFailure(path, error, options.lazy));
    }
    if (!*beside) return tl::unexpected(beside->error());
    handle = **beside;
  }
  if (pinned) {
    if (auto verified = VerifyAfterLoading(path, *pinned, *pinned_file, handle); !verified) {
      return tl::unexpected(verified.error());
    }
  }
  if (options.abi == PluginAbi::kTvmCDevice || options.abi == PluginAbi::kTvmRuntime) {
    PluginLibrary library(path, *identity, handle, nullptr);
    const std::vector<int> replaced = handlers_before.ReplacedSince();
    library.signal_handlers_note_ =
        DescribeReplacedHandlers(replaced, handlers_before.RestoreOwn(replaced));
    return library;
  }
  auto init = reinterpret_cast<InitPluginFunction>(::dlsym(handle, kEntryPoint));
  if (init == nullptr) return NoEntryPoint(path, ::dlsym(handle, kDraftEntryPoint) != nullptr);
  return PluginLibrary(path, *identity, handle, init);
}

Expected<PluginLibrary> PluginLibrary::OpenInServer(const std::string& path,
                                                    const LoadOptions& options,
                                                    remote::PluginServer& server) {
  auto identity = InspectPluginFile(path);
  if (!identity) return tl::unexpected(identity.error());
  // The pinned file is checked before the server loads it; the server's
  // own /proc is not this process's to verify after (docs/plugin-server.md).
  if (const std::optional<FileIdentity> pinned = PinnedIdentity(path)) {
    const ReadOnlyDescriptor file(path);
    if (auto verified = VerifyBeforeLoading(path, *pinned, file); !verified) {
      return tl::unexpected(verified.error());
    }
  }
  for (const std::string& stand_in : TensorFlowStandIns()) {
    if (auto loaded = server.LoadHostLibrary(stand_in); !loaded) {
      return tl::unexpected(loaded.error());
    }
  }
  auto init = server.Load(path, options.lazy);
  if (!init) {
    if (init.error().code() != ErrorCode::kFailedPrecondition) return tl::unexpected(init.error());
    return Fail(ErrorCode::kFailedPrecondition,
                ExplainDlopenFailure(path, init.error().message(), options.lazy));
  }
  if (*init == 0) {
    auto functions = ExportedFunctions(path);
    const bool draft = functions && std::binary_search(functions->begin(), functions->end(),
                                                       std::string(kDraftEntryPoint));
    return NoEntryPoint(path, draft);
  }
  // The server's address: passed back to it, never called here.
  // NOLINTNEXTLINE(performance-no-int-to-ptr)
  const auto init_in_server = reinterpret_cast<InitPluginFunction>(static_cast<uintptr_t>(*init));
  PluginLibrary library(path, *identity, nullptr, init_in_server);
  library.server_ = &server;
  return library;
}

Expected<PluginLibrary> PluginLibrary::NoEntryPoint(const std::string& path,
                                                    bool exports_draft_entry_point) {
  {
    auto functions = ExportedFunctions(path);
    if (functions && ExportsTvmRuntime(*functions)) {
      return Fail(ErrorCode::kNotFound,
                  fmt::format("{}: does not export {}, but is a TVM runtime library: check it "
                              "with --profile tvm-device-api (--abi tvm-runtime)",
                              path, kEntryPoint));
    }
    if (functions && ReadTvmBackendLibrary(path)) {
      return Fail(ErrorCode::kNotFound,
                  fmt::format("{}: does not export {}, but is a TVM backend library (it needs "
                              "TVM's core and exports no TVM* function): check it with --abi "
                              "tvm-runtime",
                              path, kEntryPoint));
    }
    if (functions && ExportsTvmDeviceHooks(*functions)) {
      return Fail(ErrorCode::kNotFound,
                  fmt::format("{}: does not export {}, but exports TVM C Device API hooks "
                              "(TVMDevice<Name><Hook>): check it with --abi tvm-c-device",
                              path, kEntryPoint));
    }
    if (exports_draft_entry_point) {
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
}

void* PluginLibrary::FindSymbol(const char* name) const {
  // Loaded in a plugin server: nothing of it is in this process.
  return handle_ != nullptr ? ::dlsym(handle_, name) : nullptr;
}

Expected<uint64_t> PluginLibrary::ModuleEntryPoint(abi::PluginFunction entry_point) const {
  if (!abi::IsModuleEntryPoint(entry_point)) {
    return Fail(ErrorCode::kInternal,
                fmt::format("{} is not a module entry point", abi::QualifiedName(entry_point)));
  }
  const std::string name(abi::InfoOf(entry_point).member);
  if (server_ != nullptr) return server_->EntryPoint(name);
  return reinterpret_cast<uintptr_t>(FindSymbol(name.c_str()));
}

}  // namespace sectl::loader
