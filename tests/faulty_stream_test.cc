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
        // lifecycle.recreate tests create_stream too: it crashes there, and
        // warns (it recreates what TensorFlow never does).
        FaultCase{
            "create_stream_aborts", "stream.create_destroy", "crash", {}, {"lifecycle.recreate"}},
        FaultCase{"stream_out_of_order", "stream.in_order", "fail"},
        FaultCase{"dependency_ignored", "stream.dependency", "fail"},
        FaultCase{"wait_for_event_ignored", "stream.wait_for_event", "fail"},
        FaultCase{"block_returns_early", "stream.block_host_until_done", "fail"},
        FaultCase{"synchronize_returns_early", "stream.synchronize_all_activity", "fail"},
        FaultCase{"stream_status_spurious_error", "stream.status_ok_when_healthy", "fail"},
        FaultCase{"event_complete_early", "event.completes_when_reached", "fail"},
        // An UNKNOWN also means the event never says it completed: the other
        // check that tests get_event_status fails on it too (it skipped, once).
        FaultCase{"event_status_unknown",
                  "event.status_values",
                  "fail",
                  {},
                  {"event.completes_when_reached"}},
        FaultCase{"event_rerecord_keeps_complete", "event.rerecord_resets", "fail"},
        FaultCase{"block_for_event_returns_early", "event.block_host_for_event", "fail"},
        // The other callback checks test host_callback too, and can see
        // nothing of what they establish: they fail with it (they skipped,
        // once, which a run selecting only them would have passed).
        FaultCase{"callback_not_enqueued",
                  "callback.enqueued",
                  "fail",
                  {},
                  {"callback.called_once", "callback.after_earlier_work",
                   "callback.error_reaches_stream"}},
        FaultCase{"callback_called_twice", "callback.called_once", "fail"},
        FaultCase{"callback_never_called",
                  "callback.called_once",
                  "fail",
                  {},
                  {"callback.after_earlier_work", "callback.error_reaches_stream"}},
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
                             // only the callback checks fail, and the stream, event and timer
                             // checks that can watch the stream through a long copy instead
                             // still pass.
                             FieldCase{"host_callback_returns_false",
                                       {{"callback.enqueued", "fail"},
                                        {"callback.called_once", "fail"},
                                        {"callback.after_earlier_work", "fail"},
                                        {"callback.error_reaches_stream", "fail"},
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
                             // Behind broken callbacks: get_event_status always UNKNOWN. The
                             // event never says it completed, so no second record can be told
                             // apart from the first.
                             FieldCase{"event_status_always_unknown",
                                       {{"event.status_values", "fail"},
                                        {"event.completes_when_reached", "fail"},
                                        {"callback.enqueued", "fail"},
                                        {"callback.called_once", "fail"},
                                        {"callback.after_earlier_work", "fail"},
                                        {"callback.error_reaches_stream", "fail"}},
                                       {std::string(kHostCallback),
                                        "SP_StreamExecutor.get_event_status"}},
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
                                        {"callback.called_once", "fail"},
                                        {"callback.after_earlier_work", "fail"},
                                        {"callback.error_reaches_stream", "fail"},
                                        {"timer.measures_stream_time", "blocked"}},
                                       {std::string(kHostCallback)},
                                       {"--tf-version", "2.10"}}),
                         [](const auto& info) { return info.param.fault; });

// The false pass of issue 25: a plugin whose create_stream aborts, which no
// TensorFlow can use, was once called conformant, because the one check
// testing create_stream was recommended and its 28 blocked required checks
// counted for nothing. Its verdict, exit status and root cause, exactly.
TEST(CreateStreamAborts, IsNeverConformant) {
  const CommandResult run = RunSectl({"conform", FaultyPlugin("create_stream_aborts"), "--report",
                                      "json", "--timeout", "20", "--no-throughput"});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  const nlohmann::json report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["verdict"], "not_conformant");
  int required_blocked = 0;
  for (const auto& result : report["results"]) {
    const std::string status = result["status"];
    if (result["id"] == "stream.create_destroy") {
      EXPECT_EQ(status, "crash") << result.dump(2);
      EXPECT_EQ(result["severity"], "required");
      EXPECT_EQ(result["culprits"], nlohmann::json::array({"SP_StreamExecutor.create_stream"}));
      EXPECT_NE(result["message"].get<std::string>().find("SIGABRT"), std::string::npos);
      continue;
    }
    // Nothing else fails: every check that needs a stream names the abort.
    EXPECT_TRUE(status == "pass" || status == "skip" || status == "blocked" || status == "warn")
        << result.dump(2);
    if (status == "blocked") {
      ++required_blocked;
      EXPECT_EQ(result["severity"], "required");
      EXPECT_EQ(result["culprits"][0], "SP_StreamExecutor.create_stream") << result.dump(2);
    }
  }
  EXPECT_GE(required_blocked, 10);
  ASSERT_FALSE(report["root_causes"].empty());
  const nlohmann::json& cause = report["root_causes"][0];
  EXPECT_EQ(cause["function"], "SP_StreamExecutor.create_stream");
  EXPECT_EQ(cause["severity"], "required");
  EXPECT_EQ(cause["required_failed"], 1);
  EXPECT_EQ(cause["required_blocked"], required_blocked);
  EXPECT_EQ(report["root_causes"].size(), 1u) << report["root_causes"].dump(2);

  const CommandResult table = RunSectl({"conform", FaultyPlugin("create_stream_aborts"),
                                        "--timeout", "20", "--no-throughput", "--color=never"});
  EXPECT_EQ(table.exit_code, 1);
  EXPECT_NE(table.out.find("SP_StreamExecutor.create_stream (required) — fails 1 required check"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("blocks " + std::to_string(required_blocked) + " required checks"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("NOT CONFORMANT (1 required check failed, " +
                           std::to_string(required_blocked) + " blocked)"),
            std::string::npos)
      << table.out;
}

}  // namespace
}  // namespace sectl::testing
