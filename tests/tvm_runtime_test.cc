// The tvm-device-api profile on a TVM runtime library, reached through the
// runtime's own C entry points (lib/tvm/c_runtime_route.h): the reference
// runtime (reference_plugins/tvm_runtime) passes every check, each faulty
// variant is caught by exactly its check, probe lists the device types and
// attributes, and a bad or absent device is a usage error.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "faulty_plugin_test.h"
#include "loader/plugin_library.h"
#include "sectl_process.h"
#include "tvm/device_api_route.h"

namespace sectl::testing {
namespace {

std::string Runtime() { return ReferencePlugin("sectl_tvm_runtime"); }
std::string FieldRuntime(const std::string& name) {
  return std::string(SECTL_FIELD_PLUGIN_DIR) + "/" + name + ".so";
}

std::map<std::string, std::string> Statuses(const std::string& json) {
  std::map<std::string, std::string> statuses;
  const auto report = nlohmann::json::parse(json);
  for (const auto& entry : report["results"]) {
    statuses[entry["id"].get<std::string>()] = entry["status"].get<std::string>();
  }
  return statuses;
}

TEST(TvmRuntimeRecognition, TheReferenceRuntimeIsATvmRuntime) {
  auto abi = loader::RecognisePluginAbi(Runtime());
  ASSERT_TRUE(abi) << abi.error().message();
  EXPECT_EQ(*abi, loader::PluginAbi::kTvmRuntime);
  auto plugin = loader::RecognisePluginAbi(ReferencePlugin("sectl_cpu"));
  ASSERT_TRUE(plugin);
  EXPECT_EQ(*plugin, loader::PluginAbi::kStreamExecutor);
}

TEST(TvmRuntimeDeviceTypes, NamesAndNumbersAreAccepted) {
  EXPECT_EQ(tvm::ParseDeviceType("cpu").value_or(-1), 1);
  EXPECT_EQ(tvm::ParseDeviceType("cuda").value_or(-1), 2);
  EXPECT_EQ(tvm::ParseDeviceType("ext_dev").value_or(-1), 12);
  EXPECT_EQ(tvm::ParseDeviceType("12").value_or(-1), 12);
  EXPECT_FALSE(tvm::ParseDeviceType("gpu"));
  EXPECT_FALSE(tvm::ParseDeviceType("0"));
  EXPECT_FALSE(tvm::ParseDeviceType("128"));  // TVM's RPC sessions
  EXPECT_EQ(tvm::DeviceTypeName(12), "ext_dev");
  EXPECT_EQ(tvm::DeviceTypeName(99), "99");
}

TEST(TvmRuntimeConform, TheReferenceRuntimePassesEveryCheckOnEachDeviceType) {
  for (const std::string type : {"cpu", "ext_dev", "12"}) {
    const auto result =
        RunSectl({"conform", Runtime(), "--profile", "tvm-device-api", "--tvm-device-type", type,
                  "--report", "json", "--timeout", "30"});
    ASSERT_EQ(result.exit_code, 0) << type << ": " << result.err;
    const auto statuses = Statuses(result.out);
    EXPECT_EQ(statuses.size(), 12u);
    for (const auto& [id, status] : statuses) EXPECT_EQ(status, "pass") << type << " " << id;
    const auto report = nlohmann::json::parse(result.out);
    EXPECT_EQ(report["plugin"]["abi_vintage"], "TVM C runtime API (TVM up to v0.20)");
  }
}

// A runtime that behaves as TVM's own CPU backend does
// (reference_plugins/tvm_runtime/cpu_backend_core.cc): kExist 1 for every
// id, null streams, kAvailableGlobalMemory None, TVM's workspace pool. It is
// correct, so it is conformant; what it cannot show is skipped, saying why.
TEST(TvmRuntimeConform, ARuntimeBehavingAsTvmsOwnCpuBackendIsConformant) {
  const auto result = RunSectl({"conform", FieldRuntime("field_tvm_cpu_backend"),
                                "--tvm-device-type", "cpu", "--report", "json", "--timeout", "30"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::map<std::string, nlohmann::json> results;
  const auto report = nlohmann::json::parse(result.out);
  for (const auto& entry : report["results"]) {
    results[entry["id"].get<std::string>()] = entry;
  }
  ASSERT_EQ(results.size(), 12u);
  const std::map<std::string, std::string> skipped_because = {
      {"tvm_device_api.memory_attributes", "kAvailableGlobalMemory is none: nothing to compare"},
      {"tvm_device_api.workspace_reuse",
       "kAvailableGlobalMemory is None (as on TVM's own CPU, OpenCL"},
      {"tvm_device_api.sync_stream_from_to",
       "the device has no streams: TVMStreamCreate gives null"}};
  for (const auto& [id, entry] : results) {
    const auto reason = skipped_because.find(id);
    EXPECT_EQ(entry["status"], reason == skipped_because.end() ? "pass" : "skip")
        << id << ": " << entry.dump(2);
    if (reason != skipped_because.end()) {
      EXPECT_NE(entry.dump().find(reason->second), std::string::npos) << entry.dump(2);
    }
  }
  // Every id answers kExist 1; TVM's pool hands the blocks back.
  EXPECT_EQ(results["tvm_device_api.exist"]["details"]["ids_answering_1_from_0"], 64);
  EXPECT_EQ(results["tvm_device_api.workspace_stack"]["details"]["reused_after_stack_release"],
            true);
}

TEST(TvmRuntimeConform, TheSecondDeviceIdIsChecked) {
  const auto result = RunSectl({"conform", Runtime(), "--tvm-device-type", "cpu", "--tvm-device-id",
                                "1", "--report", "json", "--timeout", "30"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  for (const auto& [id, status] : Statuses(result.out)) EXPECT_EQ(status, "pass") << id;
}

TEST(TvmRuntimeConform, AnUnknownDeviceTypeIsAUsageError) {
  const auto result = RunSectl({"conform", Runtime(), "--tvm-device-type", "gpu"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("--tvm-device-type gpu: not a TVM device type"), std::string::npos)
      << result.err;
  EXPECT_TRUE(result.out.empty()) << "no report after a usage error";
}

TEST(TvmRuntimeConform, AnAbsentDeviceIsAUsageError) {
  for (const auto& arguments : std::vector<std::vector<std::string>>{
           {"--tvm-device-type", "cpu", "--tvm-device-id", "2"}, {"--tvm-device-type", "cuda"}}) {
    std::vector<std::string> command = {"conform", Runtime()};
    command.insert(command.end(), arguments.begin(), arguments.end());
    const auto result = RunSectl(command);
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_NE(result.err.find("kExist) answers 0: no such device"), std::string::npos)
        << result.err;
    EXPECT_TRUE(result.out.empty());
  }
}

TEST(TvmRuntimeConform, AnotherApisProfileDoesNotApply) {
  const auto result = RunSectl({"conform", Runtime(), "--profile", "tvm-c-device"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("does not apply to a tvm-runtime library"), std::string::npos)
      << result.err;
}

TEST(TvmRuntimeProbe, ListsTheDeviceTypesAndTheirAttributes) {
  const auto result = RunSectl({"probe", Runtime(), "--format", "json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto probe = nlohmann::json::parse(result.out);
  EXPECT_EQ(probe["route"], "TVM C runtime API (TVM up to v0.20)");
  ASSERT_EQ(probe["device_types"].size(), 2u) << result.out;
  const auto& cpu = probe["device_types"][0];
  EXPECT_EQ(cpu["name"], "cpu");
  ASSERT_EQ(cpu["devices"].size(), 2u);
  EXPECT_EQ(cpu["devices"][1]["id"], 1);
  EXPECT_EQ(cpu["devices"][0]["attributes"]["kDeviceName"], "sectl reference cpu");
  EXPECT_TRUE(cpu["devices"][0]["attributes"]["kWarpSize"].is_null());
  const auto& ext = probe["device_types"][1];
  EXPECT_EQ(ext["type"], 12);
  ASSERT_EQ(ext["devices"].size(), 1u);
  const auto& attributes = ext["devices"][0]["attributes"];
  EXPECT_EQ(attributes["kWarpSize"], 32);
  EXPECT_EQ(attributes["kMaxThreadsPerBlock"], 1024);
  EXPECT_EQ(attributes["kComputeVersion"], "1.0");
  EXPECT_EQ(attributes["kMaxThreadDimensions"], "[1024, 1024, 64]");
  EXPECT_EQ(attributes["kTotalGlobalMemory"], int64_t{1} << 30);

  const auto table = RunSectl({"probe", Runtime()});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("cpu (1): devices 0, 1"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("ext_dev (12): device 0"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("kComputeVersion"), std::string::npos);
}

// On a runtime that answers kExist 1 for every id and leaves most
// attributes None (TVM's own CPU backend), the table stays short: the
// unanswered kinds on one row, repeated devices in one line each.
TEST(TvmRuntimeProbe, ATableForTvmsOwnCpuBackendFoldsWhatItDoesNotAnswer) {
  const auto table = RunSectl({"probe", FieldRuntime("field_tvm_cpu_backend")});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("cpu (1): devices 0, 1, 2, 3, ... (kExist is 1 for every id asked"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("    kTotalGlobalMemory        "), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("    None (not answered)       kMaxThreadsPerBlock, kWarpSize, "),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("  device 3" + std::string(20, ' ') + "the same attributes as device 0"),
            std::string::npos)
      << table.out;
  EXPECT_EQ(table.out.find("none"), std::string::npos) << table.out;
  // The types TVM cannot name fail kExist; they share one line at the end.
  EXPECT_NE(table.out.find("\nkExist failed for maia (17): "), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("\"unknown type = 17\"; trn (18): "), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find("maia (17): device"), std::string::npos) << table.out;
}

// A library exporting only two of tvm-ffi's entry points is recognised as a
// TVM runtime offering the tvm-ffi route, and refused by both commands with
// the entry point the route lacks (tests/tvm_ffi_runtime_test.cc covers the
// route itself).
TEST(TvmRuntimeFfi, AnIncompleteTvmFfiRuntimeIsRefusedNamingWhatItLacks) {
  const std::string runtime = FixturePlugin("tvm_ffi_only_runtime");
  auto abi = loader::RecognisePluginAbi(runtime);
  ASSERT_TRUE(abi) << abi.error().message();
  EXPECT_EQ(*abi, loader::PluginAbi::kTvmRuntime);

  const auto conform = RunSectl({"conform", runtime, "--report", "json"});
  EXPECT_EQ(conform.exit_code, 1) << conform.err;
  const auto report = nlohmann::json::parse(conform.out);
  EXPECT_NE(report["load_error"].get<std::string>().find(
                "does not export TVMFFIErrorMoveFromRaised, which sectl's tvm-ffi route calls"),
            std::string::npos)
      << conform.out;

  const auto probe = RunSectl({"probe", runtime, "--format", "json"});
  EXPECT_NE(probe.exit_code, 0);
  EXPECT_NE(probe.err.find("TVMFFIErrorMoveFromRaised"), std::string::npos) << probe.err;
}

class TvmRuntimeFaults : public ::testing::TestWithParam<FaultCase> {};

TEST_P(TvmRuntimeFaults, AreCaughtByExactlyTheirCheck) {
  ExpectCaughtByExactlyItsCheck(GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Faults, TvmRuntimeFaults,
    ::testing::Values(
        FaultCase{"tvm_runtime_misaligned_4096", "tvm_device_api.alignment", "fail"},
        FaultCase{"tvm_runtime_alignment_only_64", "tvm_device_api.alignment_exact", "warn"},
        FaultCase{"tvm_runtime_dtod_ignores_target_offset", "tvm_device_api.copy_with_offsets",
                  "fail"},
        FaultCase{"tvm_runtime_reads_host_buffer_late", "tvm_device_api.host_buffer_reuse", "warn"},
        FaultCase{"tvm_runtime_ignores_stream_dependency", "tvm_device_api.sync_stream_from_to",
                  "fail"},
        FaultCase{"tvm_runtime_set_stream_rejects_streams", "tvm_device_api.streams", "fail"},
        FaultCase{"tvm_runtime_workspace_never_reused", "tvm_device_api.workspace_reuse", "warn"},
        FaultCase{"tvm_runtime_workspace_shared_block", "tvm_device_api.workspace_stack", "fail"},
        FaultCase{"tvm_runtime_exist_beyond_count", "tvm_device_api.exist", "fail"},
        FaultCase{"tvm_runtime_available_never_changes", "tvm_device_api.memory_attributes",
                  "warn"},
        FaultCase{"tvm_runtime_silent_allocation_failure", "tvm_device_api.errors_reported",
                  "fail"},
        FaultCase{"tvm_runtime_workspace_throws", "tvm_device_api.c_error_contract", "fail"},
        FaultCase{"tvm_runtime_stream_create_crashes_on_absent_device",
                  "tvm_device_api.c_error_contract", "crash"}),
    [](const auto& info) { return info.param.fault; });

}  // namespace
}  // namespace sectl::testing
