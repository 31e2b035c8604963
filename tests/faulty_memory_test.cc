// Each fault in memory is caught by exactly its check.
#include "faulty_plugin_test.h"

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
                      FaultCase{"free_never_drops", "memory.usage_tracks_allocations", "warn"}),
    [](const auto& info) { return info.param.fault; });

}  // namespace
}  // namespace sectl::testing
