// One TVM C Device API device in use, as an application holds it: the
// device's hooks bound from the loaded plugin, the context storage the
// application provides, Init called on it when the plugin has Init, and
// Destroy when the session ends. Every hook call goes through the
// Dispatcher, so it is journalled ("in TVMDeviceWooflesOpen (call #12)").
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "base/error.h"
#include "host/journal.h"
#include "loader/plugin_library.h"
#include "tvm/c_device_names.h"
#include "tvm/context_storage.h"

namespace sectl::tvm {

// How Init is called. TVM never called Init itself: the application does,
// with whatever platform arguments it has. sectl can only pass the context,
// so a plugin whose Init needs more should accept a zeroed context as
// "defaults" (see docs/tvm-profiles.md).
enum class InitPolicy { kCallInitIfExported, kNone };

class CDeviceSession {
 public:
  // `slot` is the journal's name slot (0: the device under test, 1: the
  // second device). An error when the storage cannot be made, or Init fails.
  static Expected<std::unique_ptr<CDeviceSession>> Start(
      const loader::PluginLibrary& library, host::Journal& journal, const std::string& c_name,
      int slot, size_t context_bytes, InitPolicy init = InitPolicy::kCallInitIfExported);
  ~CDeviceSession();
  CDeviceSession(const CDeviceSession&) = delete;
  CDeviceSession& operator=(const CDeviceSession&) = delete;

  const std::string& c_name() const { return c_name_; }
  bool Provides(Hook hook) const { return hooks_[static_cast<size_t>(hook)] != nullptr; }
  // "TVMDeviceWooflesOpen".
  std::string SymbolOf(Hook hook) const { return HookSymbol(c_name_, hook); }

  void* context() const { return storage_.context(); }
  const ContextStorage& storage() const { return storage_; }

  // Calls the hook on this session's context (or on `context`, for probing
  // NULL or foreign contexts): the plugin's return value, or an error when
  // the hook is not exported or threw a C++ exception.
  Expected<int32_t> Call(Hook hook) const { return CallWith(hook, context()); }
  Expected<int32_t> CallWith(Hook hook, void* context) const;

  // Never call into the plugin again, not even Destroy: a thread of the
  // check is stuck inside it.
  void Abandon() { abandoned_ = true; }

 private:
  using HookFunction = int32_t (*)(void*);
  CDeviceSession(host::Journal& journal, std::string c_name, int slot, ContextStorage storage)
      : journal_(journal), c_name_(std::move(c_name)), slot_(slot), storage_(std::move(storage)) {}

  host::Journal& journal_;
  std::string c_name_;
  int slot_;
  ContextStorage storage_;
  std::array<HookFunction, kAllHooks.size()> hooks_{};
  bool initialised_ = false;
  bool abandoned_ = false;
};

}  // namespace sectl::tvm
