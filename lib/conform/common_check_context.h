// What every check's context has, whatever API the check tests: the run's
// settings, the check's journal, the plugin library, and the ways to report
// what the check finds. CheckContext (StreamExecutor plugins) and
// TvmCheckContext (TVM C Device API plugins) add the API under test.
#pragma once

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "abi/host_generations.h"
#include "abi/plugin_functions.h"
#include "base/error.h"
#include "conform/check_registry.h"
#include "conform/learned_problem.h"
#include "host/journal.h"
#include "loader/plugin_library.h"
#include "report/conform_report.h"
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
  // Profile tvm-device-api: the DLDeviceType whose DeviceAPI is under test
  // (--tvm-device-type; cpu unless said). The device id is device_ordinal.
  int tvm_device_type = 1;
  // A TVM runtime library: TVM's core library to load first (--tvm-core;
  // loader::LoadOptions::tvm_core).
  std::string tvm_core;
  // The sectl-plugin-server executable: a StreamExecutor plugin is loaded
  // and called there, in a process of its own, never in the check's
  // (conform/check_process_server.h). Empty: in the check's process (the
  // TVM profiles, and --isolation none).
  std::string plugin_server;
  // Plugin allocations in the check's process end at an inaccessible page,
  // so an overrun crashes at the faulty write (--no-guard-malloc: off).
  bool guard_malloc = true;
  // Plugin functions that crashed or hung in an earlier run of this check,
  // which only uses them, or that misbehaved before the checks (below):
  // set up and observe through other routes now.
  std::vector<abi::PluginFunction> avoid;
  // What sectl learned before the checks about the functions checks use as
  // helpers (conform/helper_triage.h); each is also in `avoid`.
  std::vector<LearnedProblem> learned_before_checks;
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

class CommonCheckContext {
 public:
  CommonCheckContext(const CommonCheckContext&) = delete;
  CommonCheckContext& operator=(const CommonCheckContext&) = delete;

  const CheckSettings& settings() const { return settings_; }
  const abi::HostGeneration& generation() const { return settings_.generation; }
  host::Journal& journal() { return journal_; }

  // The plugin library, opened on first use: in the plugin server when the
  // settings name one (server() is then that server).
  const loader::PluginLibrary& library();
  // The plugin server the plugin runs in, or nullptr: in this process.
  remote::PluginServer* server();

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
  // Why `function` is avoided, as a clause: what was learned about it before
  // the checks, or that it crashed or hung in an earlier run of this check,
  // or failed earlier in this one. Empty when it is not avoided.
  std::string WhyAvoided(abi::PluginFunction function) const;
  // What sectl learned about `function` before the checks, if anything.
  const LearnedProblem* LearnedBeforeChecks(abi::PluginFunction function) const;
  // How long to wait for `function` to do what a correct plugin does at
  // once: `usual`, or only kBriefPatience where it was already seen not to
  // do it in a whole second before the checks (a check that tests it then
  // confirms what was learned rather than waiting again, and says so).
  std::chrono::milliseconds Patience(abi::PluginFunction function,
                                     std::chrono::milliseconds usual) const;
  static constexpr std::chrono::milliseconds kBriefPatience{250};
  // ", as before the checks, where <what was learned>", or "" when nothing
  // was learned about `function`: for the message of a check whose wait was
  // shortened by Patience.
  std::string AsLearnedBeforeChecks(abi::PluginFunction function) const;

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
  // Fails the check on `culprit` and stops it: for a check that tests
  // several functions and knows which one its failure speaks of.
  [[noreturn]] void AbortIn(abi::PluginFunction culprit, std::string message);
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

  CheckOutcome TakeOutcome();

 protected:
  CommonCheckContext(const CheckDefinition& definition, const CheckSettings& settings,
                     host::Journal& journal);
  ~CommonCheckContext();

  static std::string DescribeFailure(std::string_view doing, const Error& error);
  [[noreturn]] void StopOn(std::string_view doing, const Error& error);

 private:
  void BlameExceptionsAcrossTheApi();

  const CheckDefinition& definition_;
  const CheckSettings& settings_;
  host::Journal& journal_;
  std::unique_ptr<loader::PluginLibrary> library_;
  CheckOutcome outcome_;
  std::vector<std::string> failures_;
  std::vector<std::string> warnings_;
  std::vector<abi::PluginFunction> avoided_;
  uint64_t exceptions_seen_ = 0;  // the journal's count when the check began
};

}  // namespace sectl::conform
