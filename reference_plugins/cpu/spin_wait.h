// Brief busy-waiting before blocking.
//
// Waking a thread blocked on a condition variable costs tens of
// microseconds; much of this plugin's work (a small copy, an event that is
// about to complete) takes far less. So waiters first poll for a short while,
// with a pause instruction that tells the CPU it is spinning, and only then
// go to sleep.

#ifndef SECTL_REFERENCE_PLUGINS_CPU_SPIN_WAIT_H_
#define SECTL_REFERENCE_PLUGINS_CPU_SPIN_WAIT_H_

#include <chrono>

namespace sectl_plugin::cpu {

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Polls `ready` for up to `budget`; returns whether it became true.
template <typename Predicate>
bool SpinFor(std::chrono::nanoseconds budget, Predicate ready) {
  const auto deadline = std::chrono::steady_clock::now() + budget;
  for (;;) {
    // Reading the clock costs more than a poll, so poll in small rounds.
    for (int i = 0; i < 64; ++i) {
      if (ready()) return true;
      CpuRelax();
    }
    if (std::chrono::steady_clock::now() >= deadline) return ready();
  }
}

}  // namespace sectl_plugin::cpu

#endif  // SECTL_REFERENCE_PLUGINS_CPU_SPIN_WAIT_H_
