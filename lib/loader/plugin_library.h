// Opening a plugin file the way TensorFlow does, with a precise one-line
// diagnosis when it cannot be opened.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "abi/plugin_functions.h"
#include "base/error.h"
#include "loader/elf_identity.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

namespace sectl::remote {
class PluginServer;
}  // namespace sectl::remote

namespace sectl::loader {

using InitPluginFunction = void (*)(SE_PlatformRegistrationParams*, TF_Status*);

// Which plugin API a library implements.
enum class PluginAbi {
  kStreamExecutor,  // exports SE_InitPlugin
  kTvmCDevice,      // exports TVM C Device API hooks TVMDevice<Name><Hook> (lib/tvm)
  kTvmRuntime,      // a TVM runtime library: its C API or tvm-ffi (lib/tvm/device_api_route.h)
};

struct LoadOptions {
  // RTLD_LAZY instead of RTLD_NOW: for plugins whose kernel code refers to
  // TensorFlow symbols sectl does not provide (its C++ API).
  bool lazy = false;
  // kTvmCDevice, kTvmRuntime: do not look for SE_InitPlugin (init_plugin()
  // is null).
  PluginAbi abi = PluginAbi::kStreamExecutor;
  // kTvmRuntime: TVM's core library (--tvm-core), loaded first so that a
  // backend library's DT_NEEDED on the core names it. Without it, a core
  // the dynamic linker does not find is looked for beside the backend
  // (loader/tvm_backend_library.h).
  std::string tvm_core;
};

// The API a plugin file implements, read from its exported functions without
// loading it: SE_InitPlugin means StreamExecutor; otherwise one of a TVM
// runtime's entry points (TVMFuncGetGlobal, TVMDeviceAllocDataSpace,
// TVMBackendAllocWorkspace, TVMFFIFunctionGetGlobal) means a TVM runtime;
// otherwise a TVM backend library (no SE_InitPlugin, no TVM* function,
// DT_NEEDED on TVM's core: loader/tvm_backend_library.h) means a TVM runtime
// too; otherwise any TVMDevice* function means the TVM C Device API;
// otherwise StreamExecutor, so that
// PluginLibrary::Open gives its diagnosis of what is missing.
Expected<PluginAbi> RecognisePluginAbi(const std::string& path);

// "streamexecutor", "tvm-c-device", "tvm-runtime" (the values of --abi).
std::string_view PluginAbiName(PluginAbi abi);

// --abi: "streamexecutor", "tvm-c-device" or "tvm-runtime" as said, "auto"
// recognised from
// the file (RecognisePluginAbi).
Expected<PluginAbi> ChoosePluginAbi(const std::string& flag, const std::string& path);

// A bare file name means a file in the current directory, never a search
// of the library path: "plugin.so" becomes "./plugin.so".
std::string PluginPathFromArgument(const std::string& argument);

// A loaded plugin library and its entry point.
//
// The library is never unloaded. TensorFlow never unloads a plugin either,
// and unloading code whose threads may still be running would turn a
// plugin's leak into a crash of sectl.
class PluginLibrary {
 public:
  // Checks the file (see InspectPluginFile), dlopens it with RTLD_LOCAL and
  // RTLD_NOW (or RTLD_LAZY), and finds SE_InitPlugin (for kStreamExecutor).
  static Expected<PluginLibrary> Open(const std::string& path, const LoadOptions& options);

  // Has `server` load the StreamExecutor plugin at `path` in its own process
  // (docs/plugin-server.md): nothing of the plugin is mapped here.
  // init_plugin() is then the server's address of SE_InitPlugin, to be
  // called through the server only (host::Dispatcher), and FindSymbol finds
  // nothing. Errors are Open's, for the same files.
  static Expected<PluginLibrary> OpenInServer(const std::string& path, const LoadOptions& options,
                                              remote::PluginServer& server);

  const std::string& path() const { return path_; }
  const ElfIdentity& identity() const { return identity_; }
  // The server the plugin was loaded in (OpenInServer), or nullptr: it is
  // in this process.
  remote::PluginServer* server() const { return server_; }
  InitPluginFunction init_plugin() const { return init_plugin_; }
  // A TVM library (kTvmCDevice, kTvmRuntime) that replaced sectl's handlers
  // of fatal signals while loading (loader/fatal_signal_handlers.h): what
  // it did and what sectl put back, in one line; "" when it did not.
  const std::string& signal_handlers_note() const { return signal_handlers_note_; }
  void* FindSymbol(const char* name) const;
  // The address of a module entry point the plugin exports (`entry_point`
  // one of abi::ModuleEntryPoints()), where the plugin lives: found in this
  // process, or asked of the server (OpenInServer). 0 when the plugin does
  // not export it.
  Expected<uint64_t> ModuleEntryPoint(abi::PluginFunction entry_point) const;
  // Sets `slot` to the function `name` (the library's own or a
  // dependency's), or to null and appends `name` to `missing`: for binding
  // a table of entry points and naming every one a library lacks.
  template <typename Function>
  void BindFunction(const char* name, Function& slot, std::vector<std::string>& missing) const {
    slot = reinterpret_cast<Function>(FindSymbol(name));
    if (slot == nullptr) missing.emplace_back(name);
  }

 private:
  // Why a library that loaded is no StreamExecutor plugin.
  static Expected<PluginLibrary> NoEntryPoint(const std::string& path,
                                              bool exports_draft_entry_point);

  PluginLibrary(std::string path, ElfIdentity identity, void* handle, InitPluginFunction init)
      : path_(std::move(path)), identity_(identity), handle_(handle), init_plugin_(init) {}

  std::string path_;
  ElfIdentity identity_;
  void* handle_;
  InitPluginFunction init_plugin_;
  remote::PluginServer* server_ = nullptr;
  std::string signal_handlers_note_;
};

// Turns dlopen's error text into the one-line cause: a missing needed
// library, an unresolved symbol, or the loader's own words.
std::string ExplainDlopenFailure(const std::string& path, const std::string& dlerror_text,
                                 bool lazy);

}  // namespace sectl::loader
