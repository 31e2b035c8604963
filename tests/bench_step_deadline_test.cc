// lib/bench/step_deadline.h: the one deadline of a bench run, on a clock the
// test moves.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "bench/step_deadline.h"

namespace sectl::bench {
namespace {

using namespace std::chrono_literals;
using TimePoint = std::chrono::steady_clock::time_point;

// A clock that stands still until the test moves it.
class ManualClock {
 public:
  StepDeadline::Clock AsClock() {
    return [this] { return now_; };
  }
  void Advance(std::chrono::milliseconds by) { now_ += by; }

 private:
  TimePoint now_{std::chrono::seconds(1000)};
};

bool Contains(const std::string& text, const std::string& fragment) {
  return text.find(fragment) != std::string::npos;
}

TEST(StepDeadline, StepsWithinTheLimitAndTheDeadlineGoOn) {
  ManualClock clock;
  StepDeadline deadline(2s, 60s, clock.AsClock());
  for (int step = 0; step < 20; ++step) {
    EXPECT_EQ(deadline.Begin("h2d pinned async 4 KiB"), std::nullopt);
    clock.Advance(2s);  // exactly the limit is within it
    EXPECT_EQ(deadline.End(), std::nullopt);
  }
  EXPECT_EQ(deadline.stopped(), std::nullopt);
}

TEST(StepDeadline, TheSecondStepLongerThanTheLimitStopsTheRun) {
  ManualClock clock;
  StepDeadline deadline(2s, 600s, clock.AsClock());
  ASSERT_EQ(deadline.Begin("host memcpy 4 KiB"), std::nullopt);
  clock.Advance(100ms);
  EXPECT_EQ(deadline.End(), std::nullopt);

  ASSERT_EQ(deadline.Begin("h2d pinned async 4 KiB"), std::nullopt);
  clock.Advance(2400ms);
  const auto first = deadline.End();
  ASSERT_TRUE(first);
  EXPECT_EQ(*first,
            "this step took 2.4 s, longer than --timeout 2 s: the plugin stalled in it, and its "
            "numbers may hold the stall");
  // One slow step may be the machine's: the run goes on.
  ASSERT_EQ(deadline.Begin("d2h pinned async 4 KiB"), std::nullopt);
  clock.Advance(500ms);
  deadline.End();
  ASSERT_EQ(deadline.Begin("d2d async 4 KiB"), std::nullopt);
  clock.Advance(3100ms);
  EXPECT_TRUE(deadline.End());
  EXPECT_EQ(deadline.stopped(), std::nullopt) << "nothing is left unmeasured yet";

  const auto stop = deadline.Begin("host memcpy 8 KiB");
  ASSERT_TRUE(stop);
  EXPECT_EQ(*stop, "the bench stopped before this step: 2 steps took longer than --timeout 2 s");
  ASSERT_TRUE(deadline.stopped());
  EXPECT_EQ(*deadline.stopped(),
            "2 steps took longer than --timeout 2 s each, though every call came back: h2d "
            "pinned async 4 KiB (2.4 s), d2d async 4 KiB (3.1 s); the plugin stalls in its steps");
  // Every step after says so too, and nothing is timed any more.
  EXPECT_EQ(deadline.Begin("h2d pinned async 8 KiB"), stop);
  EXPECT_EQ(deadline.End(), std::nullopt);
}

TEST(StepDeadline, BeginEndsAStepThatWasNotEnded) {
  ManualClock clock;
  StepDeadline deadline(1s, 600s, clock.AsClock());
  for (const char* step : {"enqueue_tiny_copy", "host_callback_round_trip"}) {
    ASSERT_EQ(deadline.Begin(step), std::nullopt);
    clock.Advance(1500ms);
  }
  const auto stop = deadline.Begin("event_record_to_complete");
  ASSERT_TRUE(stop);
  EXPECT_TRUE(Contains(*deadline.stopped(),
                       "enqueue_tiny_copy (1.5 s), "
                       "host_callback_round_trip (1.5 s)"))
      << *deadline.stopped();
}

TEST(StepDeadline, TheRunStopsOnceItsDeadlineHasPassedSetupIncluded) {
  ManualClock clock;
  StepDeadline deadline(60s, 10s, clock.AsClock());
  clock.Advance(4s);  // loading the plugin, creating the device
  ASSERT_EQ(deadline.Begin("host memcpy 4 KiB"), std::nullopt);
  clock.Advance(5s);
  EXPECT_EQ(deadline.End(), std::nullopt);
  ASSERT_EQ(deadline.Begin("h2d pinned async 4 KiB"), std::nullopt) << "9 s of 10";
  clock.Advance(1500ms);
  EXPECT_EQ(deadline.End(), std::nullopt);
  const auto stop = deadline.Begin("host memcpy 8 KiB");
  ASSERT_TRUE(stop);
  EXPECT_EQ(*stop, "the bench stopped before this step: its deadline of 10 s (--deadline) passed");
  EXPECT_EQ(*deadline.stopped(),
            "the run's deadline of 10 s (--deadline) passed before host memcpy 8 KiB");
}

TEST(DefaultRunDeadline, TwoBudgetsPerStepAndFourStepLimits) {
  EXPECT_EQ(DefaultRunDeadline(68, std::chrono::duration<double>(0.25), 60s), 274s);
  EXPECT_EQ(DefaultRunDeadline(68, std::chrono::duration<double>(0.25), 2s), 42s);
  EXPECT_EQ(DefaultRunDeadline(8, std::chrono::duration<double>(0.01), 1s), 4160ms);
}

}  // namespace
}  // namespace sectl::bench
