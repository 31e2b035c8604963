// Each struct_size fault is caught by exactly its check, and each
// generation's compatibility check can warn.
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "faulty_plugin_test.h"
#include "sectl_process.h"

namespace sectl::testing {
namespace {

class StructSizeFaults : public ::testing::TestWithParam<FaultCase> {};

TEST_P(StructSizeFaults, AreCaughtByExactlyTheirCheck) {
  ExpectCaughtByExactlyItsCheck(GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Faults, StructSizeFaults,
    ::testing::Values(
        FaultCase{"zero_struct_size", "struct_size.zero", "fail"},
        FaultCase{"sizeof_platform", "struct_size.vintage", "warn"},
        // compat.tf_2_5 registers the plugin with the very host this fault
        // overruns (a 264-byte SP_StreamExecutor): a compatibility row that
        // hid the overrun would call TensorFlow 2.5 safe.
        FaultCase{"overruns_older_host", "struct_size.older_host", "fail", {}, {"compat.tf_2_5"}},
        FaultCase{"confused_by_newer_host", "struct_size.newer_host", "fail"},
        FaultCase{"fills_new_layout_on_old_host", "compat.tf_2_5", "warn"}),
    [](const auto& info) { return info.param.fault; });

// The compatibility matrix of one plugin: check id -> status.
std::map<std::string, std::string> CompatibilityRow(const std::string& plugin) {
  const CommandResult result =
      RunSectl({"conform", plugin, "--filter", "compat.*", "--report", "json"});
  std::map<std::string, std::string> row;
  try {
    const nlohmann::json report = nlohmann::json::parse(result.out);
    for (const auto& entry : report["results"]) {
      row[entry["id"].get<std::string>()] = entry["status"].get<std::string>();
    }
  } catch (const nlohmann::json::exception& error) {
    ADD_FAILURE() << "stdout is not JSON (" << error.what() << "): " << result.err;
  }
  return row;
}

struct MatrixCase {
  std::string plugin;  // a reference plugin's path, or a fault's name
  std::map<std::string, std::string> statuses;
};

void PrintTo(const MatrixCase& matrix, std::ostream* out) { *out << matrix.plugin; }

std::string PluginPath(const std::string& name) {
  return name.starts_with("sectl_") ? ReferencePlugin(name) : FaultyPlugin(name);
}

class CompatibilityMatrix : public ::testing::TestWithParam<MatrixCase> {};

// Refusing a generation cleanly is a skip (supporting it is optional); a
// generation that would corrupt memory or call the wrong function warns.
TEST_P(CompatibilityMatrix, SaysWhichTensorFlowLoadsThePluginSafely) {
  const auto row = CompatibilityRow(PluginPath(GetParam().plugin));
  EXPECT_EQ(row, GetParam().statuses);
}

INSTANTIATE_TEST_SUITE_P(
    Plugins, CompatibilityMatrix,
    ::testing::Values(MatrixCase{"sectl_cpu",
                                 {{"compat.tf_2_5", "pass"},
                                  {"compat.tf_2_7", "pass"},
                                  {"compat.tf_2_10", "pass"},
                                  {"compat.latest", "pass"}}},
                      // No timers, and it declines the 264-byte SP_StreamExecutor.
                      MatrixCase{"sectl_minimal",
                                 {{"compat.tf_2_5", "skip"},
                                  {"compat.tf_2_7", "skip"},
                                  {"compat.tf_2_10", "skip"},
                                  {"compat.latest", "pass"}}},
                      MatrixCase{"fills_new_layout_on_old_host",
                                 {{"compat.tf_2_5", "warn"},
                                  {"compat.tf_2_7", "pass"},
                                  {"compat.tf_2_10", "pass"},
                                  {"compat.latest", "pass"}}},
                      MatrixCase{"overruns_older_host",
                                 {{"compat.tf_2_5", "warn"},
                                  {"compat.tf_2_7", "skip"},
                                  {"compat.tf_2_10", "skip"},
                                  {"compat.latest", "pass"}}},
                      MatrixCase{"no_sync_memcpy_dtod",
                                 {{"compat.tf_2_5", "warn"},
                                  {"compat.tf_2_7", "warn"},
                                  {"compat.tf_2_10", "warn"},
                                  {"compat.latest", "pass"}}},
                      MatrixCase{"no_destroy_timer_fns",
                                 {{"compat.tf_2_5", "skip"},
                                  {"compat.tf_2_7", "skip"},
                                  {"compat.tf_2_10", "skip"},
                                  {"compat.latest", "warn"}}}),
    [](const auto& info) { return info.param.plugin; });

}  // namespace
}  // namespace sectl::testing
