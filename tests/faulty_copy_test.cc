// Each fault in copies and fills is caught by exactly its check.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "faulty_plugin_test.h"
#include "sectl_process.h"

namespace sectl::testing {
namespace {

class CopyFaults : public ::testing::TestWithParam<FaultCase> {};

// Under AddressSanitizer every copy of dtoh_reads_past_end that overruns a
// heap block is stopped there, not only the one memcpy.dtoh puts before a
// guard page: the sanitized build catches this fault more widely.
//
// memcpy.zero_size tests every form, memcpy_dtoh among them, and sets and
// reads its allocation through the stream copies first (the synchronous ones
// are those seen crashing in the field): memcpy_dtoh's read past the end of
// that allocation crashes it too, blamed on memcpy_dtoh all the same.
#if defined(SECTL_SANITIZED)
const std::vector<std::string> kOverrunAlsoCaughtBySanitizers = {"callback.after_earlier_work",
                                                                 "concurrency.streams_in_parallel",
                                                                 "memcpy.sync_dtoh",
                                                                 "memcpy.sync_htod",
                                                                 "memcpy.zero_size",
                                                                 "stream.in_order",
                                                                 "stream.status_ok_when_healthy"};
#else
const std::vector<std::string> kOverrunAlsoCaughtBySanitizers = {"memcpy.zero_size"};
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

class FieldCopyFaults : public ::testing::TestWithParam<FieldCase> {};

TEST_P(FieldCopyFaults, AreCaughtBehindOtherBrokenFunctions) { ExpectFieldVerdicts(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Field, FieldCopyFaults,
                         ::testing::Values(
                             // Every check that seeds buffers with the crashing sync_memcpy_htod is
                             // run again with memcpy_htod plus a wait: memcpy.htod then finds its
                             // interior defect, and the copies and fills that work pass.
                             FieldCase{"sync_htod_crash",
                                       {{"memcpy.sync_htod", "crash"},
                                        {"memcpy.htod", "fail"},
                                        {"memcpy.dtoh", "pass"},
                                        {"memcpy.dtod", "pass"},
                                        {"memcpy.sync_dtoh", "pass"},
                                        {"fill.mem_zero", "pass"},
                                        {"fill.memset32", "pass"}},
                                       {"SP_StreamExecutor.sync_memcpy_htod"}},
                             // Fills that do nothing are found although host callbacks are broken.
                             FieldCase{"mem_zero_noop",
                                       {{"fill.mem_zero", "fail"}, {"callback.enqueued", "fail"}},
                                       {"SP_StreamExecutor.host_callback"}},
                             // TensorFlow never calls the 8-bit memset: a warning.
                             FieldCase{"memset_noop",
                                       {{"fill.memset", "warn"}, {"callback.enqueued", "fail"}},
                                       {"SP_StreamExecutor.host_callback"}}),
                         [](const auto& info) { return info.param.fault; });

}  // namespace
}  // namespace sectl::testing
