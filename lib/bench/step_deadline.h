// The one deadline of a bench run. A run is a sequence of steps (the host's
// memcpy at one size, one copy path at one size, or one latency operation),
// and a plugin that stalls a little in every step, each stall too short for
// the stall timeout (--timeout without a call returning), would otherwise
// make a run last as long as its steps times the timeout: 68 steps at
// --timeout 60 is more than an hour. Kept between the steps by the process
// that measures, so that what was measured is still reported:
//  - a step may take --timeout; a step that took longer stalled, though its
//    calls came back, and after kMostSlowSteps of them the run stops;
//  - the whole run may take its deadline (--deadline, by default
//    DefaultRunDeadline); once it has passed, the run stops.
// A stopped run measures nothing more: each step it did not begin is
// reported as not measured, saying why, and the report says the run
// stopped (bench_report.h). The supervising process keeps a deadline of
// its own on its own clock (run_bench.cc), which nothing the plugin does in
// the measuring process can move.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sectl::bench {

// Steps that took longer than --timeout before a run stops: one may be a
// hiccup of the machine; a second is the plugin.
inline constexpr int kMostSlowSteps = 2;

// A run's deadline when --deadline does not give one: twice the time
// budget of each of its `steps` (most steps spend their budget, some twice
// it), and 4 times the step limit for the setup and whatever else is slow:
// 274 s for the default memcpy sweep (68 steps, --budget 0.25, --timeout
// 60; it takes about 30 s), 42 s at --timeout 2.
std::chrono::milliseconds DefaultRunDeadline(int steps, std::chrono::duration<double> budget,
                                             std::chrono::milliseconds step_limit);

class StepDeadline {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  // The run starts now (by `clock`): its setup counts towards `deadline`.
  StepDeadline(std::chrono::milliseconds step_limit, std::chrono::milliseconds deadline,
               Clock clock = std::chrono::steady_clock::now);

  // Called as the step named `step` ("h2d pinned async 4 KiB") is about to
  // begin: why the run must stop instead (nullopt: measure it). Once it
  // says to stop it says so to every step after.
  std::optional<std::string> Begin(std::string_view step);

  // Called as the step begun last has ended: what to note about it when it
  // took longer than the step limit (nullopt when it did not).
  std::optional<std::string> End();

  // Why the run stopped, with the steps that were too slow and how long
  // they took; nullopt while it has not.
  const std::optional<std::string>& stopped() const { return stopped_; }

 private:
  struct SlowStep {
    std::string name;
    double seconds = 0;
  };

  std::chrono::milliseconds step_limit_;
  std::chrono::milliseconds deadline_;
  Clock clock_;
  std::chrono::steady_clock::time_point run_started_;
  std::chrono::steady_clock::time_point step_started_;
  std::string step_;
  bool in_step_ = false;
  std::vector<SlowStep> slow_;
  std::optional<std::string> stopped_;
  std::optional<std::string> short_reason_;  // what each step not measured says
};

}  // namespace sectl::bench
