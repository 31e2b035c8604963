// The judge's side of host callbacks (docs/plugin-server.md): the host
// functions a judge passes to host_callback stay in the judge, registered
// under an id the server hands the plugin as callback_arg. When the plugin
// calls the server's trampoline, the server sends an Event; this runs the
// registered function on a judge thread and answers with the status it set.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "remote/call_protocol.h"
#include "remote/word_call.h"

namespace sectl::remote {

// Registrations a judge keeps at most (each a function and its argument):
// beyond it host_callback is refused rather than the judge growing without
// bound for a check that loops.
inline constexpr size_t kMaxHostCallbacks = size_t{1} << 20;
// Judge threads running callbacks at once at most. A callback may block
// until another judge thread releases it, so they are not run one after
// another on a single thread; events beyond this many wait for a thread.
inline constexpr size_t kMaxCallbackThreads = 64;

class HostCallbacks {
 public:
  // Answers go to `event_channel` (the judge's end, owned by the caller).
  explicit HostCallbacks(int event_channel) : event_channel_(event_channel) {}
  // Waits for the callbacks running now: a callback blocked for good
  // blocks this too, as it would block TensorFlow.
  ~HostCallbacks();
  HostCallbacks(const HostCallbacks&) = delete;
  HostCallbacks& operator=(const HostCallbacks&) = delete;

  // The id the plugin is handed for `function(argument, ...)`, or 0 when
  // kMaxHostCallbacks are registered. Registrations last as long as this.
  uint64_t Register(StatusCallback function, void* argument);

  // Runs the callback `event` names on a judge thread, then answers.
  void Handle(const Event& event);

  // Events that named no registered callback: answered with an error,
  // never run, and counted here for the check to report.
  uint64_t unknown_events() const;
  // The last such id.
  uint64_t last_unknown_id() const;

 private:
  void Work();
  void Run(const Event& event);
  void Answer(const EventAnswer& answer) const;

  int event_channel_;
  mutable std::mutex mutex_;
  std::condition_variable work_;
  std::deque<Event> queue_;
  size_t idle_ = 0;
  bool stopping_ = false;
  std::vector<std::jthread> workers_;
  std::vector<std::pair<StatusCallback, void*>> registered_;  // id = index + 1
  uint64_t unknown_events_ = 0;
  uint64_t last_unknown_id_ = 0;
};

}  // namespace sectl::remote
