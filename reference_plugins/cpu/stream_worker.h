// A stream: a FIFO of operations executed, in order, by its own thread.
//
// This is what makes the plugin really asynchronous, like a GPU: enqueueing
// returns at once and the work happens later, on another thread. That is the
// behaviour TensorFlow is written against, and a synchronous plugin would
// hide ordering bugs that a real device exposes.

#ifndef SECTL_REFERENCE_PLUGINS_CPU_STREAM_WORKER_H_
#define SECTL_REFERENCE_PLUGINS_CPU_STREAM_WORKER_H_

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <span>
#include <string>
#include <thread>

#include "operation_queue.h"
#include "operations.h"
#include "tensorflow/c/tf_status.h"

namespace sectl_plugin::cpu {

// The first error a stream hit (TF_OK if none).
struct StreamError {
  TF_Code code = TF_OK;
  std::string message;
};

class StreamWorker {
 public:
  StreamWorker();
  // Runs everything still queued, then stops the thread.
  ~StreamWorker();

  StreamWorker(const StreamWorker&) = delete;
  StreamWorker& operator=(const StreamWorker&) = delete;

  // Thread-safe; any number of host threads may enqueue at once.
  void Enqueue(Operation operation);

  // Blocks the calling thread until everything enqueued so far has run.
  void BlockUntilDone();

  StreamError error() const;

 private:
  void Run();
  // Moves up to batch.size() operations out of the queue, sleeping while it
  // is empty. Returns 0 only when the worker should stop.
  size_t TakeBatch(std::span<Operation> batch);

  void Execute(std::monostate) {}
  void Execute(const CopyOp& op);
  void Execute(const FillBytesOp& op);
  void Execute(const FillWordsOp& op);
  void Execute(const RecordEventOp& op);
  void Execute(const WaitForEventOp& op);
  void Execute(const HostCallbackOp& op);
  void Execute(const StartTimerOp& op);
  void Execute(const StopTimerOp& op);
  void Execute(const SignalFenceOp& op);

  void RecordError(TF_Code code, const char* message);

  std::mutex queue_mutex_;
  std::condition_variable work_available_;
  OperationQueue queue_;          // Guarded by queue_mutex_.
  bool worker_sleeping_ = false;  // Guarded by queue_mutex_.
  bool stopping_ = false;         // Guarded by queue_mutex_.
  // queue_.size(), readable without the lock by the worker's spin.
  std::atomic<size_t> queued_count_{0};

  mutable std::mutex error_mutex_;
  StreamError error_;  // Guarded by error_mutex_.

  // Last, so the thread starts only once everything above exists.
  std::thread thread_;
};

}  // namespace sectl_plugin::cpu

#endif  // SECTL_REFERENCE_PLUGINS_CPU_STREAM_WORKER_H_
