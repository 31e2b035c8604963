// Conform's throughput section relies on what the checks found: which
// plugin functions they show broken, and which of those leave nothing to
// measure before any process is started.
#include "conform/throughput.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "bench/memcpy_bench.h"

namespace sectl::conform {
namespace {

using abi::PluginFunction;
using report::CheckResult;
using report::CheckStatus;

CheckResult Result(std::string id, CheckStatus status, std::vector<std::string> culprits) {
  CheckResult result;
  result.id = std::move(id);
  result.status = status;
  result.culprits = std::move(culprits);
  return result;
}

TEST(KnownBrokenFunctions, TakesTheCulpritsOfEveryResultThatDidNotWork) {
  const std::vector<bench::AvoidedFunction> broken = KnownBrokenFunctions({
      Result("callback.called_once", CheckStatus::kFail, {"SP_StreamExecutor.host_callback"}),
      Result("timer.nanoseconds_unit", CheckStatus::kBlocked, {"SP_StreamExecutor.host_callback"}),
      Result("stream.create", CheckStatus::kCrash, {"SP_StreamExecutor.create_stream"}),
      Result("event.status_values", CheckStatus::kTimeout, {"SP_StreamExecutor.get_event_status"}),
      Result("memcpy.async_htod", CheckStatus::kPass, {"SP_StreamExecutor.memcpy_htod"}),
      Result("memcpy.zero_size", CheckStatus::kWarn, {"SP_StreamExecutor.memcpy_dtoh"}),
      Result("memory.odd", CheckStatus::kFail, {"not a plugin function"}),
  });
  ASSERT_EQ(broken.size(), 3u);
  EXPECT_EQ(broken[0].function, PluginFunction::kHostCallback);
  EXPECT_EQ(broken[0].why, "callback.called_once failed") << "the first check that showed it";
  EXPECT_FALSE(broken[0].crashes_or_hangs);
  EXPECT_EQ(broken[1].function, PluginFunction::kCreateStream);
  EXPECT_EQ(broken[1].why, "stream.create crashed");
  EXPECT_TRUE(broken[1].crashes_or_hangs);
  EXPECT_EQ(broken[2].function, PluginFunction::kGetEventStatus);
  EXPECT_EQ(broken[2].why, "event.status_values timed out");
  EXPECT_TRUE(broken[2].crashes_or_hangs);
}

TEST(KnownBrokenFunctions, ACrashOutweighsAWrongAnswer) {
  const std::vector<bench::AvoidedFunction> broken = KnownBrokenFunctions({
      Result("memcpy.zero_size", CheckStatus::kFail, {"SP_StreamExecutor.memcpy_htod"}),
      Result("memcpy.async_htod", CheckStatus::kCrash, {"SP_StreamExecutor.memcpy_htod"}),
  });
  ASSERT_EQ(broken.size(), 1u);
  EXPECT_EQ(broken[0].why, "memcpy.async_htod crashed");
  EXPECT_TRUE(broken[0].crashes_or_hangs);
}

std::optional<std::string> WhyNothing(std::vector<bench::AvoidedFunction> avoid,
                                      std::vector<bench::CopyMode> modes = {
                                          bench::CopyMode::kAsync}) {
  bench::MemcpyBenchOptions options;
  options.modes = std::move(modes);
  options.avoid = std::move(avoid);
  return bench::WhyNothingMeasurable(options);
}

TEST(WhyNothingMeasurable, WhatEveryPathNeedsCrashingOrItsWaitBroken) {
  EXPECT_EQ(WhyNothing({{PluginFunction::kCreateStream, "stream.create crashed", true}}),
            "every copy path needs SP_StreamExecutor.create_stream, which is broken: "
            "stream.create crashed");
  EXPECT_EQ(
      WhyNothing({{PluginFunction::kBlockHostUntilDone, "stream.block_host_until_done failed"}}),
      "every copy's completion rests on SP_StreamExecutor.block_host_until_done, which is broken: "
      "stream.block_host_until_done failed");
}

TEST(WhyNothingMeasurable, WhatCanBeRoutedAroundOrMeasuredAnywayLeavesSomething) {
  // No gate, no plugin timer, pageable memory: measurable all the same.
  EXPECT_FALSE(WhyNothing({{PluginFunction::kHostCallback, "callback.called_once failed"},
                           {PluginFunction::kNanoseconds, "timer.nanoseconds_unit failed"},
                           {PluginFunction::kHostMemoryAllocate, "memory.host failed", true}}));
  // A copy that answers wrongly is verification's to report, not a reason
  // not to time it.
  EXPECT_FALSE(WhyNothing({{PluginFunction::kMemcpyHtoD, "memcpy.zero_size failed"}}));
  // Sync copies do not wait on the stream.
  EXPECT_FALSE(
      WhyNothing({{PluginFunction::kBlockHostUntilDone, "stream.block_host_until_done failed"}},
                 {bench::CopyMode::kAsync, bench::CopyMode::kSync}));
  EXPECT_FALSE(WhyNothing({}));
}

}  // namespace
}  // namespace sectl::conform
