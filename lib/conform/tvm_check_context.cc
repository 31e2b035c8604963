#include "conform/tvm_check_context.h"

#include <fmt/format.h>

#include "abi/plugin_functions.h"

namespace sectl::conform {

TvmCheckContext::TvmCheckContext(const CheckDefinition& definition, const CheckSettings& settings,
                                 host::Journal& journal)
    : CommonCheckContext(definition, settings, journal) {}

TvmCheckContext::~TvmCheckContext() { TearDown(); }

void TvmCheckContext::TearDown() { tvm_device_.reset(); }

const tvm::CDeviceCatalog& TvmCheckContext::tvm_catalog() {
  if (!tvm_catalog_) {
    auto catalog = tvm::ReadCDeviceCatalog(settings().plugin_path);
    if (!catalog) Abort(DescribeFailure("reading the plugin's exported hooks", catalog.error()));
    tvm_catalog_ = std::move(*catalog);
  }
  return *tvm_catalog_;
}

const tvm::DevicesUnderTest& TvmCheckContext::tvm_devices_under_test() {
  if (!tvm_devices_) {
    auto chosen = tvm::ChooseDevicesUnderTest(tvm_catalog(), settings().tvm_device);
    if (!chosen) Abort(chosen.error().message());
    tvm_devices_ = std::move(*chosen);
    abi::SetTvmDeviceNames(tvm_devices_->device, tvm_devices_->second.value_or("<none>"));
  }
  return *tvm_devices_;
}

std::unique_ptr<tvm::CDeviceSession> TvmCheckContext::NewTvmSession(bool second_device) {
  const auto& chosen = tvm_devices_under_test();
  if (second_device && !chosen.second) {
    Skip(fmt::format("the plugin has one device ({}); this check needs two", chosen.device));
  }
  const std::string& c_name = second_device ? *chosen.second : chosen.device;
  const tvm::CDeviceEntry* entry = tvm_catalog().Find(c_name);
  if (entry != nullptr) {
    if (auto missing = entry->MissingGeneratedCodeHooks(); !missing.empty()) {
      Skip(
          fmt::format("{} is not exported with C linkage (tvm_c_device.hooks_exported reports "
                      "it); generated code could not be linked",
                      tvm::HookSymbol(c_name, missing.front())));
    }
  }
  auto session = tvm::CDeviceSession::Start(library(), journal(), c_name, second_device ? 1 : 0,
                                            settings().tvm_context_bytes);
  if (!session) Abort(DescribeFailure(fmt::format("starting device {}", c_name), session.error()));
  return std::move(*session);
}

tvm::CDeviceSession& TvmCheckContext::tvm_device() {
  if (!tvm_device_) tvm_device_ = NewTvmSession(false);
  return *tvm_device_;
}

}  // namespace sectl::conform
