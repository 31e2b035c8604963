// A stream of sectl's reference TVM runtimes (device_core.cc): a queue of
// work run in order, by a worker thread for a stream TVM's CreateStream
// made, or at once for the null stream.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace reference_runtime {

class StreamQueue {
 public:
  explicit StreamQueue(bool asynchronous);
  ~StreamQueue();  // runs what is queued, then stops the worker
  StreamQueue(const StreamQueue&) = delete;
  StreamQueue& operator=(const StreamQueue&) = delete;

  bool asynchronous() const { return worker_.joinable(); }

  // Queues `work` (or runs it now on a synchronous queue); answers the
  // ticket Wait takes.
  uint64_t Submit(std::function<void()> work);
  uint64_t submitted();
  // Blocks until the work up to `ticket` has run.
  void Wait(uint64_t ticket);
  void Drain() { Wait(submitted()); }

 private:
  void Run();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  std::deque<std::function<void()>> queue_;
  uint64_t submitted_ = 0;
  uint64_t completed_ = 0;
  bool stopping_ = false;
  std::thread worker_;  // last: started once the rest is constructed
};

}  // namespace reference_runtime
