// The operations a stream can queue, as small values.
//
// Enqueueing is the hot path (TensorFlow enqueues a copy for almost every
// tensor it moves), so an operation is a plain variant of a few words: no
// std::function, no heap allocation per operation. Pointers to host and
// device memory are raw: the memory must stay valid until the operation runs,
// exactly as with CUDA. Events and timers are shared, because the host may
// destroy them while an operation on them is still queued.

#ifndef SECTL_REFERENCE_PLUGINS_CPU_OPERATIONS_H_
#define SECTL_REFERENCE_PLUGINS_CPU_OPERATIONS_H_

#include <cstdint>
#include <memory>
#include <variant>

#include "event_state.h"
#include "fence.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"
#include "timer_state.h"

namespace sectl_plugin::cpu {

// memcpy_htod/dtoh/dtod. The source is read when the copy runs, not when it
// is enqueued, as CUDA does.
struct CopyOp {
  void* destination;
  const void* source;
  uint64_t size;
};

// mem_zero and memset.
struct FillBytesOp {
  void* destination;
  uint64_t size;
  uint8_t value;
};

// memset32.
struct FillWordsOp {
  void* destination;
  uint64_t word_count;
  uint32_t value;
};

struct RecordEventOp {
  std::shared_ptr<EventState> event;
  uint64_t generation;
};

struct WaitForEventOp {
  std::shared_ptr<EventState> event;
  uint64_t generation;
};

struct HostCallbackOp {
  SE_StatusCallbackFn callback;
  void* callback_arg;
};

struct StartTimerOp {
  std::shared_ptr<TimerState> timer;
};

struct StopTimerOp {
  std::shared_ptr<TimerState> timer;
};

// Lets a blocked host thread go once everything before it has run.
struct SignalFenceOp {
  Fence* fence;
};

// std::monostate is an empty slot in the queue's ring buffer.
using Operation =
    std::variant<std::monostate, CopyOp, FillBytesOp, FillWordsOp, RecordEventOp, WaitForEventOp,
                 HostCallbackOp, StartTimerOp, StopTimerOp, SignalFenceOp>;

}  // namespace sectl_plugin::cpu

#endif  // SECTL_REFERENCE_PLUGINS_CPU_OPERATIONS_H_
