// Root causes, not cascades: the runner and CheckContext blame a broken
// plugin function on the check that tests it, block the checks that only
// use it, run a blocked check again on other routes, and fail any check that
// saw a C++ exception cross the C API. The checks here are test-only
// declarations in a profile of their own, run on the root_cause faults
// (reference_plugins/faulty/root_cause_faults.cc).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "conform/check.h"
#include "conform/check_runner.h"

namespace sectl::conform {
namespace {

using report::CheckResult;
using report::CheckStatus;

constexpr std::string_view kProfile = "root-cause-test";

// Seeds a device buffer through sync_memcpy_htod unless the runner asked to
// avoid it, then through the asynchronous copy: a check with two routes.
SECTL_CHECK_IN_PROFILES("root_cause.seeds_with_sync_htod", kRequired,
                        "Tests allocate; seeds through sync_memcpy_htod when it can",
                        {std::string(kProfile)}, .tests = {kAllocate},
                        .severity_reason = "test only") {
  const auto& device = check.device();
  auto memory = check.Require(device.Allocate(64), "allocating 64 bytes");
  const std::vector<unsigned char> bytes(64, 0x5a);
  if (!check.Avoids(abi::PluginFunction::kSyncMemcpyHtoD)) {
    check.Require(device.SyncMemcpyHtoD(memory.base(), bytes.data(), bytes.size()), "seeding");
  }
  check.details()["seeded_synchronously"] = !check.Avoids(abi::PluginFunction::kSyncMemcpyHtoD);
}

SECTL_CHECK_IN_PROFILES("root_cause.tests_sync_htod", kRequired, "Tests sync_memcpy_htod",
                        {std::string(kProfile)}, .tests = {kSyncMemcpyHtoD},
                        .severity_reason = "test only") {
  const auto& device = check.device();
  auto memory = check.Require(device.Allocate(64), "allocating 64 bytes");
  const std::vector<unsigned char> bytes(64, 0x5a);
  check.Require(device.SyncMemcpyHtoD(memory.base(), bytes.data(), bytes.size()), "copying");
}

SECTL_CHECK_IN_PROFILES("root_cause.uses_memory_usage", kRequired,
                        "Tests allocate; asks device_memory_usage first", {std::string(kProfile)},
                        .tests = {kAllocate}, .severity_reason = "test only") {
  (void)check.Require(check.device().QueryMemoryUsage(), "asking for the free memory");
}

SECTL_CHECK_IN_PROFILES("root_cause.tests_memory_usage", kRequired, "Tests device_memory_usage",
                        {std::string(kProfile)}, .tests = {kDeviceMemoryUsage},
                        .severity_reason = "test only") {
  (void)check.Require(check.device().QueryMemoryUsage(), "asking for the free memory");
}

// Ignores what device_memory_usage answers: an exception must still count.
SECTL_CHECK_IN_PROFILES("root_cause.ignores_memory_usage", kRecommended,
                        "Tests allocate; ignores device_memory_usage's answer",
                        {std::string(kProfile)}, .tests = {kAllocate},
                        .severity_reason = "test only") {
  (void)check.device().QueryMemoryUsage();
}

std::string FaultyPlugin(const std::string& fault) {
  return std::string(SECTL_FAULTY_PLUGIN_DIR) + "/faulty_" + fault + ".so";
}

std::vector<CheckResult> RunTestChecks(const std::string& fault) {
  std::vector<PlannedCheck> plan;
  for (const auto& check : CheckRegistry::Global().checks()) {
    if (check.InProfile(kProfile)) plan.push_back({&check, 0});
  }
  RunnerOptions options;
  options.settings.plugin_path = FaultyPlugin(fault);
  options.timeout = std::chrono::seconds(20);
  return RunChecks(plan, options);
}

const CheckResult& Find(const std::vector<CheckResult>& results, std::string_view id) {
  auto found = std::find_if(results.begin(), results.end(),
                            [id](const CheckResult& result) { return result.id == id; });
  if (found == results.end()) throw std::runtime_error("no result for " + std::string(id));
  return *found;
}

TEST(RootCause, ACrashInAFunctionOnlyUsedIsAvoidedOnARerun) {
  const auto results = RunTestChecks("root_sync_htod_crash");
  const CheckResult& seeding = Find(results, "root_cause.seeds_with_sync_htod");
  // The second run seeded asynchronously and passed; the first is on record.
  EXPECT_EQ(seeding.status, CheckStatus::kPass) << seeding.message;
  EXPECT_EQ(seeding.details["seeded_synchronously"], false) << seeding.details.dump();
  ASSERT_TRUE(seeding.details.contains("earlier_runs")) << seeding.details.dump();
  EXPECT_EQ(seeding.details["avoided"],
            nlohmann::json::array({"SP_StreamExecutor.sync_memcpy_htod"}));

  const CheckResult& tested = Find(results, "root_cause.tests_sync_htod");
  EXPECT_EQ(tested.status, CheckStatus::kCrash) << tested.message;
  EXPECT_EQ(tested.culprits, std::vector<std::string>{"SP_StreamExecutor.sync_memcpy_htod"});
  EXPECT_FALSE(tested.severity_reason.empty());
}

TEST(RootCause, AnErrorInAFunctionOnlyUsedBlocksTheCheck) {
  const auto results = RunTestChecks("root_usage_false");
  const CheckResult& user = Find(results, "root_cause.uses_memory_usage");
  EXPECT_EQ(user.status, CheckStatus::kBlocked) << user.message;
  EXPECT_EQ(user.culprits, std::vector<std::string>{"SP_StreamExecutor.device_memory_usage"});
  EXPECT_EQ(user.blocked_by_checks, std::vector<std::string>{"root_cause.tests_memory_usage"});
  EXPECT_NE(user.message.find("device_memory_usage returned false"), std::string::npos)
      << user.message;

  const CheckResult& tester = Find(results, "root_cause.tests_memory_usage");
  EXPECT_EQ(tester.status, CheckStatus::kFail) << tester.message;
  EXPECT_EQ(tester.culprits, std::vector<std::string>{"SP_StreamExecutor.device_memory_usage"});

  const auto causes = report::SummarizeRootCauses(results);
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].function, "SP_StreamExecutor.device_memory_usage");
  EXPECT_EQ(causes[0].failed, std::vector<std::string>{"root_cause.tests_memory_usage"});
  EXPECT_EQ(causes[0].blocked, std::vector<std::string>{"root_cause.uses_memory_usage"});
}

