#include "tvm/c_device_session.h"

#include <fmt/format.h>

#include "abi/plugin_functions.h"
#include "host/dispatcher.h"

namespace sectl::tvm {

Expected<std::unique_ptr<CDeviceSession>> CDeviceSession::Start(
    const loader::PluginLibrary& library, host::Journal& journal, const std::string& c_name,
    int slot, size_t context_bytes, InitPolicy init) {
  auto storage = ContextStorage::Create(context_bytes);
  if (!storage) return tl::unexpected(storage.error());
  std::unique_ptr<CDeviceSession> session(
      new CDeviceSession(journal, c_name, slot, std::move(*storage)));
  for (Hook hook : kAllHooks) {
    session->hooks_[static_cast<size_t>(hook)] =
        reinterpret_cast<HookFunction>(library.FindSymbol(HookSymbol(c_name, hook).c_str()));
  }
  if (init == InitPolicy::kCallInitIfExported && session->Provides(Hook::kInit)) {
    auto result = session->Call(Hook::kInit);
    if (!result) return tl::unexpected(result.error());
    if (*result != 0) {
      return Fail(ErrorCode::kPluginError,
                  fmt::format("{} returned {} on zeroed context storage of {} bytes (if it needs "
                              "platform arguments, see docs/tvm-profiles.md)",
                              session->SymbolOf(Hook::kInit), *result, context_bytes));
    }
    session->initialised_ = true;
  }
  return session;
}

CDeviceSession::~CDeviceSession() {
  if (initialised_ && !abandoned_ && Provides(Hook::kDestroy)) (void)Call(Hook::kDestroy);
}

Expected<int32_t> CDeviceSession::CallWith(Hook hook, void* context) const {
  const auto& info = abi::TvmDeviceHooks()[static_cast<size_t>(slot_) * kAllHooks.size() +
                                           static_cast<size_t>(hook)];
  return host::Dispatcher(journal_).CallTvmDeviceHook(info.function,
                                                      hooks_[static_cast<size_t>(hook)], context);
}

}  // namespace sectl::tvm
