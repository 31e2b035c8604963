// Each fault in streams, events, host callbacks, timers and concurrency is
// caught by exactly its check.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "faulty_plugin_test.h"
#include "sectl_process.h"

namespace sectl::testing {
namespace {

class StreamFaults : public ::testing::TestWithParam<FaultCase> {};

TEST_P(StreamFaults, AreCaughtByExactlyTheirCheck) { ExpectCaughtByExactlyItsCheck(GetParam()); }

INSTANTIATE_TEST_SUITE_P(
    Faults, StreamFaults,
    ::testing::Values(
        FaultCase{"stream_out_of_order", "stream.in_order", "fail"},
        FaultCase{"dependency_ignored", "stream.dependency", "fail"},
        FaultCase{"wait_for_event_ignored", "stream.wait_for_event", "fail"},
        FaultCase{"block_returns_early", "stream.block_host_until_done", "fail"},
        FaultCase{"synchronize_returns_early", "stream.synchronize_all_activity", "fail"},
        FaultCase{"stream_status_spurious_error", "stream.status_ok_when_healthy", "fail"},
        FaultCase{"event_complete_early", "event.completes_when_reached", "fail"},
        FaultCase{"event_status_unknown", "event.status_values", "fail"},
        FaultCase{"event_rerecord_keeps_complete", "event.rerecord_resets", "fail"},
        FaultCase{"block_for_event_returns_early", "event.block_host_for_event", "fail"},
        FaultCase{"callback_not_enqueued", "callback.enqueued", "fail"},
        FaultCase{"callback_called_twice", "callback.called_once", "fail"},
        FaultCase{"callback_never_called", "callback.called_once", "fail"},
        FaultCase{"callback_before_earlier_work", "callback.after_earlier_work", "fail"},
        FaultCase{"callback_error_dropped", "callback.error_reaches_stream", "fail"},
        // TensorFlow 2.16 and newer no longer use timers: a broken one is a warning there...
        FaultCase{"timer_measures_enqueue", "timer.measures_stream_time", "warn"},
        // ...and a failure for a TensorFlow that requires them.
        FaultCase{
            "timer_in_microseconds", "timer.nanoseconds_unit", "fail", {"--tf-version", "2.10"}},
        FaultCase{"racy_concurrent_copies", "concurrency.streams_in_parallel", "fail"}),
    [](const auto& info) { return info.param.fault; });

class FieldStreamFaults : public ::testing::TestWithParam<FieldCase> {};

TEST_P(FieldStreamFaults, AreCaughtBehindBrokenHostCallbacks) { ExpectFieldVerdicts(GetParam()); }

constexpr std::string_view kHostCallback = "SP_StreamExecutor.host_callback";

INSTANTIATE_TEST_SUITE_P(Field, FieldStreamFaults,
                         ::testing::Values(
                             // host_callback returns TF_OK (false) and never runs the callback:
                             // only callback.enqueued fails, and the stream, event and timer checks
                             // that can watch the stream through a long copy instead still pass.
                             FieldCase{"host_callback_returns_false",
                                       {{"callback.enqueued", "fail"},
                                        {"stream.in_order", "pass"},
                                        {"stream.block_host_until_done", "pass"},
                                        {"stream.synchronize_all_activity", "pass"},
                                        {"stream.status_ok_when_healthy", "pass"},
                                        {"event.completes_when_reached", "pass"},
                                        {"event.status_values", "pass"},
                                        {"event.rerecord_resets", "pass"},
                                        {"event.block_host_for_event", "pass"},
                                        {"timer.nanoseconds_unit", "pass"}},
                                       {std::string(kHostCallback)},
                                       {"--tf-version", "2.10"}},
                             // Behind broken callbacks: get_event_status always UNKNOWN.
                             FieldCase{
                                 "event_status_always_unknown",
                                 {{"event.status_values", "fail"}, {"callback.enqueued", "fail"}},
                                 {std::string(kHostCallback)}},
                             // block_host_until_done returns while a stop_timer is still on
                             // its way: the timer checks name the wait rather than fail the
                             // timer (their reading changes once the stream is really done).
                             FieldCase{"block_ignores_timers",
                                       {{"timer.measures_stream_time", "blocked"},
                                        {"timer.nanoseconds_unit", "blocked"}},
                                       {"SP_StreamExecutor.block_host_until_done"},
                                       {"--tf-version", "2.10", "--no-throughput"}},
                             // Behind broken callbacks: create_timer never sets the handle, and
                             // nanoseconds dereferences it.
                             FieldCase{"timer_handle_unset",
                                       {{"timer.nanoseconds_unit", "crash"},
                                        {"callback.enqueued", "fail"},
                                        {"timer.measures_stream_time", "blocked"}},
                                       {std::string(kHostCallback)},
                                       {"--tf-version", "2.10"}}),
                         [](const auto& info) { return info.param.fault; });

}  // namespace
}  // namespace sectl::testing
