// Each check of the tvm-device-api profile is caught by a faulty
// StreamExecutor plugin, run with --profile tvm-device-api: most faults are
// those of the StreamExecutor areas (the DeviceAPI adapter reaches the same
// plugin functions); tvm_device_api_faults.c adds what only TVM notices.
#include <map>
#include <nlohmann/json.hpp>

#include "faulty_plugin_test.h"
#include "sectl_process.h"

namespace sectl::testing {
namespace {

const std::vector<std::string> kProfile = {"--profile", "tvm-device-api"};

class TvmDeviceApiFaults : public ::testing::TestWithParam<FaultCase> {};

TEST_P(TvmDeviceApiFaults, AreCaughtByExactlyTheirCheck) {
  ExpectCaughtByExactlyItsCheck(GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Faults, TvmDeviceApiFaults,
    ::testing::Values(
        FaultCase{"misaligned_allocation", "tvm_device_api.alignment", "fail", kProfile},
        FaultCase{"dtod_ignores_offset", "tvm_device_api.copy_with_offsets", "fail", kProfile},
        // The cpu base copies asynchronously, reading host buffers late: correct for
        // TensorFlow, against TVM's rule (see HostBufferReuse below).
        FaultCase{"dependency_ignored",
                  "tvm_device_api.sync_stream_from_to",
                  "fail",
                  kProfile,
                  {"tvm_device_api.host_buffer_reuse"}},
        FaultCase{"out_of_order_free_leaks", "tvm_device_api.workspace_reuse", "warn", kProfile},
        FaultCase{"unstable_device_count", "tvm_device_api.exist", "fail", kProfile},
        FaultCase{"free_never_drops", "tvm_device_api.memory_attributes", "warn", kProfile}),
    [](const auto& info) { return info.param.fault; });

// The status of each check of the profile on a reference plugin.
std::map<std::string, std::string> ProfileStatuses(const std::string& plugin) {
  const auto result = RunSectl({"conform", ReferencePlugin(plugin), "--profile", "tvm-device-api",
                                "--report", "json", "--timeout", "20"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  std::map<std::string, std::string> statuses;
  const auto report = nlohmann::json::parse(result.out);
  for (const auto& entry : report["results"]) {
    statuses[entry["id"].get<std::string>()] = entry["status"].get<std::string>();
  }
  return statuses;
}

// The checks that judge a TVM runtime library's own entry points and skip
// on the adapter over a StreamExecutor plugin (tests/tvm_runtime_test.cc).
bool RuntimeOnly(const std::string& id) {
  return id == "tvm_device_api.alignment_exact" || id == "tvm_device_api.errors_reported" ||
         id == "tvm_device_api.c_error_contract";
}

TEST(TvmDeviceApiReference, MinimalPassesEveryCheck) {
  const auto statuses = ProfileStatuses("sectl_minimal");
  EXPECT_EQ(statuses.size(), 12u);
  for (const auto& [id, status] : statuses)
    EXPECT_EQ(status, RuntimeOnly(id) ? "skip" : "pass") << id;
}

// The cpu plugin's memcpy_htod reads the host buffer on its stream thread,
// later: fine for TensorFlow, a warning under TVM's rule. It is the proof
// that tvm_device_api.host_buffer_reuse can fail.
TEST(TvmDeviceApiReference, CpuReadsHostBuffersLate) {
  const auto statuses = ProfileStatuses("sectl_cpu");
  for (const auto& [id, status] : statuses) {
    EXPECT_EQ(status, id == "tvm_device_api.host_buffer_reuse" ? "warn"
                      : RuntimeOnly(id)                        ? "skip"
                                                               : "pass")
        << id;
  }
}

}  // namespace
}  // namespace sectl::testing
