// A one-shot signal from a stream's worker to a host thread that is waiting
// for the stream to reach a point (block_host_until_done and friends).

#ifndef SECTL_REFERENCE_PLUGINS_CPU_FENCE_H_
#define SECTL_REFERENCE_PLUGINS_CPU_FENCE_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

#include "spin_wait.h"

namespace sectl_plugin::cpu {

class Fence {
 public:
  Fence() = default;
  Fence(const Fence&) = delete;
  Fence& operator=(const Fence&) = delete;

  void Signal() {
    // Notify while holding the lock: the waiter may destroy the fence as soon
    // as it can reacquire the mutex, so we must be done touching it by then.
    std::lock_guard lock(mutex_);
    signaled_.store(true, std::memory_order_release);
    signaled_cv_.notify_all();
  }

  void Wait() {
    SpinFor(std::chrono::microseconds(20),
            [this] { return signaled_.load(std::memory_order_acquire); });
    // Even when the spin saw the signal, take the lock once, so that Signal()
    // has released it before our caller destroys the fence.
    std::unique_lock lock(mutex_);
    signaled_cv_.wait(lock, [this] { return signaled_.load(std::memory_order_acquire); });
  }

 private:
  std::mutex mutex_;
  std::condition_variable signaled_cv_;
  std::atomic<bool> signaled_{false};
};

}  // namespace sectl_plugin::cpu

#endif  // SECTL_REFERENCE_PLUGINS_CPU_FENCE_H_
