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
    ::testing::Values(FaultCase{"misaligned_allocation", "memory.alignment", "fail"},
                      FaultCase{"size_not_reported", "memory.allocate", "fail"},
                      FaultCase{"allocate_zero_crash", "memory.allocate_zero", "crash"},
                      FaultCase{"deallocate_needs_size", "memory.deallocate", "fail"},
                      FaultCase{"overlapping_allocations", "memory.concurrent_allocation", "fail"},
                      FaultCase{"unaligned_host_memory", "memory.host_memory", "fail"},
                      FaultCase{"unaligned_unified_memory", "memory.unified_memory", "fail"},
                      FaultCase{"stats_not_released", "memory.allocator_stats", "warn"},
                      FaultCase{"limit_not_enforced", "memory.allocator_stats", "warn"},
                      FaultCase{"usage_returns_false", "memory.usage", "fail"},
                      FaultCase{"free_never_drops", "memory.usage_tracks_allocations", "warn"},
                      // allocate writes 4 bytes into a 1-byte heap block of its own, on
                      // every call: the guard page right after the block stops the write.
                      // Every check that tests allocate (memory.*, and struct_size.* for
                      // the SP_DeviceMemoryBase it fills) crashes there too, rightly.
                      FaultCase{"allocate_overruns_small_block",
                                "memory.allocate",
                                "crash",
                                {},
                                {"memory.alignment", "memory.allocate_zero",
                                 "memory.concurrent_allocation", "struct_size.newer_host",
                                 "struct_size.older_host", "struct_size.vintage"}}),
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

TEST(GuardMalloc, IsOffWithNoGuardMalloc) {
  if (!kGuardPagesInUse) GTEST_SKIP() << "a sanitizer's allocator replaces the guard pages";
  // glibc's 1-byte blocks have room for 4 bytes: the overrun goes unseen.
  const auto result = AllocateResult("allocate_overruns_small_block", {"--no-guard-malloc"});
  EXPECT_EQ(result.value("status", ""), "pass") << result.dump(2);
}

}  // namespace
}  // namespace sectl::testing
