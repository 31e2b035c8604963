// The lock around the layer's object tables. Every call through the layer
// takes it once or twice, and holds it for a hash lookup or two: a
// pthread mutex (a call through the PLT and an atomic on each side) was
// the largest part of what the layer adds to a call. This lock is one
// atomic exchange to take and a store to release; a waiter spins briefly,
// then yields, so that many host threads on few cores do not burn them.
// Never held across a call into the plugin or the host.
#pragma once

#include <sched.h>

#include <atomic>

namespace sectl::validate {

class ShortLock {
 public:
  void lock() noexcept {
    for (int spins = 0; held_.exchange(true, std::memory_order_acquire); ++spins) {
      while (held_.load(std::memory_order_relaxed)) {
        if (++spins < kSpinsBeforeYield) {
          CpuRelax();
        } else {
          ::sched_yield();
        }
      }
    }
  }
  bool try_lock() noexcept { return !held_.exchange(true, std::memory_order_acquire); }
  void unlock() noexcept { held_.store(false, std::memory_order_release); }

 private:
  static void CpuRelax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
  }

  static constexpr int kSpinsBeforeYield = 128;
  std::atomic<bool> held_{false};
};

}  // namespace sectl::validate
