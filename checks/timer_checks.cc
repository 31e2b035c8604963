// Timers: start_timer and stop_timer are enqueued on a stream, and
// SP_TimerFns.nanoseconds reads the time the stream spent between them.
// TensorFlow up to 2.15 requires timers; 2.16 and newer no longer use them,
// so there a broken timer is a warning, and a missing one is no finding.
//
// Every measurement brackets a host callback that sleeps, so the stream
// really spends that long between start and stop, whether the plugin runs
// its work at enqueue time (synchronously) or later (asynchronously). Where
// host_callback is broken, timer.nanoseconds_unit brackets a long copy
// instead (its reading is right whatever the copy takes, as the host also
// waits between start and stop), and where the copy route is broken too
// (allocate or the copies), nothing: start and stop on an idle stream with
// the host sleeping between them. So a broken timer is found whatever else
// is broken; timer.measures_stream_time needs the callback's known duration
// and is then blocked by host_callback.
#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "conform/check.h"
#include "conform/check_support.h"
#include "host/stream.h"
#include "host/timer.h"

namespace sectl::checks {
namespace {

using namespace std::chrono_literals;
using abi::PluginFunction;

// How long a check waits for something a correct plugin does at once.
constexpr auto kPatience = 3s;
// How long the stream is kept busy between start_timer and stop_timer.
constexpr auto kBusy = 20ms;
// A reading below this, for an interval of at least kBusy, is wrong.
constexpr auto kLeastPlausible = 15ms;

// Timers are optional since TensorFlow 2.16; an older generation requires
// them, and registration.required_callbacks reports them missing. The check
// also needs streams and host callbacks.
void SkipWithoutTimers(conform::CheckContext& check) {
  for (PluginFunction function :
       {PluginFunction::kCreateTimer, PluginFunction::kDestroyTimer, PluginFunction::kStartTimer,
        PluginFunction::kStopTimer, PluginFunction::kNanoseconds}) {
    if (check.platform().Provides(function)) continue;
    check.Skip(fmt::format(
        "the plugin provides no timers ({} is missing; {})", abi::QualifiedName(function),
        check.generation().validates_timers
            ? "registration.required_callbacks reports it"
            : fmt::format("timers are optional for {}", check.generation().description)));
  }
  if (!check.platform().Provides(PluginFunction::kCreateStream)) {
    check.Skip("the plugin does not provide create_stream (the registration checks report it)");
  }
  // A timer function this check only uses that crashed or hung in an
  // earlier run: there is no other way to time a stream.
  for (PluginFunction function : {PluginFunction::kCreateTimer, PluginFunction::kStartTimer,
                                  PluginFunction::kStopTimer, PluginFunction::kNanoseconds}) {
    if (check.Avoids(function) && !check.Tests(function)) {
      check.Blocked(function, check.WhyAvoided(function));
    }
  }
}

// A problem with a timer fails the check for a TensorFlow that uses timers,
// and is a warning for one that no longer does.
// `culprit`, where given, is the function the problem is blamed on.
void ReportTimerProblem(conform::CheckContext& check, const std::string& problem,
                        std::optional<PluginFunction> culprit = std::nullopt) {
  if (check.generation().validates_timers) {
    if (culprit) {
      check.FailIn(*culprit, problem);
    } else {
      check.Fail(problem);
    }
    return;
  }
  const std::string warning =
      fmt::format("{} (timers are unused by {}, but older TensorFlow relies on them)", problem,
                  check.generation().description);
  if (culprit) {
    check.WarnIn(*culprit, warning);
  } else {
    check.Warn(warning);
  }
}

// One timing of a stream, and the wall-clock time around all of it.
struct Reading {
  uint64_t nanoseconds = 0;
  std::string busy_work;                    // what kept the stream busy
  std::optional<conform::IdleStream> idle;  // set where nothing could
  std::chrono::nanoseconds wall{0};
  std::chrono::nanoseconds host_gap{0};

