// The state behind an SP_Timer: two timestamps written by a stream's worker
// when it executes start_timer and stop_timer, so a timer measures the time
// the stream spent executing, not the time the host spent enqueueing.

#ifndef SECTL_REFERENCE_PLUGINS_CPU_TIMER_STATE_H_
#define SECTL_REFERENCE_PLUGINS_CPU_TIMER_STATE_H_

#include <atomic>
#include <chrono>
#include <cstdint>

namespace sectl_plugin::cpu {

class TimerState {
 public:
  void MarkStart() { start_ns_.store(Now(), std::memory_order_release); }
  void MarkStop() { stop_ns_.store(Now(), std::memory_order_release); }

  // Nanoseconds between the last start and stop the worker executed; 0 while
  // the interval is incomplete (never started, or a new start whose stop has
  // not been reached yet).
  uint64_t ElapsedNanoseconds() const {
    const int64_t start = start_ns_.load(std::memory_order_acquire);
    const int64_t stop = stop_ns_.load(std::memory_order_acquire);
    return start != kNever && stop > start ? static_cast<uint64_t>(stop - start) : 0;
  }

 private:
  static int64_t Now() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  static constexpr int64_t kNever = 0;  // steady_clock has been running since boot.

  std::atomic<int64_t> start_ns_{kNever};
  std::atomic<int64_t> stop_ns_{kNever};
};

}  // namespace sectl_plugin::cpu

#endif  // SECTL_REFERENCE_PLUGINS_CPU_TIMER_STATE_H_
