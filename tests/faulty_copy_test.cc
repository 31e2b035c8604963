// Each fault in copies and fills is caught by exactly its check.
#include "faulty_plugin_test.h"

namespace sectl::testing {
namespace {

class CopyFaults : public ::testing::TestWithParam<FaultCase> {};

TEST_P(CopyFaults, AreCaughtByExactlyTheirCheck) { ExpectCaughtByExactlyItsCheck(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Faults, CopyFaults,
                         ::testing::Values(FaultCase{"corrupt_dtoh", "memcpy.round_trip", "fail"}),
                         [](const auto& info) { return info.param.fault; });

}  // namespace
}  // namespace sectl::testing
