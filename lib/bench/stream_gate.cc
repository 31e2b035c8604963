#include "bench/stream_gate.h"

#include <atomic>
#include <chrono>
#include <thread>

#include "bench/spin_wait.h"

namespace sectl::bench {

// Shared by the gate and its callback, which may run after the gate is gone.
struct StreamGate::State {
  std::atomic<bool> open{false};
  std::atomic<bool> enqueue_returned{false};
  std::atomic<bool> ran_synchronously{false};
  std::atomic<bool> ran{false};
  std::thread::id enqueuing_thread = std::this_thread::get_id();
};

namespace {

// How long the callback waits for Open() while host_callback itself has not
// returned: a plugin that runs callbacks on another thread but waits for
// them inside host_callback would otherwise deadlock with the gate.
constexpr auto kGiveUpWhileEnqueueing = std::chrono::milliseconds(100);
// An upper bound on any hold, so a host thread that died cannot wedge the
// plugin's stream for ever.
constexpr auto kLongestHold = std::chrono::seconds(60);

void WaitForOpen(StreamGate::State& state) {
  if (std::this_thread::get_id() == state.enqueuing_thread && !state.enqueue_returned.load()) {
    state.ran_synchronously = true;
    return;
  }
  const auto started = std::chrono::steady_clock::now();
  for (int spins = 0; !state.open.load(std::memory_order_acquire); ++spins) {
    const auto waited = std::chrono::steady_clock::now() - started;
    if ((!state.enqueue_returned.load() && waited > kGiveUpWhileEnqueueing) ||
        waited > kLongestHold) {
      state.ran_synchronously = true;
      return;
    }
    // Spin briefly for a prompt start, then let the host thread have the core.
    if (spins > 1000) std::this_thread::yield();
  }
}

}  // namespace

Expected<StreamGate> StreamGate::Close(host::Stream& stream) {
  auto state = std::make_shared<State>();
  auto enqueued = stream.EnqueueHostCallback([state](TF_Status*) {
    WaitForOpen(*state);
    state->ran.store(true, std::memory_order_release);
  });
  state->enqueue_returned = true;
  if (!enqueued) return tl::unexpected(enqueued.error());
  return StreamGate(std::move(state));
}

void StreamGate::Open() {
  if (state_) state_->open.store(true, std::memory_order_release);
}

bool StreamGate::held() const { return state_ && !state_->ran_synchronously.load(); }

bool StreamGate::ran() const { return state_ && state_->ran.load(std::memory_order_acquire); }

bool StreamGate::WaitUntilRan(std::chrono::steady_clock::duration bound) const {
  return SpinUntil([this] { return ran(); }, bound);
}

}  // namespace sectl::bench
