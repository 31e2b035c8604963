// Each struct_size fault is caught by exactly its check, and each
// generation's compatibility check can warn.
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "faulty_plugin_test.h"
#include "sectl_process.h"

namespace sectl::testing {
namespace {

class StructSizeFaults : public ::testing::TestWithParam<FaultCase> {};

// "overruns_older_host", or "overruns_older_host_tf_version_2_5" when run
// with further arguments.
std::string FaultCaseName(const FaultCase& fault) {
  std::string name = fault.fault;
  for (const std::string& argument : fault.arguments) {
    name += '_';
    for (char c : argument) {
      if (std::isalnum(static_cast<unsigned char>(c))) name += c;
      if (c == '.' || c == '-') name += '_';
    }
  }
  while (name.find("__") != std::string::npos) name.erase(name.find("__"), 1);
  return name;
}

TEST_P(StructSizeFaults, AreCaughtByExactlyTheirCheck) {
  ExpectCaughtByExactlyItsCheck(GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Faults, StructSizeFaults,
    ::testing::Values(
        FaultCase{"zero_struct_size", "struct_size.zero", "fail"},
        FaultCase{"sizeof_platform", "struct_size.vintage", "warn"},
        // Past the end of every TensorFlow's SP_StreamExecutor: each
        // generation's compatibility row must say so too.
        FaultCase{"writes_past_stream_executor",
                  "struct_size.older_host",
                  "fail",
                  {},
                  {"compat.tf_2_5", "compat.tf_2_7", "compat.tf_2_10", "compat.latest"}},
        // All 288 bytes into TensorFlow 2.5's 264: harm for 2.5 only, so a
        // required failure only when 2.5 is the generation selected. 2.5
        // then also reads mem_zero where it expects host_callback, and finds
        // no host_callback of its own: the checks that need one are blocked
        // by it.
        FaultCase{"overruns_older_host",
                  "struct_size.older_host",
                  "fail",
                  {"--tf-version", "2.5"},
                  {"registration.required_callbacks", "compat.tf_2_5", "stream.dependency",
                   "stream.wait_for_event", "timer.measures_stream_time"}},
        FaultCase{"confused_by_newer_host", "struct_size.newer_host", "warn"},
        FaultCase{"fills_new_layout_on_old_host", "compat.tf_2_5", "warn"},
        // Under the default (latest) the same plugin harms no generation
        // selected: only compat.tf_2_5 speaks of it.
        FaultCase{"overruns_older_host", "compat.tf_2_5", "warn"}),
    [](const auto& info) { return FaultCaseName(info.param); });

// Under --tf-version 2.5 one report judges a 288-byte plugin once: the
// required check and the 2.5 compatibility row both read offset 256 as 2.5
// does, and find mem_zero there.
TEST(StructSizeJudgement, RequiredCallbacksAndCompatibilityAgreeUnderOneGeneration) {
  const CommandResult result =
      RunSectl({"conform", FaultyPlugin("overruns_older_host"), "--tf-version", "2.5", "--filter",
                "registration.required_callbacks:compat.tf_2_5", "--report", "json"});
  nlohmann::json report;
  try {
    report = nlohmann::json::parse(result.out);
  } catch (const nlohmann::json::exception& error) {
    FAIL() << "stdout is not JSON (" << error.what() << "): " << result.err;
  }
  std::map<std::string, std::string> messages;
  for (const auto& entry : report["results"]) {
    messages[entry["id"].get<std::string>()] = entry.value("message", "");
  }
  ASSERT_EQ(messages.size(), 2u) << result.out;
  for (const auto& [id, message] : messages) {
    EXPECT_NE(message.find("host_callback at offset 256"), std::string::npos)
        << id << ": " << message;
    EXPECT_NE(message.find("put mem_zero"), std::string::npos) << id << ": " << message;
    EXPECT_EQ(message.find("must be set"), std::string::npos) << id << ": " << message;
  }
}

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
                                  {"compat.tf_2_7", "pass"},
                                  {"compat.tf_2_10", "pass"},
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
