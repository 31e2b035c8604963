// Holding a stream's work back until the clock starts, as nvbandwidth does
// with a spin kernel: a host callback at the head of the stream waits until
// the gate opens, so a batch of copies can be queued first and the timed
// interval holds only their execution, not the cost of enqueueing them.
//
// A plugin may run the callback inside host_callback itself (a synchronous
// plugin does). Then nothing can be held; the gate notices and stays out of
// the way, and the measurement includes enqueueing, as it must.
#pragma once

#include <chrono>
#include <memory>

#include "base/error.h"
#include "host/stream.h"

namespace sectl::bench {

class StreamGate {
 public:
  // Enqueues the gate on `stream`. An error when the plugin has no
  // host_callback or refuses it.
  static Expected<StreamGate> Close(host::Stream& stream);

  ~StreamGate() { Open(); }
  StreamGate(StreamGate&&) noexcept = default;
  StreamGate& operator=(StreamGate&&) noexcept = default;
  StreamGate(const StreamGate&) = delete;
  StreamGate& operator=(const StreamGate&) = delete;

  // Lets the stream go on. Safe to call more than once.
  void Open();

  // Whether work queued after the gate really waited for Open(): false when
  // the plugin ran the callback synchronously.
  bool held() const;

  // Whether the gate's callback has run to its end. Once the stream is
  // done it must have: it was queued before everything the gate held.
  bool ran() const;
  // Waits up to `bound` for ran(); whether it did.
  bool WaitUntilRan(std::chrono::steady_clock::duration bound) const;

  struct State;

 private:
  explicit StreamGate(std::shared_ptr<State> state) : state_(std::move(state)) {}
  std::shared_ptr<State> state_;
};

}  // namespace sectl::bench
