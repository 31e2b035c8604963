// The tvm-device-api profile on a TVM runtime from v0.21 on, reached
// through tvm-ffi (lib/tvm/ffi_runtime_route.h): the reference tvm-ffi
// runtime (reference_plugins/tvm_runtime) passes every check that runs
// there, each faulty variant is caught by exactly its check, probe lists
// the device types and attributes, the runtime's raised errors reach
// sectl's messages, and the route releases every object it is handed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "faulty_plugin_test.h"
#include "loader/plugin_library.h"
#include "sectl_process.h"
#include "tvm/device_api_route.h"
#include "tvm/runtime_route.h"

namespace sectl::testing {
namespace {

constexpr const char* kSyncStreamFromTo = "tvm_device_api.sync_stream_from_to";
constexpr const char* kFfiRoute = "tvm-ffi (TVM v0.21 and later)";

std::string Runtime() { return ReferencePlugin("sectl_tvm_ffi_runtime"); }

std::map<std::string, nlohmann::json> Results(const std::string& json) {
  std::map<std::string, nlohmann::json> results;
  const auto report = nlohmann::json::parse(json);
  for (const auto& entry : report["results"]) results[entry["id"].get<std::string>()] = entry;
  return results;
}

TEST(TvmFfiRuntimeRecognition, IsATvmRuntimeOfferingTheTvmFfiRoute) {
  auto abi = loader::RecognisePluginAbi(Runtime());
  ASSERT_TRUE(abi) << abi.error().message();
  EXPECT_EQ(*abi, loader::PluginAbi::kTvmRuntime);
  auto library = loader::PluginLibrary::Open(Runtime(), {.abi = loader::PluginAbi::kTvmRuntime});
  ASSERT_TRUE(library) << library.error().message();
  EXPECT_EQ(tvm::RecogniseRuntimeFlavour(*library), tvm::RuntimeFlavour::kTvmFfi);
}

TEST(TvmFfiRuntimeConform, TheReferenceRuntimePassesEveryCheckThatRuns) {
  for (const std::string type : {"cpu", "ext_dev"}) {
    const auto result =
        RunSectl({"conform", Runtime(), "--profile", "tvm-device-api", "--tvm-device-type", type,
                  "--report", "json", "--timeout", "30"});
    ASSERT_EQ(result.exit_code, 0) << type << ": " << result.err;
    const auto results = Results(result.out);
    EXPECT_EQ(results.size(), 12u);
    for (const auto& [id, entry] : results) {
      if (id == kSyncStreamFromTo) continue;
      EXPECT_EQ(entry["status"], "pass") << type << " " << id << ": " << entry.dump(2);
    }
    // No copy can be queued on a chosen stream through tvm-ffi: the check
    // that needs one says so rather than passing.
    ASSERT_TRUE(results.count(kSyncStreamFromTo));
    const auto& skipped = results.at(kSyncStreamFromTo);
    EXPECT_EQ(skipped["status"], "skip");
    EXPECT_NE(skipped.dump().find("not expressible through tvm-ffi: "
                                  "runtime.TVMTensorCopyFromTo copies on the null stream"),
              std::string::npos)
        << skipped.dump(2);
    EXPECT_EQ(nlohmann::json::parse(result.out)["plugin"]["abi_vintage"], kFfiRoute);
    // The runtime's own message for an impossible allocation, kind first.
    const auto& errors = results.at("tvm_device_api.errors_reported");
    EXPECT_EQ(errors["details"]["message"].get<std::string>().rfind("InternalError: ", 0), 0u)
        << errors.dump(2);
  }
}

// The tvm-ffi front end over a device that behaves as TVM's own CPU backend
// (reference_plugins/tvm_runtime/cpu_backend_core.cc), the runtime a TVM
// build for the CPU alone is: conformant, with what it cannot show skipped.
TEST(TvmFfiRuntimeConform, ARuntimeBehavingAsTvmsOwnCpuBackendIsConformant) {
  const auto result =
      RunSectl({"conform", std::string(SECTL_FIELD_PLUGIN_DIR) + "/field_tvm_ffi_cpu_backend.so",
                "--tvm-device-type", "cpu", "--report", "json", "--timeout", "30"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto results = Results(result.out);
  ASSERT_EQ(results.size(), 12u);
  for (const auto& [id, entry] : results) {
    const bool skips = id == kSyncStreamFromTo || id == "tvm_device_api.memory_attributes" ||
                       id == "tvm_device_api.workspace_reuse";
    EXPECT_EQ(entry["status"], skips ? "skip" : "pass") << id << ": " << entry.dump(2);
  }
}

// A TVM report names its device in TVM's words and is judged by TVM's
// contract, not "TensorFlow latest"; runs on two device types are not
// shards of one run, and sectl report refuses to merge them.
TEST(TvmFfiRuntimeConform, ReportsNameTheDeviceAndRefuseToMergeTwo) {
  const std::filesystem::path directory =
      std::filesystem::temp_directory_path() / ("sectl_tvm_devices_" + std::to_string(::getpid()));
  std::filesystem::create_directories(directory);
  std::vector<std::string> reports;
  for (const std::string type : {"cpu", "ext_dev"}) {
    reports.push_back((directory / (type + ".json")).string());
    const auto run = RunSectl({"conform", Runtime(), "--tvm-device-type", type, "--filter",
                               "tvm_device_api.errors_reported", "--report", "json", "-o",
                               reports.back(), "--timeout", "30"});
    ASSERT_EQ(run.exit_code, 0) << type << ": " << run.err;
  }
  const auto table = RunSectl({"report", reports[1]});
  EXPECT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("\nDevice      ext_dev(0)\n"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("\nContract    TVM's DeviceAPI contract"), std::string::npos)
      << table.out;
  EXPECT_EQ(table.out.find("TensorFlow  latest"), std::string::npos) << table.out;
  const auto json = RunSectl({"report", reports[0], "--report", "json"});
  EXPECT_EQ(nlohmann::json::parse(json.out)["device"], "cpu(0)") << json.out;

  const auto mixed = RunSectl({"report", reports[0], reports[1]});
  EXPECT_EQ(mixed.exit_code, 2) << mixed.out;
  EXPECT_NE(mixed.err.find("reports are of different devices under test (cpu(0) vs ext_dev(0))"),
            std::string::npos)
      << mixed.err;
  std::filesystem::remove_all(directory);
}

TEST(TvmFfiRuntimeConform, AnAbsentDeviceIsAUsageError) {
  const auto result =
      RunSectl({"conform", Runtime(), "--tvm-device-type", "cpu", "--tvm-device-id", "2"});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find("kExist) answers 0: no such device"), std::string::npos) << result.err;
  EXPECT_TRUE(result.out.empty());
}

TEST(TvmFfiRuntimeConform, ListShowsTheDeviceApiProfile) {
  for (const auto& arguments : std::vector<std::vector<std::string>>{
           {"conform", "--list", "--format", "json", Runtime()},
           {"conform", "--list", "--format", "json", "--abi", "tvm-runtime"}}) {
    const auto result = RunSectl(arguments);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto listed = nlohmann::json::parse(result.out);
    ASSERT_EQ(listed.size(), 12u) << result.out;
    for (const auto& check : listed) {
      EXPECT_EQ(check["id"].get<std::string>().rfind("tvm_device_api.", 0), 0u) << check["id"];
    }
  }
  const auto refused = RunSectl({"conform", "--list", Runtime(), "--profile", "tvm-c-device"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("does not apply to a tvm-runtime library"), std::string::npos)
      << refused.err;
}

TEST(TvmFfiRuntimeProbe, ListsTheDeviceTypesAndTheirAttributes) {
  const auto result = RunSectl({"probe", Runtime(), "--format", "json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto probe = nlohmann::json::parse(result.out);
  EXPECT_EQ(probe["route"], kFfiRoute);
  ASSERT_EQ(probe["device_types"].size(), 2u) << result.out;
  const auto& cpu = probe["device_types"][0];
  EXPECT_EQ(cpu["name"], "cpu");
  ASSERT_EQ(cpu["devices"].size(), 2u);
  // 19 bytes: a Str object, read and released.
  EXPECT_EQ(cpu["devices"][0]["attributes"]["kDeviceName"], "sectl reference cpu");
  EXPECT_TRUE(cpu["devices"][0]["attributes"]["kWarpSize"].is_null());
  const auto& ext = probe["device_types"][1];
  EXPECT_EQ(ext["type"], 12);
  const auto& attributes = ext["devices"][0]["attributes"];
  EXPECT_EQ(attributes["kWarpSize"], 32);
  EXPECT_EQ(attributes["kMaxThreadsPerBlock"], 1024);
  EXPECT_EQ(attributes["kComputeVersion"], "1.0");  // a small string, inline
  EXPECT_EQ(attributes["kMaxThreadDimensions"], "[1024, 1024, 64]");
  EXPECT_EQ(attributes["kTotalGlobalMemory"], int64_t{1} << 30);

  const auto table = RunSectl({"probe", Runtime()});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("Route        tvm-ffi (TVM v0.21 and later)"), std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("cpu (1): devices 0, 1"), std::string::npos) << table.out;
}

// The route in this process, over the reference runtime, with its count of
// references handed to callers and not yet released.
class TvmFfiRoute : public ::testing::Test {
 protected:
  void SetUp() override {
    auto library = loader::PluginLibrary::Open(Runtime(), {.abi = loader::PluginAbi::kTvmRuntime});
    ASSERT_TRUE(library) << library.error().message();
    library_ = std::make_unique<loader::PluginLibrary>(std::move(*library));
    outstanding_ =
        reinterpret_cast<int64_t (*)()>(library_->FindSymbol("SectlTvmFfiOutstandingReferences"));
    ASSERT_NE(outstanding_, nullptr);
  }

  std::unique_ptr<tvm::DeviceApiRoute> Route(int device_type) {
    auto route = tvm::OpenRuntimeRoute(*library_, device_type);
    EXPECT_TRUE(route) << route.error().message();
    return route ? std::move(*route) : nullptr;
  }

  std::unique_ptr<loader::PluginLibrary> library_;
  int64_t (*outstanding_)() = nullptr;
};

TEST_F(TvmFfiRoute, ReleasesEveryObjectItIsHanded) {
  const int64_t before = outstanding_();
  {
    auto route = Route(kDLCPU);
    ASSERT_NE(route, nullptr);
    EXPECT_EQ(route->Describe(), "a TVM runtime library through tvm-ffi (TVM v0.21 and later)");
    auto name = route->GetAttr(0, tvm::DeviceAttrKind::kDeviceName);
    ASSERT_TRUE(name) << name.error().message();
    EXPECT_EQ(std::get<std::string>(*name), "sectl reference cpu");
    auto held = route->AllocDataSpace(0, 4096, 256);
    ASSERT_TRUE(held) << held.error().message();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(*held) % 256, 0u);
    // The held Tensor, and the functions looked up, are references the
    // route holds now: the count can tell.
    EXPECT_GT(outstanding_(), before);

    std::vector<unsigned char> sent(100, 0x5A), received(100, 0);
    ASSERT_TRUE(route->CopyDataFromTo({tvm::Side::kHost, sent.data(), 0},
                                      {tvm::Side::kDevice, *held, 300}, 100, 0, nullptr));
    ASSERT_TRUE(route->CopyDataFromTo({tvm::Side::kDevice, *held, 300},
                                      {tvm::Side::kHost, received.data(), 0}, 100, 0, nullptr));
    ASSERT_TRUE(route->StreamSync(0, nullptr));
    EXPECT_EQ(sent, received);
    EXPECT_TRUE(route->FreeDataSpace(0, *held));

    auto stream = route->CreateStream(0);
    ASSERT_TRUE(stream) << stream.error().message();
    EXPECT_TRUE(route->SetStream(0, *stream));
    EXPECT_TRUE(route->StreamSync(0, *stream));
    EXPECT_TRUE(route->SyncStreamFromTo(0, *stream, nullptr));
    EXPECT_TRUE(route->SetStream(0, nullptr));
    EXPECT_TRUE(route->FreeStream(0, *stream));

    auto workspace = route->AllocWorkspace(0, 1000);
    ASSERT_TRUE(workspace) << workspace.error().message();
    EXPECT_TRUE(route->FreeWorkspace(0, *workspace));

    // Failures: the raised Error objects are released too.
    EXPECT_FALSE(route->AllocDataSpace(0, size_t{1} << 60, 64));
    EXPECT_FALSE(route->FreeDataSpace(0, sent.data()));
    // A Tensor left allocated is released with the route.
    ASSERT_TRUE(route->AllocDataSpace(0, 777, 64));
  }
  EXPECT_EQ(outstanding_(), before);
}

TEST_F(TvmFfiRoute, ARaisedErrorReachesTheMessageWithItsKind) {
  auto route = Route(kDLCUDA);  // no such backend in the reference runtime
  ASSERT_NE(route, nullptr);
  auto exists = route->GetAttr(0, tvm::DeviceAttrKind::kExist);
  ASSERT_TRUE(exists) << exists.error().message();
  EXPECT_EQ(std::get<int64_t>(*exists), 0);  // kExist on an absent type: 0, as TVM
  auto warp = route->GetAttr(0, tvm::DeviceAttrKind::kWarpSize);
  ASSERT_FALSE(warp);
  EXPECT_NE(
      warp.error().message().find("runtime.GetDeviceAttr returned -1; raised InternalError: "),
      std::string::npos)
      << warp.error().message();
  ASSERT_TRUE(route->LastRuntimeError());
  EXPECT_EQ(route->LastRuntimeError()->rfind("InternalError: ", 0), 0u);
  EXPECT_GT(route->LastRuntimeError()->size(), std::string("InternalError: ").size());
}

TEST_F(TvmFfiRoute, ACopyOnAChosenStreamIsRefusedWithoutCallingTheRuntime) {
  auto route = Route(kDLCPU);
  ASSERT_NE(route, nullptr);
  ASSERT_TRUE(route->CopyStreamLimit());
  auto memory = route->AllocDataSpace(0, 64, 64);
  ASSERT_TRUE(memory);
  std::vector<unsigned char> host(64);
  int stream_tag = 0;
  auto copied = route->CopyDataFromTo({tvm::Side::kHost, host.data(), 0},
                                      {tvm::Side::kDevice, *memory, 0}, 64, 0, &stream_tag);
  ASSERT_FALSE(copied);
  EXPECT_EQ(copied.error().code(), ErrorCode::kUnimplemented);
  EXPECT_NE(copied.error().message().find(*route->CopyStreamLimit()), std::string::npos);
  EXPECT_TRUE(route->FreeDataSpace(0, *memory));
}

class TvmFfiRuntimeFaults : public ::testing::TestWithParam<FaultCase> {};

TEST_P(TvmFfiRuntimeFaults, AreCaughtByExactlyTheirCheck) {
  ExpectCaughtByExactlyItsCheck(GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Faults, TvmFfiRuntimeFaults,
    ::testing::Values(
        FaultCase{"tvm_ffi_runtime_misaligned_4096", "tvm_device_api.alignment", "fail"},
        FaultCase{"tvm_ffi_runtime_alignment_only_64", "tvm_device_api.alignment_exact", "warn"},
        FaultCase{"tvm_ffi_runtime_dtod_ignores_target_offset", "tvm_device_api.copy_with_offsets",
                  "fail"},
        FaultCase{"tvm_ffi_runtime_reads_host_buffer_late", "tvm_device_api.host_buffer_reuse",
                  "warn"},
        FaultCase{"tvm_ffi_runtime_set_stream_rejects_streams", "tvm_device_api.streams", "fail"},
        FaultCase{"tvm_ffi_runtime_workspace_never_reused", "tvm_device_api.workspace_reuse",
                  "warn"},
        FaultCase{"tvm_ffi_runtime_workspace_shared_block", "tvm_device_api.workspace_stack",
                  "fail"},
        FaultCase{"tvm_ffi_runtime_exist_beyond_count", "tvm_device_api.exist", "fail"},
        FaultCase{"tvm_ffi_runtime_available_never_changes", "tvm_device_api.memory_attributes",
                  "warn"},
        FaultCase{"tvm_ffi_runtime_silent_allocation_failure", "tvm_device_api.errors_reported",
                  "fail"},
        FaultCase{"tvm_ffi_runtime_error_without_message", "tvm_device_api.errors_reported",
                  "fail"},
        FaultCase{"tvm_ffi_runtime_workspace_throws", "tvm_device_api.c_error_contract", "fail"},
        FaultCase{"tvm_ffi_runtime_stream_create_crashes_on_absent_device",
                  "tvm_device_api.c_error_contract", "crash"}),
    [](const auto& info) { return info.param.fault; });

}  // namespace
}  // namespace sectl::testing
