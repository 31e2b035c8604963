// A stream of the reference TVM runtimes: see stream_queue.h.
#include "stream_queue.h"

#include <chrono>
#include <utility>

#include "faults.h"

namespace reference_runtime {

StreamQueue::StreamQueue(bool asynchronous) {
  if (asynchronous) worker_ = std::thread([this] { Run(); });
}

StreamQueue::~StreamQueue() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (worker_.joinable()) worker_.join();
}

uint64_t StreamQueue::Submit(std::function<void()> work) {
  if (!asynchronous()) {
    work();
    std::lock_guard<std::mutex> lock(mutex_);
    ++submitted_;
    completed_ = submitted_;
    return submitted_;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  queue_.push_back(std::move(work));
  wake_.notify_all();
  return ++submitted_;
}

uint64_t StreamQueue::submitted() {
  std::lock_guard<std::mutex> lock(mutex_);
  return submitted_;
}

void StreamQueue::Wait(uint64_t ticket) {
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return completed_ >= ticket; });
}

void StreamQueue::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, with nothing left
    auto work = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
#ifdef FAULT_IGNORES_STREAM_DEPENDENCY
    // Slow streams, so that work ordered after another stream's shows
    // when the ordering is missing.
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
#endif
    work();
    lock.lock();
    ++completed_;
    done_.notify_all();
  }
}

}  // namespace reference_runtime
