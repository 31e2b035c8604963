// Each fault in lifecycle is caught by exactly its check.
#include "faulty_plugin_test.h"

namespace sectl::testing {
namespace {

class LifecycleFaults : public ::testing::TestWithParam<FaultCase> {};

TEST_P(LifecycleFaults, AreCaughtByExactlyTheirCheck) {
#if defined(SECTL_SANITIZED)
  // A sanitizer's allocator is invisible to mallinfo2, so the heap is not
  // measured there (lifecycle.no_growth says so in its details).
  GTEST_SKIP() << "the heap cannot be measured under a sanitizer's allocator";
#endif
  ExpectCaughtByExactlyItsCheck(GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Faults, LifecycleFaults,
    // One small heap object left per cycle: far below the resident-memory
    // slack, seen by measuring the heap object by object.
    ::testing::Values(FaultCase{"stream_destroy_leaks", "lifecycle.no_growth", "warn"},
                      FaultCase{"event_destroy_leaks", "lifecycle.no_growth", "warn"}),
    [](const auto& info) { return info.param.fault; });

}  // namespace
}  // namespace sectl::testing
