// The tvm-device-api profile on a device whose data pointers are opaque
// handles, not addresses (TVM's OpenCL, Vulkan, Metal, ... backends:
// lib/tvm/data_pointer_kind.h): the reference runtime written the way TVM's
// OpenCL backend behaves (reference_plugins/tvm_runtime/
// handle_backend_core.cc), whose handles are never even 16-byte aligned and
// sit 40 bytes apart, passes every check on both front ends, with and
// without the guard allocator; its faulty variants are caught by content,
// each by its check; and the address-based faults stay caught
// (tests/tvm_runtime_test.cc, tests/tvm_ffi_runtime_test.cc).
#include <dlpack/dlpack.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "faulty_plugin_test.h"
#include "sectl_process.h"
#include "tvm/data_pointer_kind.h"

namespace sectl::testing {
namespace {

std::string FieldRuntime(const std::string& name) {
  return std::string(SECTL_FIELD_PLUGIN_DIR) + "/" + name + ".so";
}

// TVM's own answers (SupportsDevicePointerArithmeticsOnHost at v0.20.0 and
// v0.26.0): true for CPUDeviceAPI and CUDADeviceAPI (cuda and cuda_host),
// DeviceAPI's default false everywhere else.
TEST(TvmDataPointerKind, FollowsTvmsSupportsDevicePointerArithmeticsOnHost) {
  for (int type : {kDLCPU, kDLCUDA, kDLCUDAHost}) {
    EXPECT_EQ(tvm::DataPointerKindOf(type), tvm::DataPointerKind::kAddress) << type;
  }
  // oneapi 14, webgpu 15, hexagon 16: newer than the DLPack sectl builds with.
  for (int type : {int{kDLOpenCL}, int{kDLVulkan}, int{kDLMetal}, int{kDLROCM}, int{kDLROCMHost},
                   int{kDLExtDev}, int{kDLCUDAManaged}, 14, 15, 16, 99}) {
    EXPECT_EQ(tvm::DataPointerKindOf(type), tvm::DataPointerKind::kOpaqueHandle) << type;
  }
}

struct Run {
  int exit_code;
  std::map<std::string, nlohmann::json> results;
  std::string err;
};

Run ConformOnOpenCl(const std::string& runtime, const std::vector<std::string>& extra) {
  std::vector<std::string> command = {
      "conform",           runtime,  "--profile", "tvm-device-api", "--abi",     "tvm-runtime",
      "--tvm-device-type", "opencl", "--report",  "json",           "--timeout", "30"};
  command.insert(command.end(), extra.begin(), extra.end());
  const auto result = RunSectl(command);
  Run run{result.exit_code, {}, result.err};
  const auto report = nlohmann::json::parse(result.out);
  for (const auto& entry : report["results"]) {
    run.results[entry["id"].get<std::string>()] = entry;
  }
  return run;
}

class TvmHandleBackend : public ::testing::TestWithParam<std::string> {};

// Conformant with and without the guard allocator, which spreads heap
// blocks out: neither alignment nor workspace distinctness is judged by the
// handles' addresses, which an address check fails at once (slot 1 is
// 8 mod 16, and workspaces sit 40 bytes apart).
TEST_P(TvmHandleBackend, PassesTheWholeProfileJudgedByContent) {
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{}, std::vector<std::string>{"--no-guard-malloc"}}) {
    const auto run = ConformOnOpenCl(FieldRuntime(GetParam()), extra);
    const std::string label = GetParam() + (extra.empty() ? "" : " " + extra[0]);
    ASSERT_EQ(run.exit_code, 0) << label << ": " << run.err;
    ASSERT_EQ(run.results.size(), 12u) << label;
    for (const auto& [id, entry] : run.results) {
      // One queue, no streams: nothing for two streams to get out of order.
      const bool no_streams = id == "tvm_device_api.sync_stream_from_to";
      EXPECT_EQ(entry["status"], no_streams ? "skip" : "pass") << label << ": " << entry.dump(2);
    }
    for (const char* id : {"tvm_device_api.alignment", "tvm_device_api.alignment_exact"}) {
      const auto& details = run.results.at(id)["details"];
      EXPECT_NE(details["data_pointer"].get<std::string>().find("an opaque handle"),
                std::string::npos)
          << details.dump(2);
      EXPECT_NE(details["checked_instead_of_addresses"].get<std::string>().find(
                    "at byte_offset 0 and at the last multiple of the alignment"),
                std::string::npos)
          << details.dump(2);
    }
    EXPECT_FALSE(run.results.at("tvm_device_api.alignment")["details"].contains(
        "alignments_above_64_honoured"));
    const auto& stack = run.results.at("tvm_device_api.workspace_stack")["details"];
    EXPECT_EQ(stack["distinct_by"],
              "content written through CopyDataFromTo (handles are not address ranges)");
    EXPECT_EQ(stack["reused_after_stack_release"], true);
  }
}

