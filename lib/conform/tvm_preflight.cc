#include "conform/tvm_preflight.h"

#include <fmt/format.h>

#include "abi/plugin_functions.h"
#include "isolation/child_process.h"
#include "isolation/confinement.h"
#include "loader/plugin_library.h"

namespace sectl::conform {

Expected<TvmPluginFacts> PreflightTvmCDevice(const CheckSettings& settings,
                                             std::chrono::milliseconds timeout, bool isolate,
                                             const isolation::Confinement& confinement) {
  auto catalog = tvm::ReadCDeviceCatalog(settings.plugin_path);
  if (!catalog) return tl::unexpected(catalog.error());
  if (catalog->devices.empty()) {
    return Fail(ErrorCode::kNotFound,
                fmt::format("{}: exports no TVM C Device API hooks (TVMDevice<Name><Hook>)",
                            settings.plugin_path));
  }
  auto chosen = tvm::ChooseDevicesUnderTest(*catalog, settings.tvm_device);
  if (!chosen) return tl::unexpected(chosen.error());
  // The journal names hooks by device; children inherit this.
  abi::SetTvmDeviceNames(chosen->device, chosen->second.value_or("<none>"));

  const loader::LoadOptions load{.lazy = settings.lazy, .abi = loader::PluginAbi::kTvmCDevice};
  if (!isolate) {
    auto library = loader::PluginLibrary::Open(settings.plugin_path, load);
    if (!library) return tl::unexpected(library.error());
  } else {
    auto child = isolation::RunInChildProcess(
        [&](int result_fd) {
          auto library = loader::PluginLibrary::Open(settings.plugin_path, load);
          isolation::WriteResult(result_fd, library ? std::string() : library.error().message());
          return library ? 0 : 1;
        },
        {.timeout = timeout, .confinement = confinement});
    if (!child) return tl::unexpected(child.error());
    switch (child->end) {
      case isolation::ChildEnd::kTimedOut:
        return Fail(ErrorCode::kTimeout,
                    fmt::format("{}: loading the plugin did not finish within {:.0f} s",
                                settings.plugin_path, static_cast<double>(timeout.count()) / 1e3));
      case isolation::ChildEnd::kSignaled:
        return Fail(ErrorCode::kCrashed,
                    fmt::format("{}: loading the plugin crashed with {}", settings.plugin_path,
                                isolation::SignalName(child->signal)));
      case isolation::ChildEnd::kExited:
        if (child->exit_code != 0) {
          return Fail(ErrorCode::kPluginError,
                      child->result.empty()
                          ? fmt::format("{}: loading the plugin ended the process with status {}",
                                        settings.plugin_path, child->exit_code)
                          : child->result);
        }
        break;
    }
  }
  return TvmPluginFacts{*chosen, static_cast<int>(catalog->devices.size())};
}

}  // namespace sectl::conform
