// A plugin's graph-optimizer and profiler modules (TF_InitGraph,
// TF_InitProfiler), run as TensorFlow's loader runs them: probe describes
// what they registered, in the plugin server and in sectl's own process,
// and each graph.* and profiler.* check catches exactly its faulty plugin.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "faulty_plugin_test.h"
#include "sectl_process.h"

namespace sectl::testing {
namespace {

std::string FieldPlugin(const std::string& name) {
  return std::string(SECTL_FIELD_PLUGIN_DIR) + "/" + name + ".so";
}

class ModuleListing : public ::testing::TestWithParam<std::vector<std::string>> {};

TEST_P(ModuleListing, ProbeDescribesTheOptimizerAndTheProfiler) {
  std::vector<std::string> command = {"probe", FieldPlugin("field_every_module"), "--format",
                                      "json"};
  command.insert(command.end(), GetParam().begin(), GetParam().end());
  const CommandResult run = RunSectl(command);
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
  const auto report = nlohmann::json::parse(run.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << run.out;
  const auto& graph = report["graph_module"];
  EXPECT_TRUE(graph["exported"].get<bool>());
  EXPECT_EQ(graph["device_type"], "WHOLE_STRUCT");
  EXPECT_TRUE(graph["has_optimize"].get<bool>());
  EXPECT_TRUE(graph["init_error"].is_null());
  EXPECT_EQ(graph["struct_sizes"], nlohmann::json::array({56, 40, 92}));
  EXPECT_EQ(graph["passes_turned_off"],
            nlohmann::json::array({"auto_mixed_precision", "remapping"}));
  const auto& profiler = report["profiler_module"];
  EXPECT_TRUE(profiler["exported"].get<bool>());
  EXPECT_EQ(profiler["device_type"], "WHOLE_STRUCT");
  EXPECT_EQ(profiler["struct_sizes"], nlohmann::json::array({64, 24, 40}));
  EXPECT_EQ(profiler["functions_set"].size(), 5U) << profiler.dump(2);
  for (const auto& finding : report["findings"]) {
    const std::string id = finding["id"];
    EXPECT_FALSE(id.starts_with("graph.") || id.starts_with("profiler."))
        << finding.dump() << ": the optimizer and the profiler are registered correctly";
  }
}

INSTANTIATE_TEST_SUITE_P(Probe, ModuleListing,
                         ::testing::Values(std::vector<std::string>{},
                                           std::vector<std::string>{"--isolation", "none"}),
                         [](const auto& info) {
                           return info.param.empty() ? "in_the_plugin_server" : "in_process";
                         });

TEST(PluginModules, ProbeShowsTheOptimizerAndTheProfilerToPeople) {
  const CommandResult run = RunSectl({"probe", FieldPlugin("field_every_module")});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("Graph optimizer (TF_InitGraph)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("auto_mixed_precision, remapping"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("Profiler (TF_InitProfiler)"), std::string::npos) << run.out;
}

class GraphFaults : public ::testing::TestWithParam<FaultCase> {};

TEST_P(GraphFaults, AreCaughtByExactlyTheirCheck) { ExpectCaughtByExactlyItsCheck(GetParam()); }

INSTANTIATE_TEST_SUITE_P(
    Faults, GraphFaults,
    ::testing::Values(FaultCase{"graph_without_optimize_func", "graph.registration", "fail"},
                      FaultCase{"graph_configs_size_zero", "graph.registration", "fail"},
                      FaultCase{"graph_init_fails", "graph.registration", "fail"},
                      FaultCase{"graph_for_another_device", "graph.device_type", "warn"},
                      FaultCase{"graph_configs_pre_2_10", "graph.configs_layout", "warn"}),
    [](const auto& info) { return info.param.fault; });

class ProfilerFaults : public ::testing::TestWithParam<FaultCase> {};

TEST_P(ProfilerFaults, AreCaughtByExactlyTheirCheck) { ExpectCaughtByExactlyItsCheck(GetParam()); }

INSTANTIATE_TEST_SUITE_P(
    Faults, ProfilerFaults,
    ::testing::Values(FaultCase{"profiler_without_destroy", "profiler.registration", "fail"},
                      FaultCase{"profiler_device_type_invalid", "profiler.registration", "fail"},
                      FaultCase{"profiler_init_fails", "profiler.registration", "fail"},
                      FaultCase{"profiler_for_another_device", "profiler.device_type", "warn"},
                      FaultCase{"profiler_collect_overruns", "profiler.session", "warn"},
                      FaultCase{"profiler_size_not_set", "profiler.session", "warn"}),
    [](const auto& info) { return info.param.fault; });

}  // namespace
}  // namespace sectl::testing