INSTANTIATE_TEST_SUITE_P(BothFrontEnds, TvmHandleBackend,
                         ::testing::Values("field_tvm_handle_backend",
                                           "field_tvm_ffi_handle_backend"));

// On a device whose pointers are addresses, workspace_stack compares them
// as address ranges as well as by content.
TEST(TvmAddressBackend, WorkspacesAreJudgedByAddressAndContent) {
  const auto result = RunSectl({"conform", ReferencePlugin("sectl_tvm_runtime"),
                                "--tvm-device-type", "cpu", "--report", "json", "--timeout", "30"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // The document is named: a range-for over a member of a temporary would
  // read it after it is destroyed.
  const nlohmann::json report = nlohmann::json::parse(result.out);
  for (const auto& entry : report["results"]) {
    if (entry["id"] == "tvm_device_api.workspace_stack") {
      EXPECT_EQ(entry["details"]["distinct_by"],
                "address ranges and content written through CopyDataFromTo");
      EXPECT_NE(entry["details"]["data_pointer"].get<std::string>().find("a device address"),
                std::string::npos);
    }
  }
}

class TvmHandleBackendFaults : public ::testing::TestWithParam<FaultCase> {};

TEST_P(TvmHandleBackendFaults, AreCaughtByExactlyTheirCheck) {
  ExpectCaughtByExactlyItsCheck(GetParam());
}

const std::vector<std::string> kOnOpenCl = {"--profile",   "tvm-device-api",    "--abi",
                                            "tvm-runtime", "--tvm-device-type", "opencl"};

// On a handle, alignment_exact judges the same round trips as alignment,
// so a handle that loses data there shows in both (it only warns).
INSTANTIATE_TEST_SUITE_P(
    Faults, TvmHandleBackendFaults,
    ::testing::Values(FaultCase{"tvm_handle_backend_workspace_shared_storage",
                                "tvm_device_api.workspace_stack", "fail", kOnOpenCl},
                      FaultCase{"tvm_ffi_handle_backend_workspace_shared_storage",
                                "tvm_device_api.workspace_stack", "fail", kOnOpenCl},
                      FaultCase{"tvm_handle_backend_drops_writes_at_256_multiples",
                                "tvm_device_api.alignment",
                                "fail",
                                kOnOpenCl,
                                {"tvm_device_api.alignment_exact"}},
                      FaultCase{"tvm_ffi_handle_backend_drops_writes_at_256_multiples",
                                "tvm_device_api.alignment",
                                "fail",
                                kOnOpenCl,
                                {"tvm_device_api.alignment_exact"}}),
    [](const auto& info) { return info.param.fault; });

// The content check names both workspaces that share one buffer, though
// their handles differ.
TEST(TvmHandleBackendFaultMessages, SharedStorageNamesBothWorkspaces) {
  const auto run = ConformOnOpenCl(std::string(SECTL_FAULTY_PLUGIN_DIR) +
                                       "/faulty_tvm_handle_backend_workspace_shared_storage.so",
                                   {});
  const auto& entry = run.results.at("tvm_device_api.workspace_stack");
  EXPECT_NE(entry.dump().find("round 1: workspace 1 (4096 bytes, "), std::string::npos)
      << entry.dump(2);
  EXPECT_NE(entry.dump().find("it holds the pattern written to workspace 3 (100 bytes, "),
            std::string::npos)
      << entry.dump(2);
}

}  // namespace
}  // namespace sectl::testing
