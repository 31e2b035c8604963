// Bounded waits for something the plugin promised to do: a host callback to
// run, an event to complete, copied bytes to arrive.
#pragma once

#include <chrono>
#include <thread>

namespace sectl::bench {

// How long a completion the plugin promised may keep sectl waiting before
// it is taken to never come: a host callback accepted on an idle stream, an
// event recorded on one, or a callback queued before work the stream has
// reported done. Each runs within microseconds on a working plugin, and
// within milliseconds on a machine busy with other jobs; a plugin that
// stalls is learned once per run, so this is paid once, not per sample.
inline constexpr std::chrono::seconds kStallBound{2};

// Spins until `done()`, briefly for a prompt answer and then yielding the
// core to the plugin's threads, for at most `bound`. Whether it happened.
template <typename Predicate>
bool SpinUntil(Predicate done, std::chrono::steady_clock::duration bound) {
  const auto started = std::chrono::steady_clock::now();
  for (int spins = 0; !done(); ++spins) {
    if (spins > 1000) std::this_thread::yield();
    if (std::chrono::steady_clock::now() - started > bound) return done();
  }
  return true;
}

}  // namespace sectl::bench
