#include "conform/tvm_preflight.h"

#include <fmt/format.h>

#include "abi/plugin_functions.h"
#include "isolation/collect_in_child.h"
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
    auto loaded = isolation::CollectInChild(
        [&]() -> Expected<std::string> {
          auto library = loader::PluginLibrary::Open(settings.plugin_path, load);
          if (!library) return tl::unexpected(library.error());
          return std::string();
        },
        {.timeout = timeout,
         .confinement = confinement,
         .doing = "loading the plugin",
         .plugin_path = settings.plugin_path,
         .process_name = "the preflight process"});
    if (!loaded) return tl::unexpected(loaded.error());
  }
  return TvmPluginFacts{*chosen, static_cast<int>(catalog->devices.size())};
}

}  // namespace sectl::conform
