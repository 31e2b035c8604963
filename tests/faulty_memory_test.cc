// Each fault in memory is caught by exactly its check.
#include <nlohmann/json.hpp>

#include "faulty_plugin_test.h"
#include "sectl_process.h"

namespace sectl::testing {
namespace {

class MemoryFaults : public ::testing::TestWithParam<FaultCase> {};

TEST_P(MemoryFaults, AreCaughtByExactlyTheirCheck) { ExpectCaughtByExactlyItsCheck(GetParam()); }

INSTANTIATE_TEST_SUITE_P(
    Faults, MemoryFaults,
    ::testing::Values(
        FaultCase{"misaligned_allocation", "memory.alignment", "fail"},
        FaultCase{"size_not_reported", "memory.allocate", "fail"},
        FaultCase{"allocate_zero_crash", "memory.allocate_zero", "warn"},
        // allocate(0) writes a 4-byte tag into a malloc(0) block of its own:
        // a 0-byte block ends at its guard page like any other (a crash,
        // but TensorFlow never allocates 0 bytes: a warning).
        FaultCase{"allocate_zero_overruns_shadow", "memory.allocate_zero", "warn"},
        FaultCase{"deallocate_needs_size", "memory.deallocate", "fail"},
        FaultCase{"overlapping_allocations", "memory.concurrent_allocation", "fail"},
        FaultCase{"unaligned_host_memory", "memory.host_memory", "fail"},
        FaultCase{"unaligned_unified_memory", "memory.unified_memory", "warn"},
        // A recommended check that crashes in a function TensorFlow calls in
        // normal use is required: TensorFlow's process would die there too.
        FaultCase{"stats_crash", "memory.allocator_stats", "crash"},
        FaultCase{"stats_not_released", "memory.allocator_stats", "warn"},
        FaultCase{"limit_not_enforced", "memory.allocator_stats", "warn"},
        // memory.usage_tracks_allocations tests device_memory_usage too,
        // and can read no free memory at all: it fails with it.
        FaultCase{
            "usage_returns_false", "memory.usage", "fail", {}, {"memory.usage_tracks_allocations"}},
        FaultCase{"free_never_drops", "memory.usage_tracks_allocations", "warn"},
        // allocate writes 4 bytes into a 1-byte heap block of its own, on
        // every call: the guard page right after the block stops the write.
        // Every check that tests allocate (memory.*, and struct_size.* for
        // the SP_DeviceMemoryBase it fills) crashes there too, rightly.
        FaultCase{"allocate_overruns_small_block",
                  "memory.allocate",
                  "crash",
                  {},
                  {"memory.alignment", "memory.allocate_zero", "memory.concurrent_allocation",
                   "struct_size.newer_host", "struct_size.older_host", "struct_size.vintage"}}),
    [](const auto& info) { return info.param.fault; });

// The one result of `sectl conform --filter memory.allocate` on a faulty plugin.
nlohmann::json AllocateResult(const std::string& fault, const std::vector<std::string>& extra) {
  std::vector<std::string> arguments = {"conform",         FaultyPlugin(fault), "--filter",
                                        "memory.allocate", "--report",          "json",
                                        "--no-throughput"};
  arguments.insert(arguments.end(), extra.begin(), extra.end());
  const CommandResult run = RunSectl(arguments);
  const auto report = nlohmann::json::parse(run.out, nullptr, false);
  for (const auto& result : report.value("results", nlohmann::json::array())) {
    if (result.value("id", "") == "memory.allocate") return result;
  }
  ADD_FAILURE() << "no result for memory.allocate: " << run.out << run.err;
  return {};
}

// Under a sanitizer, its allocator owns malloc and reports overruns itself.
#if defined(SECTL_SANITIZED)
constexpr bool kGuardPagesInUse = false;
#else
constexpr bool kGuardPagesInUse = true;
#endif

TEST(GuardMalloc, NamesTheOverrunItCaught) {
  if (!kGuardPagesInUse) GTEST_SKIP() << "a sanitizer's allocator replaces the guard pages";
  const auto result = AllocateResult("allocate_overruns_small_block", {});
  EXPECT_EQ(result.value("status", ""), "crash");
  EXPECT_NE(result.value("message", "")
                .find("the plugin wrote 3 bytes past the end of a 1-byte block it allocated"),
            std::string::npos)
      << result.dump(2);
}

// The one result of `sectl conform --filter memory.allocate_zero`.
nlohmann::json AllocateZeroResult(const std::string& fault, const std::vector<std::string>& extra) {
  std::vector<std::string> arguments = {
      "conform", FaultyPlugin(fault), "--filter", "memory.allocate_zero", "--report",
      "json",    "--no-throughput"};
  arguments.insert(arguments.end(), extra.begin(), extra.end());
  const CommandResult run = RunSectl(arguments);
  const auto report = nlohmann::json::parse(run.out, nullptr, false);
  for (const auto& result : report.value("results", nlohmann::json::array())) {
    if (result.value("id", "") == "memory.allocate_zero") return result;
  }
  ADD_FAILURE() << "no result for memory.allocate_zero: " << run.out << run.err;
  return {};
}

TEST(GuardMalloc, NamesAWriteIntoAZeroByteBlock) {
  if (!kGuardPagesInUse) GTEST_SKIP() << "a sanitizer's allocator replaces the guard pages";
  const auto result = AllocateZeroResult("allocate_zero_overruns_shadow", {});
  // A crash, in calls TensorFlow never makes (0-byte allocations): a warning.
  EXPECT_EQ(result.value("status", ""), "warn") << result.dump(2);
  EXPECT_EQ(result.value("observed_status", ""), "crash") << result.dump(2);
  EXPECT_NE(result.value("message", "")
                .find("the plugin wrote 4 bytes past the end of a 0-byte block it allocated"),
            std::string::npos)
      << result.dump(2);
  EXPECT_NE(result.value("message", "").find("allocate"), std::string::npos) << result.dump(2);
}

TEST(GuardMalloc, ZeroByteOverrunGoesUnseenWithNoGuardMalloc) {
  if (!kGuardPagesInUse) GTEST_SKIP() << "a sanitizer's allocator replaces the guard pages";
  // glibc's malloc(0) has room for 24 bytes: only the guard sees the write.
  const auto result = AllocateZeroResult("allocate_zero_overruns_shadow", {"--no-guard-malloc"});
  EXPECT_EQ(result.value("status", ""), "pass") << result.dump(2);
}

TEST(GuardMalloc, IsOffWithNoGuardMalloc) {
  if (!kGuardPagesInUse) GTEST_SKIP() << "a sanitizer's allocator replaces the guard pages";
  // glibc's 1-byte blocks have room for 4 bytes: the overrun goes unseen.
  const auto result = AllocateResult("allocate_overruns_small_block", {"--no-guard-malloc"});
  EXPECT_EQ(result.value("status", ""), "pass") << result.dump(2);
}

// The escalation's account: the check is required because of what it saw,
// and says which TensorFlow calls the function in normal use.
TEST(MemoryFaultEscalation, ARecommendedCheckCrashingInNormalUseIsRequired) {
  const CommandResult run = RunSectl({"conform", FaultyPlugin("stats_crash"), "--report", "json",
                                      "--filter", "memory.allocator_stats", "--no-throughput"});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  const nlohmann::json report = nlohmann::json::parse(run.out);
  const nlohmann::json& result = report["results"][0];
  EXPECT_EQ(result["status"], "crash") << result.dump(2);
  EXPECT_EQ(result["severity"], "required");
  EXPECT_EQ(result["severity_reason"],
            "TensorFlow 2.16 and newer calls SP_StreamExecutor.get_allocator_stats in normal use, "
            "so a crash there ends TensorFlow's process as it did this check's");
  EXPECT_EQ(report["verdict"], "not_conformant");
}

}  // namespace
}  // namespace sectl::testing
