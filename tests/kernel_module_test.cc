// A plugin's kernel module (TF_InitKernel), run as TensorFlow's loader runs
// it: probe lists what it registered, in the plugin server and in sectl's
// own process; each kernels.* check catches exactly its faulty plugin; and
// the recording the plugin server hands the judge is read defensively.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "faulty_plugin_test.h"
#include "sectl_process.h"
#include "tf_c_api/module_recording.h"

namespace sectl::testing {
namespace {

std::string FieldPlugin(const std::string& name) {
  return std::string(SECTL_FIELD_PLUGIN_DIR) + "/" + name + ".so";
}

nlohmann::json ProbeJson(const std::vector<std::string>& arguments) {
  std::vector<std::string> command = {"probe"};
  command.insert(command.end(), arguments.begin(), arguments.end());
  command.insert(command.end(), {"--format", "json"});
  const CommandResult run = RunSectl(command);
  EXPECT_EQ(run.exit_code, 0) << run.err << run.out;
  auto report = nlohmann::json::parse(run.out, nullptr, false);
  EXPECT_TRUE(report.is_object()) << run.out;
  return report;
}

class KernelListing : public ::testing::TestWithParam<std::vector<std::string>> {};

TEST_P(KernelListing, ProbeListsEveryKernelTheModuleRegistered) {
  std::vector<std::string> arguments = {FieldPlugin("field_sample_kernels")};
  arguments.insert(arguments.end(), GetParam().begin(), GetParam().end());
  const auto report = ProbeJson(arguments);
  const auto& module = report["kernel_module"];
  EXPECT_TRUE(module["exported"].get<bool>());
  ASSERT_EQ(module["kernels"].size(), 2U) << module.dump(2);
  std::vector<std::string> constraints;
  for (const auto& kernel : module["kernels"]) {
    EXPECT_EQ(kernel["op"], "AddV2");
    EXPECT_EQ(kernel["device_type"], "WHOLE_STRUCT");
    EXPECT_TRUE(kernel["has_compute"].get<bool>());
    constraints.push_back(kernel["type_constraints"].at(0));
  }
  EXPECT_EQ(constraints, (std::vector<std::string>{"T=float", "T=half"}));
  EXPECT_EQ(module["device_types"], nlohmann::json::array({"WHOLE_STRUCT"}));
  for (const auto& finding : report["findings"]) {
    EXPECT_FALSE(finding["id"].get<std::string>().starts_with("kernels."))
        << finding.dump() << ": the sample's kernels are correct";
  }
}

INSTANTIATE_TEST_SUITE_P(Probe, KernelListing,
                         ::testing::Values(std::vector<std::string>{},
                                           std::vector<std::string>{"--isolation", "none"}),
                         [](const auto& info) {
                           return info.param.empty() ? "in_the_plugin_server" : "in_process";
                         });

TEST(KernelModule, ProbeWithVerboseShowsOneLinePerKernel) {
  const CommandResult run = RunSectl({"probe", FieldPlugin("field_sample_kernels"), "-v"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("2 kernels of 1 op"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("WHOLE_STRUCT  T=half"), std::string::npos) << run.out;
  const CommandResult quiet = RunSectl({"probe", FieldPlugin("field_sample_kernels")});
  EXPECT_EQ(quiet.out.find("WHOLE_STRUCT  T=half"), std::string::npos) << quiet.out;
}

// --lazy is for kernels that need functions sectl does not provide: running
// them would end the process at the first call, so the module is not run,
// and probe says so.
TEST(KernelModule, UnderLazyBindingTheModuleIsNotRun) {
  const CommandResult run =
      RunSectl({"probe", std::string(SECTL_FIXTURE_DIR) + "/kernels_need_lazy.so", "--lazy",
                "--format", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
  const auto report = nlohmann::json::parse(run.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << run.out;
  EXPECT_TRUE(report["kernel_module"]["kernels"].empty());
  bool said = false;
  for (const auto& finding : report["findings"]) said |= finding["id"] == "kernels.not_run";
  EXPECT_TRUE(said) << report["findings"].dump(2);
}

TEST(KernelModule, AProbeThatDiesInTheKernelModuleNamesIt) {
  const CommandResult run = RunSectl({"probe", FaultyPlugin("kernel_init_crashes")});
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_NE(run.err.find("SIGSEGV in TF_InitKernel"), std::string::npos) << run.err;
}

TEST(KernelModule, ProbeFindsAKernelForADeviceTypeNoDeviceHas) {
  const CommandResult run =
      RunSectl({"probe", FaultyPlugin("kernel_for_unknown_device"), "--format", "json"});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  const auto report = nlohmann::json::parse(run.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << run.out;
  bool found = false;
  for (const auto& finding : report["findings"]) {
    if (finding["id"] != "kernels.device_type.unknown") continue;
    found = true;
    EXPECT_NE(finding["message"].get<std::string>().find("\"MY_DEVICE\""), std::string::npos);
  }
  EXPECT_TRUE(found) << report["findings"].dump(2);
}

class KernelFaults : public ::testing::TestWithParam<FaultCase> {};

TEST_P(KernelFaults, AreCaughtByExactlyTheirCheck) { ExpectCaughtByExactlyItsCheck(GetParam()); }

INSTANTIATE_TEST_SUITE_P(
    Faults, KernelFaults,
    ::testing::Values(FaultCase{"kernel_for_unknown_device", "kernels.device_type", "fail"},
                      FaultCase{"kernel_registered_twice", "kernels.unique", "fail"},
                      FaultCase{"kernel_without_compute", "kernels.functions", "fail"},
                      FaultCase{"kernel_init_reads_input", "kernels.registration", "fail"},
                      FaultCase{"kernel_builder_used_after_registering", "kernels.registration",
                                "fail"},
                      // Every kernels.* check needs TF_InitKernel to have run, and tests
                      // what it registered: a crash in it ends each of them.
                      FaultCase{"kernel_init_crashes",
                                "kernels.registration",
                                "crash",
                                {},
                                {"kernels.device_type", "kernels.unique", "kernels.functions"}}),
    [](const auto& info) { return info.param.fault; });

// The recording crosses from the plugin's process as JSON: what sectl
// wrote reads back the same, and what a plugin could forge is refused.
TEST(ModuleRecording, RoundTripsThroughJson) {
  tf_c_api::ModuleRecording recording;
  tf_c_api::KernelRegistration kernel;
  kernel.op = "Relu";
  kernel.device_type = "MY_DEVICE";
  kernel.type_constraints = {{"T", 1}, {"U", -7}};
  kernel.has_compute = true;
  kernel.serialized_kernel_def = std::string("\0\x01\xff", 3);
  kernel.has_serialized_kernel_def = true;
  recording.kernels.push_back(kernel);
  recording.unprovided_calls.push_back(
      {.function = "TF_GetInput", .calls = 2, .needs_running_kernel = true});
  recording.not_recorded.ops = 3;
  const auto read = tf_c_api::RecordingFromJson(tf_c_api::RecordingToJson(recording));
  ASSERT_TRUE(read) << read.error().message();
  ASSERT_EQ(read->kernels.size(), 1U);
  EXPECT_EQ(read->kernels[0].op, "Relu");
  EXPECT_EQ(read->kernels[0].type_constraints, kernel.type_constraints);
  EXPECT_EQ(read->kernels[0].serialized_kernel_def, kernel.serialized_kernel_def);
  ASSERT_EQ(read->unprovided_calls.size(), 1U);
  EXPECT_TRUE(read->unprovided_calls[0].needs_running_kernel);
  EXPECT_EQ(read->unprovided_calls[0].calls, 2U);
  EXPECT_EQ(read->not_recorded.ops, 3U);
}

TEST(ModuleRecording, AnEntryPastTheBudgetIsCountedNotCut) {
  tf_c_api::ModuleRecording recording;
  for (int i = 0; i < 100; ++i) {
    tf_c_api::KernelRegistration kernel;
    kernel.op = std::string(100, 'x');
    recording.kernels.push_back(kernel);
  }
  const std::string text = tf_c_api::RecordingToJson(recording, 8 * 1024);
  EXPECT_LE(text.size(), 8U * 1024);
  const auto read = tf_c_api::RecordingFromJson(text);
  ASSERT_TRUE(read) << read.error().message();
  EXPECT_GT(read->kernels.size(), 0U);
  EXPECT_EQ(read->kernels.size() + read->not_recorded.kernels, 100U);
}

TEST(ModuleRecording, WhatAPluginCouldForgeIsRefused) {
  EXPECT_FALSE(tf_c_api::RecordingFromJson("not json"));
  EXPECT_FALSE(tf_c_api::RecordingFromJson("[]"));
  EXPECT_FALSE(tf_c_api::RecordingFromJson(R"({"kernels": 3})"));
  const std::string long_op(tf_c_api::kMaxRecordedStringBytes + 1, 'x');
  tf_c_api::ModuleRecording recording;
  recording.kernels.emplace_back().op = long_op;
  const auto read = tf_c_api::RecordingFromJson(tf_c_api::RecordingToJson(recording));
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().message().find("longer than sectl keeps"), std::string::npos)
      << read.error().message();
}

}  // namespace
}  // namespace sectl::testing
