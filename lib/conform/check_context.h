// What a StreamExecutor check body works with: the plugin, registered by
// the embedded host runtime as TensorFlow would, and the device under test,
// besides what every check has (common_check_context.h). Created afresh for
// every check, in the check's own process.
#pragma once

#include <memory>

#include "conform/common_check_context.h"
#include "host/device.h"
#include "host/platform.h"
#include "tvm/device_api_route.h"

namespace sectl::conform {

class CheckContext : public CommonCheckContext {
 public:
  CheckContext(const CheckDefinition& definition, const CheckSettings& settings,
               host::Journal& journal);
  // Tears down what the check created, in TensorFlow's order.
  ~CheckContext();
  CheckContext(const CheckContext&) = delete;
  CheckContext& operator=(const CheckContext&) = delete;

  // The registered platform, created on first use (SE_InitPlugin and the
  // create_* calls that follow it in TensorFlow).
  host::Platform& platform();
  // The device under test, created on first use.
  const host::Device& device();

  // A platform registered by a host other than the default one: another
  // offered version, older or newer struct sizes. For checks about
  // registration itself; the caller owns it and must not also use
  // platform() (a plugin may keep global state per registration). An error
  // means SE_InitPlugin failed, which such a check may expect.
  Expected<std::unique_ptr<host::Platform>> CreatePlatform(const host::PlatformOptions& options);

  // Profile tvm-device-api: the route to the DeviceAPI under test, made on
  // first use: a TVM runtime library's own entry points when the file is
  // one (--abi tvm-runtime), else sectl's adapter over platform().
  tvm::DeviceApiRoute& tvm_route();

  // Destroys the device and the platform now (TensorFlow's teardown order),
  // so that a crash in teardown is still attributed to this check.
  void TearDown();

 private:
  std::unique_ptr<host::Platform> platform_;
  std::unique_ptr<host::Device> device_;
  std::unique_ptr<tvm::DeviceApiRoute> tvm_route_;  // before platform_ in TearDown
};

}  // namespace sectl::conform
