#include "bench/step_deadline.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <utility>

namespace sectl::bench {
namespace {

using Seconds = std::chrono::duration<double>;

// "2 s", "0.5 s", "42 s": a limit as the user gave it or sectl derived it.
std::string LimitText(std::chrono::milliseconds limit) {
  return fmt::format("{:g} s", Seconds(limit).count());
}

}  // namespace

std::chrono::milliseconds DefaultRunDeadline(int steps, std::chrono::duration<double> budget,
                                             std::chrono::milliseconds step_limit) {
  constexpr double kBudgetsPerStep = 2;
  constexpr int kStepLimitsForTheRest = 4;
  const double seconds = std::max(steps, 0) * kBudgetsPerStep * std::max(budget.count(), 0.0);
  return std::chrono::duration_cast<std::chrono::milliseconds>(Seconds(seconds)) +
         kStepLimitsForTheRest * step_limit;
}

StepDeadline::StepDeadline(std::chrono::milliseconds step_limit, std::chrono::milliseconds deadline,
                           Clock clock)
    : step_limit_(step_limit),
      deadline_(deadline),
      clock_(std::move(clock)),
      run_started_(clock_()),
      step_started_(run_started_) {}

std::optional<std::string> StepDeadline::Begin(std::string_view step) {
  if (in_step_) End();
  if (!short_reason_ && static_cast<int>(slow_.size()) >= kMostSlowSteps) {
    std::vector<std::string> named;
    named.reserve(slow_.size());
    for (const SlowStep& slow : slow_) {
      named.push_back(fmt::format("{} ({:.1f} s)", slow.name, slow.seconds));
    }
    short_reason_ =
        fmt::format("{} steps took longer than --timeout {}", slow_.size(), LimitText(step_limit_));
    stopped_ = fmt::format(
        "{} steps took longer than --timeout {} each, though every call came back: {}; the "
        "plugin stalls in its steps",
        slow_.size(), LimitText(step_limit_), fmt::join(named, ", "));
  } else if (!short_reason_ && clock_() - run_started_ > deadline_) {
    short_reason_ = fmt::format("its deadline of {} (--deadline) passed", LimitText(deadline_));
    stopped_ = fmt::format("the run's deadline of {} (--deadline) passed before {}",
                           LimitText(deadline_), step);
  }
  if (short_reason_) return fmt::format("the bench stopped before this step: {}", *short_reason_);
  step_ = std::string(step);
  step_started_ = clock_();
  in_step_ = true;
  return std::nullopt;
}

std::optional<std::string> StepDeadline::End() {
  if (!in_step_) return std::nullopt;
  in_step_ = false;
  const Seconds took = clock_() - step_started_;
  if (took <= step_limit_) return std::nullopt;
  slow_.push_back({.name = step_, .seconds = took.count()});
  return fmt::format(
      "this step took {:.1f} s, longer than --timeout {}: the plugin stalled in it, and its "
      "numbers may hold the stall",
      took.count(), LimitText(step_limit_));
}

}  // namespace sectl::bench
