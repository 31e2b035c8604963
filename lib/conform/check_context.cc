#include "conform/check_context.h"

#include <fmt/format.h>

#include "tvm/runtime_route.h"
#include "tvm/se_device_api_route.h"

namespace sectl::conform {

CheckContext::CheckContext(const CheckDefinition& definition, const CheckSettings& settings,
                           host::Journal& journal)
    : CommonCheckContext(definition, settings, journal) {}

CheckContext::~CheckContext() { TearDown(); }

void CheckContext::TearDown() {
  tvm_route_.reset();
  device_.reset();
  platform_.reset();
}

host::Platform& CheckContext::platform() {
  if (!platform_) {
    auto created = host::Platform::Create(
        library(), journal(), {.generation = settings().generation, .server = server()});
    if (!created) Abort(DescribeFailure("registering the plugin", created.error()));
    platform_ = std::move(*created);
    // A function that crashed or hung before the checks is not called again
    // by a check that only uses it: the check is blocked by it at once.
    for (const LearnedProblem& learned : settings().learned_before_checks) {
      if (learned.misbehaviour != Misbehaviour::kCrashOrHang || Tests(learned.function)) continue;
      platform_->Refuse(learned.function,
                        fmt::format("not called: {} (learned before the checks)", learned.problem));
    }
  }
  return *platform_;
}

const host::Device& CheckContext::device() {
  if (!device_) {
    if (settings().plugin_reports_no_devices) Skip(std::string(kNoDevicesReason));
    auto created = platform().CreateDevice(settings().device_ordinal);
    if (!created) {
      Abort(DescribeFailure(fmt::format("creating device {}", settings().device_ordinal),
                            created.error()));
    }
    device_ = std::move(*created);
    // Streams wait for their work before they are destroyed, as in
    // TensorFlow, unless that wait crashed or hung before (checks that test
    // it still use it): then by another way, or not at all.
    const auto wait = platform().Provides(abi::PluginFunction::kBlockHostUntilDone)
                          ? abi::PluginFunction::kBlockHostUntilDone
                          : abi::PluginFunction::kBlockHostForEvent;
    if (Avoids(wait) && !Tests(wait)) {
      device_->set_stream_teardown_wait(
          Avoids(abi::PluginFunction::kSynchronizeAllActivity)
              ? host::Device::StreamTeardownWait::kNone
              : host::Device::StreamTeardownWait::kSynchronizeAllActivity);
    }
  }
  return *device_;
}

tvm::DeviceApiRoute& CheckContext::tvm_route() {
  if (!tvm_route_) {
    if (settings().abi == loader::PluginAbi::kTvmRuntime) {
      // Journalled in the check's journal: a crash or hang inside the
      // runtime names the call in flight.
      auto route = tvm::OpenRuntimeRoute(library(), settings().tvm_device_type, &journal());
      if (!route) Abort(DescribeFailure("reaching the runtime's DeviceAPI", route.error()));
      tvm_route_ = std::move(*route);
    } else {
      tvm_route_ = tvm::MakeStreamExecutorRoute(platform(), settings().tvm_device_type);
    }
  }
  return *tvm_route_;
}

Expected<std::unique_ptr<host::Platform>> CheckContext::CreatePlatform(
    const host::PlatformOptions& options) {
  host::PlatformOptions in_server = options;
  in_server.server = server();
  return host::Platform::Create(library(), journal(), in_server);
}

}  // namespace sectl::conform
