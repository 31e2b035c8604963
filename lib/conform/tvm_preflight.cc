#include "conform/tvm_preflight.h"

#include <fmt/format.h>

#include "abi/plugin_functions.h"
#include "isolation/child_outcome.h"
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
          return library ? isolation::kChildReported : isolation::kChildFailed;
        },
        {.timeout = timeout, .confinement = confinement});
    if (!child) return tl::unexpected(child.error());
    const isolation::ChildOutcome judged = isolation::JudgeChild(*child, confinement);
    switch (judged.blame) {
      case isolation::Blame::kSectl:
        return Fail(ErrorCode::kInternal, judged.description);
      case isolation::Blame::kLimit:
      case isolation::Blame::kPlugin:
        return Fail(
            child->end == isolation::ChildEnd::kTimedOut ? ErrorCode::kTimeout
            : child->end == isolation::ChildEnd::kExited ? ErrorCode::kPluginError
                                                         : ErrorCode::kCrashed,
            fmt::format("{}: loading the plugin {}", settings.plugin_path, judged.description));
      case isolation::Blame::kNone:
        if (child->exit_code != isolation::kChildReported) {
          return Fail(ErrorCode::kPluginError, child->result);
        }
        break;
    }
  }
  return TvmPluginFacts{*chosen, static_cast<int>(catalog->devices.size())};
}

}  // namespace sectl::conform
