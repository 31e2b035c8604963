#include "stream_worker.h"

#include <array>
#include <chrono>
#include <cstring>
#include <memory>
#include <utility>

#include "spin_wait.h"

namespace sectl_plugin::cpu {
namespace {

// How long an idle worker polls for new work before it sleeps. Long enough to
// catch the next operation of a host thread that is enqueueing a burst, short
// enough that an idle stream costs no noticeable CPU.
constexpr std::chrono::microseconds kIdleSpin(50);

// Operations taken from the queue per lock acquisition.
constexpr size_t kBatchSize = 64;

struct StatusDeleter {
  void operator()(TF_Status* status) const { TF_DeleteStatus(status); }
};

}  // namespace

StreamWorker::StreamWorker() : thread_([this] { Run(); }) {}

StreamWorker::~StreamWorker() {
  {
    std::lock_guard lock(queue_mutex_);
    stopping_ = true;
  }
  work_available_.notify_one();
  thread_.join();
}

void StreamWorker::Enqueue(Operation operation) {
  bool wake_worker = false;
  {
    std::lock_guard lock(queue_mutex_);
    queue_.Push(std::move(operation));
    queued_count_.store(queue_.size(), std::memory_order_release);
    wake_worker = worker_sleeping_;
  }
  // Notifying costs a system call; a spinning or busy worker will see the
  // operation anyway, so only a sleeping one is woken.
  if (wake_worker) work_available_.notify_one();
}

void StreamWorker::BlockUntilDone() {
  Fence fence;
  Enqueue(SignalFenceOp{&fence});
  fence.Wait();
}

StreamError StreamWorker::error() const {
  std::lock_guard lock(error_mutex_);
  return error_;
}

void StreamWorker::Run() {
  std::array<Operation, kBatchSize> batch;
  for (;;) {
    const size_t count = TakeBatch(batch);
    if (count == 0) return;
    for (size_t i = 0; i < count; ++i) {
      try {
        std::visit([this](const auto& op) { Execute(op); }, batch[i]);
      } catch (...) {
        // Nothing below throws in practice; if it ever did, the stream
        // reports it instead of the whole process terminating.
        RecordError(TF_INTERNAL, "sectl_cpu: stream operation failed");
      }
      batch[i] = std::monostate{};  // Release event/timer references promptly.
    }
  }
}

size_t StreamWorker::TakeBatch(std::span<Operation> batch) {
  SpinFor(kIdleSpin, [this] { return queued_count_.load(std::memory_order_acquire) != 0; });

  std::unique_lock lock(queue_mutex_);
  while (queue_.empty() && !stopping_) {
    // Producers read this flag under the same lock, so a wake-up cannot be
    // lost between our check of the queue and the wait.
    worker_sleeping_ = true;
    work_available_.wait(lock);
    worker_sleeping_ = false;
  }
  size_t count = 0;
  while (count < batch.size() && !queue_.empty()) batch[count++] = queue_.Pop();
  queued_count_.store(queue_.size(), std::memory_order_release);
  return count;  // 0 only when stopping with nothing left to run.
}

void StreamWorker::Execute(const CopyOp& op) {
  // memmove: a device-to-device copy may legitimately overlap, and for
  // disjoint buffers memmove is as fast as memcpy.
  std::memmove(op.destination, op.source, op.size);
}

void StreamWorker::Execute(const FillBytesOp& op) {
  std::memset(op.destination, op.value, op.size);
}

void StreamWorker::Execute(const FillWordsOp& op) {
  // The destination may be an interior pointer with no 4-byte alignment, so
  // store through memcpy; compilers turn this into plain (vector) stores.
  auto* destination = static_cast<std::byte*>(op.destination);
  for (uint64_t i = 0; i < op.word_count; ++i) {
    std::memcpy(destination + i * sizeof(uint32_t), &op.value, sizeof(uint32_t));
  }
}

void StreamWorker::Execute(const RecordEventOp& op) { op.event->Complete(op.generation); }

void StreamWorker::Execute(const WaitForEventOp& op) { op.event->WaitFor(op.generation); }

void StreamWorker::Execute(const HostCallbackOp& op) {
  // Each callback gets a fresh status from the host's own TF_Status
  // implementation; TensorFlow's trampoline writes its result there.
  const std::unique_ptr<TF_Status, StatusDeleter> status(TF_NewStatus());
  if (status == nullptr) {
    RecordError(TF_RESOURCE_EXHAUSTED, "sectl_cpu: TF_NewStatus failed; host callback not run");
    return;
  }
  try {
    op.callback(op.callback_arg, status.get());
  } catch (...) {
    RecordError(TF_INTERNAL, "sectl_cpu: host callback threw an exception");
    return;
  }
  // A failed callback poisons the stream, as a failed kernel would on a GPU,
  // but later work still runs so that events recorded after it complete.
  if (TF_GetCode(status.get()) != TF_OK)
    RecordError(TF_GetCode(status.get()), TF_Message(status.get()));
}

void StreamWorker::Execute(const StartTimerOp& op) { op.timer->MarkStart(); }

void StreamWorker::Execute(const StopTimerOp& op) { op.timer->MarkStop(); }

void StreamWorker::Execute(const SignalFenceOp& op) { op.fence->Signal(); }

void StreamWorker::RecordError(TF_Code code, const char* message) {
  std::lock_guard lock(error_mutex_);
  if (error_.code != TF_OK) return;  // The first error is the one to report.
  try {
    error_.message = message != nullptr ? message : "";
  } catch (...) {
    // Out of memory for the text: keep the code, which is what matters.
  }
  error_.code = code;
}

}  // namespace sectl_plugin::cpu
