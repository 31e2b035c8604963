// The TVM runtime routes' journal and their C error contract: every call
// into a runtime goes through the check's journal, so a crash inside one
// names the call in flight; an exception escaping a C entry point is
// caught at the route's dispatch point and reported by
// tvm_device_api.c_error_contract with the entry point, its input and what
// its header promises (checks/tvm_error_contract_checks.cc).
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "abi/plugin_functions.h"
#include "faulty_plugin_test.h"
#include "host/journal.h"
#include "loader/plugin_library.h"
#include "sectl_process.h"
#include "tvm/runtime_call.h"
#include "tvm/runtime_route.h"

namespace sectl::testing {
namespace {

constexpr const char* kCheck = "tvm_device_api.c_error_contract";

// The check's result in a JSON report of `sectl conform` on `plugin`.
nlohmann::json ContractResult(const std::string& plugin) {
  const auto result = RunSectl({"conform", plugin, "--tvm-device-type", "cpu", "--report", "json",
                                "--timeout", "30", "--filter", kCheck});
  EXPECT_FALSE(result.out.empty()) << result.err;
  if (result.out.empty()) return {};
  const auto report = nlohmann::json::parse(result.out);
  for (const auto& entry : report["results"]) {
    if (entry["id"] == kCheck) return entry;
  }
  ADD_FAILURE() << "no " << kCheck << " in " << result.out;
  return {};
}

TEST(TvmRuntimeCatalogue, NamesTheRuntimesEntryPointsAndGlobals) {
  using abi::PluginFunction;
  EXPECT_EQ(abi::QualifiedName(PluginFunction::kTvmBackendAllocWorkspace),
            "TVMBackendAllocWorkspace");
  EXPECT_EQ(abi::QualifiedName(PluginFunction::kTvmGlobalStreamCreate),
            "runtime.Device_StreamCreate");
  EXPECT_TRUE(abi::IsTvmRuntimeFunction(PluginFunction::kTvmStreamCreate));
  EXPECT_FALSE(abi::IsTvmRuntimeFunction(PluginFunction::kCreateStream));
  EXPECT_FALSE(abi::IsTvmRuntimeFunction(PluginFunction::kTvmDevice1Destroy));
  // The C Device API's hooks are still exactly the two slots' six.
  EXPECT_EQ(abi::TvmDeviceHooks().size(), 12u);
  EXPECT_EQ(abi::TvmDeviceHooks().back().function, PluginFunction::kTvmDevice1Destroy);
  EXPECT_EQ(abi::TvmRuntimeFunctions().front().function, PluginFunction::kTvmDeviceAllocDataSpace);
}

// Both routes write every call into the journal they are given.
TEST(TvmRuntimeJournal, EveryCallOfARouteIsJournalled) {
  for (const std::string name : {"sectl_tvm_runtime", "sectl_tvm_ffi_runtime"}) {
    auto library =
        loader::PluginLibrary::Open(ReferencePlugin(name), {.abi = loader::PluginAbi::kTvmRuntime});
    ASSERT_TRUE(library) << library.error().message();
    host::Journal journal;
    auto route = tvm::OpenRuntimeRoute(*library, kDLCPU, &journal);
    ASSERT_TRUE(route) << route.error().message();
    auto workspace = (*route)->AllocWorkspace(0, 4096);
    ASSERT_TRUE(workspace) << workspace.error().message();
    ASSERT_TRUE((*route)->FreeWorkspace(0, *workspace));
    auto stream = (*route)->CreateStream(0);
    ASSERT_TRUE(stream) << stream.error().message();
    const auto entries = journal.Entries();
    auto called = [&](abi::PluginFunction function) {
      return std::any_of(entries.begin(), entries.end(), [&](const host::JournalEntry& entry) {
        return entry.function == function && entry.state == host::CallState::kReturned;
      });
    };
    EXPECT_TRUE(called(abi::PluginFunction::kTvmBackendAllocWorkspace)) << name;
    EXPECT_TRUE(called(abi::PluginFunction::kTvmBackendFreeWorkspace)) << name;
    EXPECT_TRUE(called(name == "sectl_tvm_runtime" ? abi::PluginFunction::kTvmStreamCreate
                                                   : abi::PluginFunction::kTvmGlobalStreamCreate))
        << name;
    ASSERT_TRUE((*route)->FreeStream(0, *stream));
  }
}

// A crash inside the runtime is blamed on the call in flight, through
// either route, not on "before its first call".
TEST(TvmRuntimeJournal, ACrashInsideTheRuntimeNamesTheCall) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"tvm_runtime_stream_create_crashes_on_absent_device", "in TVMStreamCreate (call #"},
      {"tvm_ffi_runtime_stream_create_crashes_on_absent_device",
       "in runtime.Device_StreamCreate (call #"}};
  for (const auto& [fault, named] : cases) {
    const auto result = ContractResult(FaultyPlugin(fault));
    EXPECT_EQ(result["status"], "crash") << result.dump(2);
    const std::string message = result.value("message", "");
    EXPECT_NE(message.find(named), std::string::npos) << fault << ": " << message;
    EXPECT_EQ(message.find("before its first call"), std::string::npos) << message;
  }
}