TEST(RootCause, AnExceptionAcrossTheApiFailsWhicheverCheckSawIt) {
  const auto results = RunTestChecks("root_usage_throws");
  for (const char* id : {"root_cause.uses_memory_usage", "root_cause.ignores_memory_usage",
                         "root_cause.tests_memory_usage"}) {
    const CheckResult& result = Find(results, id);
    EXPECT_EQ(result.status, CheckStatus::kFail) << id << ": " << result.message;
    EXPECT_EQ(result.culprits, std::vector<std::string>{"SP_StreamExecutor.device_memory_usage"})
        << id;
    EXPECT_NE(result.message.find("std::terminate"), std::string::npos) << result.message;
    // Required even where the check is only recommended.
    EXPECT_EQ(result.severity, report::CheckSeverity::kRequired) << id;
  }
}

// Timers are required up to TensorFlow 2.10 and never created by latest.
SECTL_CHECK_IN_PROFILES("root_cause.required_through_2_10", kRequired, "A generation-bound check",
                        {"no-profile-runs-this"}, .severity_reason = "test only",
                        .required_through = "2.10") {
  (void)check;  // never run: the tests read only its traits
}

TEST(Severity, RequiredOnlyThroughTheGenerationThatReliesOnIt) {
  const CheckDefinition* check = CheckRegistry::Global().Find("root_cause.required_through_2_10");
  ASSERT_NE(check, nullptr);
  EXPECT_EQ(check->SeverityUnder(*abi::FindHostGeneration("2.5")),
            report::CheckSeverity::kRequired);
  EXPECT_EQ(check->SeverityUnder(*abi::FindHostGeneration("2.10")),
            report::CheckSeverity::kRequired);
  EXPECT_EQ(check->SeverityUnder(abi::LatestHostGeneration()), report::CheckSeverity::kRecommended);
}

TEST(RootCause, AHealthyPluginBlocksNothing) {
  for (const CheckResult& result : RunTestChecks("root_usage_false")) {
    if (result.id == "root_cause.seeds_with_sync_htod" ||
        result.id == "root_cause.tests_sync_htod") {
      EXPECT_EQ(result.status, CheckStatus::kPass) << result.id << ": " << result.message;
      EXPECT_TRUE(result.culprits.empty());
    }
  }
}

}  // namespace
}  // namespace sectl::conform
