// What a TVM C Device API check body works with (profile tvm-c-device): the
// devices the plugin file exports, the device under test with its context
// storage, besides what every check has (common_check_context.h). Created
// afresh for every check, in the check's own process.
#pragma once

#include <memory>
#include <optional>

#include "conform/common_check_context.h"
#include "tvm/c_device_catalog.h"
#include "tvm/c_device_session.h"

namespace sectl::conform {

class TvmCheckContext : public CommonCheckContext {
 public:
  TvmCheckContext(const CheckDefinition& definition, const CheckSettings& settings,
                  host::Journal& journal);
  ~TvmCheckContext();
  TvmCheckContext(const TvmCheckContext&) = delete;
  TvmCheckContext& operator=(const TvmCheckContext&) = delete;

  // The devices the file exports, and the ones under test (see
  // tvm::ChooseDevicesUnderTest).
  const tvm::CDeviceCatalog& tvm_catalog();
  const tvm::DevicesUnderTest& tvm_devices_under_test();
  // The device under test, with its context storage (Init called when the
  // plugin has Init), created on first use. Skips the check when one of the
  // four generated-code hooks is not exported with C linkage: that is
  // tvm_c_device.hooks_exported's finding, not every check's.
  tvm::CDeviceSession& tvm_device();
  // Another session of your own: a second context of the device under test
  // (second_device false), or one of the plugin's other device (true; skips
  // the check if it has none).
  std::unique_ptr<tvm::CDeviceSession> NewTvmSession(bool second_device);

  // Ends the device session now, so that a crash there is still this
  // check's.
  void TearDown();

 private:
  std::optional<tvm::CDeviceCatalog> tvm_catalog_;
  std::optional<tvm::DevicesUnderTest> tvm_devices_;
  std::unique_ptr<tvm::CDeviceSession> tvm_device_;
};

}  // namespace sectl::conform