  bool at_least_busy_time() const {
    return nanoseconds >= static_cast<uint64_t>(std::chrono::nanoseconds(kLeastPlausible).count());
  }
  // The most a correct reading can be: the stream ran start and stop
  // within the host's own measurement (with room for another clock).
  uint64_t most_plausible() const {
    return static_cast<uint64_t>(static_cast<double>(wall.count()) * 1.05) + 1'000'000;
  }
  bool plausible() const { return at_least_busy_time() && nanoseconds <= most_plausible(); }
  nlohmann::json ToJson() const {
    return {{"kept_busy_by", busy_work},
            {"nanoseconds", nanoseconds},
            {"wall_nanoseconds", wall.count()},
            {"host_sleep_between_enqueues_nanoseconds", host_gap.count()}};
  }
};

// A reading taken once block_host_until_done returned is the timer's only if
// the stream was then past stop_timer. If the reading changes after the
// stream has had time to finish, block_host_until_done returned early: the
// timer cannot be judged, and the wait is to blame (the check
// stream.block_host_until_done tests it).
void ExpectTheStreamWasDone(conform::CheckContext& check, host::Stream& stream,
                            const host::Timer& timer, uint64_t first_reading) {
  constexpr auto kSettle = 2 * kBusy;
  std::this_thread::sleep_for(kSettle);
  (void)stream.BlockHostUntilDone();
  const uint64_t later = check.Require(timer.Nanoseconds(), "nanoseconds");
  if (later == first_reading) return;
  check.Blocked(PluginFunction::kBlockHostUntilDone,
                fmt::format("the timer read {} ns when block_host_until_done returned and {} ns "
                            "{} ms later: the stream had not reached stop_timer yet, so "
                            "block_host_until_done returned before the stream was done",
                            first_reading, later, std::chrono::milliseconds(kSettle).count()));
}

// Stops a check that needs a host callback of known duration between
// start_timer and stop_timer.
[[noreturn]] void BlockForCallbacks(conform::CheckContext& check) {
  const std::string why = check.platform().Provides(PluginFunction::kHostCallback)
                              ? check.WhyAvoided(PluginFunction::kHostCallback)
                              : std::string("the plugin does not provide host_callback");
  check.Blocked(PluginFunction::kHostCallback,
                fmt::format("this check needs a host callback of known duration between "
                            "start_timer and stop_timer, and host callbacks are unusable here: {}",
                            why.empty() ? "host_callback failed" : why));
}

// Times busy work on `stream` (a host callback that sleeps kBusy, a long
// copy, or, where neither works, nothing; see conform::BusyWork):
// start_timer, the work, `host_gap` of the host's own sleep, stop_timer;
// then waits for the stream and reads the timer. With `need_callback`, busy
// work other than a host callback blocks the check.
Reading TimeBusyStream(conform::CheckContext& check, host::Stream& stream,
                       std::chrono::nanoseconds host_gap, bool need_callback) {
  if (need_callback && !conform::HostCallbacksUsable(check)) BlockForCallbacks(check);
  auto timer = check.Require(check.device().CreateTimer(), "create_timer");
  const auto start = std::chrono::steady_clock::now();
  check.Require(timer->Start(stream), "start_timer");
  Reading reading;
  {
    const conform::BusyWork busy(check, stream, kBusy,
                                 need_callback ? conform::BusyWork::WithoutRoute::kBlock
                                               : conform::BusyWork::WithoutRoute::kLeaveIdle);
    if (need_callback && busy.route() != conform::BusyWork::Route::kHostCallback) {
      BlockForCallbacks(check);
    }
    reading.busy_work = busy.Describe();
    if (busy.route() == conform::BusyWork::Route::kIdle) reading.idle = busy.Idle();
    std::this_thread::sleep_for(host_gap);
    check.Require(timer->Stop(stream), "stop_timer");
    // The stream is done once it is past the work and a wait returned.
    if (busy.route() == conform::BusyWork::Route::kCopy) {
      (void)conform::WaitForStream(check, stream);
    }
    if (!busy.Await(kPatience)) {
      check.Blocked(busy.StalledFunction(),
                    fmt::format("this check keeps the stream busy with {}, which had not "
                                "finished {} s later",
                                busy.Describe(), std::chrono::seconds(kPatience).count()));
    }
  }
  (void)conform::WaitForStream(check, stream);
  reading.wall = std::chrono::steady_clock::now() - start;
  reading.host_gap = host_gap;
  reading.nanoseconds = check.Require(timer->Nanoseconds(), "nanoseconds");
  if (!reading.plausible()) ExpectTheStreamWasDone(check, stream, *timer, reading.nanoseconds);
  return reading;
}

// A reading taken while both the stream and the host spend kBusy between
// start and stop: right whether the plugin times execution or enqueueing,
// so only a wrong unit or a broken clock makes it implausible.
Reading TimeWithHostGap(conform::CheckContext& check, host::Stream& stream, bool need_callback) {
  return TimeBusyStream(check, stream, kBusy, need_callback);
}

constexpr std::string_view kTimerSeverityReason =
    "TensorFlow 2.5 to 2.15 (generations 2.5, 2.7, 2.10) validate the timer functions and read "
    "nanoseconds for stream timings; the latest TensorFlow never creates a timer, so under it the "
    "check is only recommended";

}  // namespace

SECTL_CHECK("timer.nanoseconds_unit", kRequired,
            "nanoseconds reports a timed interval in nanoseconds",
            .tests = {kCreateTimer, kStartTimer, kStopTimer, kNanoseconds},
            .severity_reason = kTimerSeverityReason, .required_through = "2.10",
            .establishes =
                "a timer started and stopped around at least 20 ms of stream and host time reads "
                "between 15 ms and the host's own measurement (+5% and 1 ms), in nanoseconds; a "
                "reading in microseconds or milliseconds is named as such",
            .common_mistakes =
                "Returning the driver clock's unit as is (microseconds: the faulty plugin); a "
                "`nanoseconds` that reads through a handle `create_timer` never set, as the "
                "community sample's does (`timer->timer_handle`), which crashes.",
            .how_to_fix =
                "Convert to nanoseconds (×1000 from microseconds), and set the timer's handle in "
                "`create_timer`; or, if you support only TensorFlow 2.16 and newer, provide no "
                "timers (but keep `destroy_timer_fns` set).",
            .proven_by = "`TIMER_IN_MICROSECONDS`, `TIMER_HANDLE_UNSET` (crash in nanoseconds)") {
  SkipWithoutTimers(check);
  auto stream = check.Require(check.device().CreateStream(), "create_stream");
  // A handle create_timer never set crashes here (in nanoseconds, or in
  // start_timer): this check tests create_timer, so it reports that.
  const Reading reading = TimeWithHostGap(check, *stream, /*need_callback=*/false);
  check.details() = reading.ToJson();
  if (reading.plausible()) return;
  const auto wall_ns = static_cast<double>(reading.wall.count());
  const auto nanoseconds = static_cast<double>(reading.nanoseconds);
  std::string likely_unit;
  if (nanoseconds >= wall_ns / 2000 && nanoseconds <= wall_ns / 500) {
    likely_unit = ": that is the interval in microseconds";
  } else if (nanoseconds >= wall_ns / 2e6 && nanoseconds <= wall_ns / 5e5) {
    likely_unit = ": that is the interval in milliseconds";
  }
  // On an idle stream, a plugin that runs its work only when waited for may
  // time nearly nothing between start and stop; only a reading in another
  // unit, or longer than the host's, is then certainly wrong.
  if (reading.idle && likely_unit.empty() && !reading.at_least_busy_time()) {
    conform::BlockBecauseIdle(
        check, *reading.idle,
        fmt::format("a timer started and stopped on an idle stream, {} ms apart by the host's "
                    "clock, read {} ns",
                    std::chrono::milliseconds(kBusy).count(), reading.nanoseconds),
        "telling a timer that misses stream time from one whose stream ran nothing");
  }
  ReportTimerProblem(
      check,
      fmt::format("a timer around at least {} ms of stream and host time read {} ns, where the "
                  "host measured {} ns around it all{}. TensorFlow reads nanoseconds (and "
                  "divides by 1000 for microseconds), so its timings would be off by that factor",
                  std::chrono::milliseconds(kBusy).count(), reading.nanoseconds,
                  reading.wall.count(), likely_unit),
      // The reading is what nanoseconds reports: whatever start and stop
      // recorded, it is the one to convert (and measures_stream_time is
      // blocked by it).
      PluginFunction::kNanoseconds);
}

SECTL_CHECK("timer.measures_stream_time", kRequired,
            "A timer measures the time the stream spent between start and stop, not the time "
            "of enqueueing",
            .tests = {kStartTimer, kStopTimer}, .severity_reason = kTimerSeverityReason,
            .required_through = "2.10",
            .establishes =
                "a timer started, then a host callback that keeps the stream busy for 20 ms, "
                "then the timer stopped at once by the host: the reading is at least 15 ms (the "
                "stream's time, not the microseconds of enqueueing)",
            .common_mistakes =
                "Reading the host clock when `start_timer` and `stop_timer` are called rather "
                "than when the stream reaches them (the faulty plugin).",
            .how_to_fix =
                "Take the time in stream order: record a driver event, or read the clock in the "
                "stream's worker when it reaches the start and the stop.",
            .proven_by = "`TIMER_MEASURES_ENQUEUE`") {
  SkipWithoutTimers(check);
  auto stream = check.Require(check.device().CreateStream(), "create_stream");
  const Reading calibration = TimeWithHostGap(check, *stream, /*need_callback=*/true);
  if (!calibration.plausible()) {
    // A reading in the wrong unit or from a broken clock is nanoseconds'
    // defect as much as the timer's: timer.nanoseconds_unit reports it.
    check.Blocked(PluginFunction::kNanoseconds,
                  fmt::format("the timer read {} ns around {} of at least {} ms, where stream "
                              "and enqueue time agree: implausible, so what it measures cannot "
                              "be told",
                              calibration.nanoseconds, calibration.busy_work,
                              std::chrono::milliseconds(kBusy).count()));
  }
  // Now the host enqueues stop right after the callback: only the stream
  // spends kBusy between start and stop.
  const Reading reading = TimeBusyStream(check, *stream, 0ns, /*need_callback=*/true);
  check.details() = {{"calibration", calibration.ToJson()}, {"reading", reading.ToJson()}};
  if (reading.at_least_busy_time()) return;
  ReportTimerProblem(
      check,
      fmt::format("a timer started and stopped around a host callback that keeps the stream busy "
                  "for {} ms read {} ns: the time the stream spent between start_timer and "
                  "stop_timer is missing, as if it measured when they were called. TensorFlow "
                  "enqueues in microseconds what the device runs later, and times the device",
                  std::chrono::milliseconds(kBusy).count(), reading.nanoseconds));
}

}  // namespace sectl::checks
