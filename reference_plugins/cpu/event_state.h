// The state behind an SP_Event.
//
// An event is a pair of generation counters. record_event bumps `recorded`
// when the host enqueues the record; the stream's worker raises `completed`
// to that generation when it gets there. The event is complete when
// completed >= recorded, which makes:
//  - a never-recorded event complete (0 >= 0), as CUDA does;
//  - a re-recorded event pending again until the new record is reached;
//  - wait_for_event precise: it waits for the generation recorded at the
//    time of the call, not for records made later.
//
// Operations in stream queues hold a shared_ptr to this state, so the host
// may destroy an event while a record or a wait on it is still queued.

#ifndef SECTL_REFERENCE_PLUGINS_CPU_EVENT_STATE_H_
#define SECTL_REFERENCE_PLUGINS_CPU_EVENT_STATE_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "spin_wait.h"

namespace sectl_plugin::cpu {

class EventState {
 public:
  // Called when a record is enqueued; returns the generation it will complete.
  uint64_t BeginRecord() { return recorded_.fetch_add(1, std::memory_order_acq_rel) + 1; }

  uint64_t recorded_generation() const { return recorded_.load(std::memory_order_acquire); }

  bool IsComplete() const {
    // Read `recorded` first: `completed` only grows, so this never reports a
    // generation complete before its worker reached it.
    const uint64_t recorded = recorded_.load(std::memory_order_acquire);
    return completed_.load(std::memory_order_acquire) >= recorded;
  }

  bool HasCompleted(uint64_t generation) const {
    return completed_.load(std::memory_order_acquire) >= generation;
  }

  // Called by a stream's worker when it reaches the record of `generation`.
  // Records on different streams may finish out of order; the most recent
  // generation reached wins, as with CUDA's re-recorded events.
  void Complete(uint64_t generation) {
    std::lock_guard lock(mutex_);
    if (generation > completed_.load(std::memory_order_relaxed)) {
      completed_.store(generation, std::memory_order_release);
    }
    completed_cv_.notify_all();
  }

  // Blocks until `generation` has completed.
  void WaitFor(uint64_t generation) {
    if (SpinFor(std::chrono::microseconds(20), [&] { return HasCompleted(generation); })) return;
    std::unique_lock lock(mutex_);
    completed_cv_.wait(lock, [&] { return HasCompleted(generation); });
  }

 private:
  std::atomic<uint64_t> recorded_{0};
  std::atomic<uint64_t> completed_{0};
  std::mutex mutex_;  // Pairs with completed_cv_ so no wake-up is lost.
  std::condition_variable completed_cv_;
};

}  // namespace sectl_plugin::cpu

#endif  // SECTL_REFERENCE_PLUGINS_CPU_EVENT_STATE_H_
