// Timers: start_timer and stop_timer are enqueued on a stream, and
// SP_TimerFns.nanoseconds reads the time the stream spent between them.
// TensorFlow up to 2.15 requires timers; 2.16 and newer no longer use them,
// so there a broken timer is a warning, and a missing one is no finding.
//
// Every measurement brackets a host callback that sleeps, so the stream
// really spends that long between start and stop, whether the plugin runs
// its work at enqueue time (synchronously) or later (asynchronously).
#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "conform/check.h"
#include "conform/check_support.h"
#include "host/stream.h"
#include "host/timer.h"

namespace sectl::checks {
namespace {

using conform::WaitUntil;

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
  for (PluginFunction function : {PluginFunction::kCreateStream, PluginFunction::kHostCallback}) {
    if (check.platform().Provides(function)) continue;
    check.Skip(fmt::format("the plugin does not provide {} (the registration checks report it)",
                           abi::QualifiedName(function)));
  }
}

// Enqueues `body` as a host callback; a plugin that refuses is
// callback.enqueued's finding, so this check skips.
void EnqueueOrSkip(conform::CheckContext& check, host::Stream& stream,
                   std::function<void(TF_Status*)> body) {
  auto enqueued = stream.EnqueueHostCallback(std::move(body));
  if (!enqueued) {
    check.Skip(
        fmt::format("this check keeps the stream busy with host callbacks, and {} "
                    "(callback.enqueued reports it)",
                    enqueued.error().message()));
  }
}

// A problem with a timer fails the check for a TensorFlow that uses timers,
// and is a warning for one that no longer does.
void ReportTimerProblem(conform::CheckContext& check, const std::string& problem) {
  if (check.generation().validates_timers) {
    check.Fail(problem);
  } else {
    check.Warn(fmt::format("{} (timers are unused by {}, but older TensorFlow relies on them)",
                           problem, check.generation().description));
  }
}

// One timing of a stream, and the wall-clock time around all of it.
struct Reading {
  uint64_t nanoseconds = 0;
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
    return {{"nanoseconds", nanoseconds},
            {"wall_nanoseconds", wall.count()},
            {"host_sleep_between_enqueues_nanoseconds", host_gap.count()}};
  }
};

// Times a host callback that sleeps kBusy on `stream`: start_timer, the
// callback, `host_gap` of the host's own sleep, stop_timer; then waits for
// the stream and reads the timer.
Reading TimeBusyStream(conform::CheckContext& check, host::Stream& stream,
                       std::chrono::nanoseconds host_gap) {
  auto timer = check.Require(check.device().CreateTimer(), "create_timer");
  auto finished = std::make_shared<std::atomic<bool>>(false);
  const auto start = std::chrono::steady_clock::now();
  check.Require(timer->Start(stream), "start_timer");
  EnqueueOrSkip(check, stream, [](TF_Status*) { std::this_thread::sleep_for(kBusy); });
  std::this_thread::sleep_for(host_gap);
  check.Require(timer->Stop(stream), "stop_timer");
  // The stream is done once a callback enqueued after the stop has run.
  EnqueueOrSkip(check, stream, [finished](TF_Status*) { finished->store(true); });
  if (!WaitUntil([&] { return finished->load(); }, kPatience)) {
    check.Skip(fmt::format(
        "this check keeps the stream busy with host callbacks, and none ran within {} s "
        "(callback.called_once reports it)",
        std::chrono::seconds(kPatience).count()));
  }
  (void)stream.BlockHostUntilDone();
  Reading reading;
  reading.wall = std::chrono::steady_clock::now() - start;
  reading.host_gap = host_gap;
  reading.nanoseconds = check.Require(timer->Nanoseconds(), "nanoseconds");
  return reading;
}

// A reading taken while both the stream and the host spend kBusy between
// start and stop: right whether the plugin times execution or enqueueing,
// so only a wrong unit or a broken clock makes it implausible.
Reading TimeWithHostGap(conform::CheckContext& check, host::Stream& stream) {
  return TimeBusyStream(check, stream, kBusy);
}

}  // namespace

SECTL_CHECK("timer.nanoseconds_unit", kRequired,
            "nanoseconds reports a timed interval in nanoseconds") {
  SkipWithoutTimers(check);
  auto stream = check.Require(check.device().CreateStream(), "create_stream");
  const Reading reading = TimeWithHostGap(check, *stream);
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
  ReportTimerProblem(
      check,
      fmt::format("a timer around at least {} ms of stream and host time read {} ns, where the "
                  "host measured {} ns around it all{}. TensorFlow reads nanoseconds (and "
                  "divides by 1000 for microseconds), so its timings would be off by that factor",
                  std::chrono::milliseconds(kBusy).count(), reading.nanoseconds,
                  reading.wall.count(), likely_unit));
}

SECTL_CHECK("timer.measures_stream_time", kRequired,
            "A timer measures the time the stream spent between start and stop, not the time "
            "of enqueueing") {
  SkipWithoutTimers(check);
  auto stream = check.Require(check.device().CreateStream(), "create_stream");
  const Reading calibration = TimeWithHostGap(check, *stream);
  if (!calibration.plausible()) {
    check.Skip(
        "the timer reads implausibly even where stream and enqueue time agree "
        "(timer.nanoseconds_unit reports it)");
  }
  // Now the host enqueues stop right after the callback: only the stream
  // spends kBusy between start and stop.
  const Reading reading = TimeBusyStream(check, *stream, 0ns);
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
