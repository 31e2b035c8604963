// What a check body works with: the plugin, registered by the embedded host
// runtime as TensorFlow would; the device under test; and the ways to report
// what it finds. Created afresh for every check, in the check's own process.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "abi/host_generations.h"
#include "abi/plugin_functions.h"
#include "base/error.h"
#include "conform/check_registry.h"
#include "host/device.h"
#include "host/journal.h"
#include "host/platform.h"
#include "loader/plugin_library.h"
#include "report/conform_report.h"
#include "tvm/c_device_catalog.h"
#include "tvm/c_device_session.h"
#include "tvm/context_storage.h"

namespace sectl::conform {

// Why a check that needs a device is skipped when the plugin has none.
inline constexpr std::string_view kNoDevicesReason = "the plugin reports no devices";

// What every check of a run shares.
struct CheckSettings {
  std::string plugin_path;
  bool lazy = false;
  abi::HostGeneration generation = abi::LatestHostGeneration();
  int device_ordinal = 0;  // the device under test (--device)
  // get_device_count reported no devices (0 or fewer): checks that need a
  // device skip, so that a machine without one still gets a full report.
  bool plugin_reports_no_devices = false;
  // The TVM C Device API (profile tvm-c-device): the plugin's API, the
  // device under test (--tvm-device; empty: the first) and the size of the
  // context storage sectl provides (--context-bytes).
  loader::PluginAbi abi = loader::PluginAbi::kStreamExecutor;
  std::string tvm_device;
  size_t tvm_context_bytes = tvm::kDefaultContextBytes;
  // Plugin allocations in the check's process end at an inaccessible page,
  // so an overrun crashes at the faulty write (--no-guard-malloc: off).
  bool guard_malloc = true;
  // Plugin functions that crashed or hung in an earlier run of this check,
  // which only uses them: set up and observe through other routes now.
  std::vector<abi::PluginFunction> avoid;
};

struct CheckOutcome {
  report::CheckStatus status = report::CheckStatus::kPass;
  std::string message;
  nlohmann::json details = nlohmann::json::object();
  // The plugin functions a failure is blamed on; for kBlocked, the one
  // function that blocked the check.
  std::vector<abi::PluginFunction> culprits;
  // A C++ exception crossed the C API: a required failure whatever the
  // check's severity, as every TensorFlow generation terminates.
  bool exception_across_api = false;
};

// Thrown by Skip and Abort to leave a check body; caught by the runner. It
// never crosses into plugin code: bodies run on sectl's side of the API.
struct CheckStopped {};

// Thrown when the check cannot go on for a reason that is neither the
// plugin's defect nor the check's finding (the plugin file changed during
// the run): the check is an `error`, caught by RunCheckBody.
struct CheckCannotGoOn {
  std::string message;
};

class CheckContext {
 public:
  CheckContext(const CheckDefinition& definition, const CheckSettings& settings,
               host::Journal& journal);
  // Tears down what the check created, in TensorFlow's order.
  ~CheckContext();
  CheckContext(const CheckContext&) = delete;
  CheckContext& operator=(const CheckContext&) = delete;

  const CheckSettings& settings() const { return settings_; }
  const abi::HostGeneration& generation() const { return settings_.generation; }
  host::Journal& journal() { return journal_; }

  // The plugin library, opened on first use.
  const loader::PluginLibrary& library();
  // The registered platform, created on first use (SE_InitPlugin and the
  // create_* calls that follow it in TensorFlow).
  host::Platform& platform();
  // The device under test, created on first use.
  const host::Device& device();

  // TVM C Device API plugins (profile tvm-c-device). The devices the file
  // exports, and the ones under test (see tvm::ChooseDevicesUnderTest).
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

  // A platform registered by a host other than the default one: another
  // offered version, older or newer struct sizes. For checks about
  // registration itself; the caller owns it and must not also use
  // platform() (a plugin may keep global state per registration). An error
  // means SE_InitPlugin failed, which such a check may expect.
  Expected<std::unique_ptr<host::Platform>> CreatePlatform(const host::PlatformOptions& options);

  // Whether this check tests `function` (its declared .tests), rather than
  // only using it to set up or observe.
  bool Tests(abi::PluginFunction function) const { return definition_.Tests(function); }
  // Whether a check should set up or observe without `function`: it crashed
  // or hung in an earlier run of this check, or failed earlier in this one
  // (see Avoid). Helpers with several routes take another one.
  bool Avoids(abi::PluginFunction function) const;
  // Records that `function` misbehaved while this check only used it, so
  // that helpers with another route take it from now on.
  void Avoid(abi::PluginFunction function);

  // Reporting. A check passes unless it fails, warns, skips or is blocked.
  // A failure is blamed on the function the check tests when it tests one;
  // FailIn names the function when it tests several.
  void Expect(bool condition, std::string_view failure_message);
  void Fail(std::string message);
  void FailIn(abi::PluginFunction culprit, std::string message);
  void Warn(std::string message);
  // A warning about `culprit`, which the root-cause summary names.
  void WarnIn(abi::PluginFunction culprit, std::string message);
  [[noreturn]] void Skip(std::string reason);
  [[noreturn]] void Abort(std::string message);  // fail and stop the check
  // Stops the check because `function`, which it only uses, is broken:
  // `what_happened` says how. A function the check tests fails it instead.
  [[noreturn]] void Blocked(abi::PluginFunction function, std::string what_happened);

  // The value, or the check stops with "<doing>: <error>": blocked when the
  // error is a plugin function's that this check only uses, failed otherwise.
  template <typename T>
  T Require(Expected<T> value, std::string_view doing) {
    if (!value) StopOn(doing, value.error());
    if constexpr (!std::is_void_v<T>) return std::move(*value);
  }

  // Check-specific facts for the report.
  nlohmann::json& details() { return outcome_.details; }

  // Destroys the device and the platform now (TensorFlow's teardown order),
  // so that a crash in teardown is still attributed to this check.
  void TearDown();

  CheckOutcome TakeOutcome();

 private:
  static std::string DescribeFailure(std::string_view doing, const Error& error);
  [[noreturn]] void StopOn(std::string_view doing, const Error& error);
  void BlameExceptionsAcrossTheApi();

  const CheckDefinition& definition_;
  const CheckSettings& settings_;
  host::Journal& journal_;
  std::unique_ptr<loader::PluginLibrary> library_;
  std::unique_ptr<host::Platform> platform_;
  std::unique_ptr<host::Device> device_;
  std::optional<tvm::CDeviceCatalog> tvm_catalog_;
  std::optional<tvm::DevicesUnderTest> tvm_devices_;
  std::unique_ptr<tvm::CDeviceSession> tvm_device_;
  CheckOutcome outcome_;
  std::vector<std::string> failures_;
  std::vector<std::string> warnings_;
  std::vector<abi::PluginFunction> avoided_;
  uint64_t exceptions_seen_ = 0;  // the journal's count when the check began
};

// Runs the check's body with a fresh context and returns its outcome: what
// the body reported, or `error` when sectl itself failed (an exception of
// sectl's).
CheckOutcome RunCheckBody(const CheckDefinition& check, const CheckSettings& settings,
                          host::Journal& journal);

}  // namespace sectl::conform