// An exception escaping TVMBackendAllocWorkspace or TVMBackendFreeWorkspace
// is caught at the route's dispatch point and listed with its input and
// the header's promise; the severity says who cannot catch it.
// TVM's errors go on with a stack trace; a report keeps their first line.
TEST(TvmRuntimeErrors, KeepTheFirstLineOfTheRuntimesText) {
  EXPECT_EQ(sectl::tvm::FirstLineOf("TVMError: unknown type = 17\nStack trace:\n  File \"x.h\""),
            "TVMError: unknown type = 17");
  EXPECT_EQ(sectl::tvm::FirstLineOf("\n\nInternalError: out of memory\n"),
            "InternalError: out of memory");
  EXPECT_EQ(sectl::tvm::FirstLineOf("one line"), "one line");
  EXPECT_EQ(sectl::tvm::FirstLineOf(""), "");
}

TEST(TvmErrorContract, AnEscapedExceptionIsReportedWithItsInputAndThePromise) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"tvm_runtime_workspace_throws", "TVMGetLastError"},
      {"tvm_ffi_runtime_workspace_throws", "a raised Error"}};
  for (const auto& [fault, channel] : cases) {
    const auto result = ContractResult(FaultyPlugin(fault));
    EXPECT_EQ(result["status"], "fail") << result.dump(2);
    const std::string message = result.value("message", "");
    EXPECT_NE(message.find("TVMBackendAllocWorkspace(device 0, 2^60 bytes): "
                           "TVMBackendAllocWorkspace let a C++ exception escape across the C "
                           "ABI: std::bad_alloc (its header promises nullptr and " +
                           channel),
              std::string::npos)
        << fault << ": " << message;
    EXPECT_NE(message.find("TVMBackendFreeWorkspace(device 0, a host address it never handed "
                           "out): TVMBackendFreeWorkspace let a C++ exception escape across the "
                           "C ABI: InternalError: trying to free things that has not been "
                           "allocated (its header promises -1 and " +
                           channel),
              std::string::npos)
        << fault << ": " << message;
    EXPECT_NE(message.find("C and TVM's generated code cannot catch it"), std::string::npos)
        << message;
    const std::string reason = result.value("severity_reason", "");
    EXPECT_NE(reason.find("generated code"), std::string::npos) << reason;
    EXPECT_EQ(reason.find("TensorFlow"), std::string::npos) << reason;
  }
}

// The correct reference runtimes fail every case cleanly; the absent
// device is the first id kExist answers 0 for (cpu has devices 0 and 1).
TEST(TvmErrorContract, TheReferenceRuntimesFailEveryCaseCleanly) {
  for (const std::string name : {"sectl_tvm_runtime", "sectl_tvm_ffi_runtime"}) {
    const auto result = ContractResult(ReferencePlugin(name));
    EXPECT_EQ(result["status"], "pass") << result.dump(2);
    EXPECT_EQ(result["details"]["absent_device"], 2) << result.dump(2);
    const auto& cases = result["details"]["cases"];
    EXPECT_EQ(cases.size(), 8u) << cases.dump(2);
    for (const auto& [input, outcome] : cases.items()) {
      EXPECT_EQ(outcome.get<std::string>().rfind("failed cleanly: ", 0), 0u)
          << name << " " << input << ": " << outcome;
    }
  }
}

}  // namespace
}  // namespace sectl::testing
