// Each fault in copies and fills is caught by exactly its check.
#include "faulty_plugin_test.h"

namespace sectl::testing {
namespace {

class CopyFaults : public ::testing::TestWithParam<FaultCase> {};

// Under AddressSanitizer every copy of dtoh_reads_past_end that overruns a
// heap block is stopped there, not only the one memcpy.dtoh puts before a
// guard page: the sanitized build catches this fault more widely.
#if defined(SECTL_SANITIZED)
const std::vector<std::string> kOverrunAlsoCaughtBySanitizers = {"callback.after_earlier_work",
                                                                 "concurrency.streams_in_parallel",
                                                                 "memcpy.sync_dtoh",
                                                                 "memcpy.sync_htod",
                                                                 "stream.in_order",
                                                                 "stream.status_ok_when_healthy"};
#else
const std::vector<std::string> kOverrunAlsoCaughtBySanitizers = {};
#endif
const FaultCase kDtohReadsPastEnd{
    "dtoh_reads_past_end", "memcpy.dtoh", "crash", {}, kOverrunAlsoCaughtBySanitizers};

TEST_P(CopyFaults, AreCaughtByExactlyTheirCheck) { ExpectCaughtByExactlyItsCheck(GetParam()); }

INSTANTIATE_TEST_SUITE_P(
    Faults, CopyFaults,
    ::testing::Values(FaultCase{"htod_drops_last_byte", "memcpy.htod", "fail"},
                      FaultCase{"corrupt_dtoh", "memcpy.dtoh", "fail"},
                      // The byte past the end lands on the guard page after the host buffer.
                      kDtohReadsPastEnd,  // more checks catch it in sanitized builds
                      FaultCase{"dtod_ignores_offset", "memcpy.dtod", "fail"},
                      FaultCase{"sync_htod_truncates", "memcpy.sync_htod", "fail"},
                      FaultCase{"sync_dtoh_stale", "memcpy.sync_dtoh", "fail"},
                      FaultCase{"sync_dtod_wrong", "memcpy.sync_dtod", "fail"},
                      FaultCase{"zero_size_crash", "memcpy.zero_size", "crash"},
                      FaultCase{"mem_zero_partial", "fill.mem_zero", "fail"},
                      // TensorFlow never calls memset itself: a recommendation.
                      FaultCase{"memset_wrong_pattern", "fill.memset", "warn"},
                      FaultCase{"memset32_element_count", "fill.memset32", "fail"}),
    [](const auto& info) { return info.param.fault; });

}  // namespace
}  // namespace sectl::testing
