// Streams, events, timers and host callbacks, each mapped onto its CUDA
// counterpart: SP_Stream is a CUDA stream, SP_Event a CUDA event, a wait a
// cudaStreamWaitEvent, a host callback a cudaLaunchHostFunc, and a timer a
// pair of timing events.

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "../common/entry_guard.h"
#include "argument_checks.h"
#include "callbacks.h"
#include "cuda_status.h"
#include "handles.h"

namespace sectl_plugin::cuda {
namespace {

bool CheckStream(SP_Stream stream, TF_Status* status) {
  return CheckHandle(stream, "SP_Stream", status);
}

// Makes the stream's device current on this thread, for the calls that
// enqueue on it.
bool ActivateStreamDevice(SP_Stream stream, TF_Status* status) {
  return CudaSucceeded(stream->device.Activate(), "cudaSetDevice", status);
}

// What cudaLaunchHostFunc runs: the host's callback with a fresh TF_Status,
// whose error, if any, the stream keeps for get_stream_status.
struct HostCallbackCall {
  SE_StatusCallbackFn callback;
  void* callback_arg;
  std::shared_ptr<StreamErrors> errors;
};

struct StatusDeleter {
  void operator()(TF_Status* status) const noexcept { TF_DeleteStatus(status); }
};

// Runs on a CUDA driver thread, exactly once per successful
// cudaLaunchHostFunc, after all earlier work on the stream. CUDA forbids CUDA
// calls in a host function: this trampoline makes none, and the host's
// callback must not either.
void CUDART_CB RunHostCallback(void* data) noexcept {
  const std::unique_ptr<HostCallbackCall> call(static_cast<HostCallbackCall*>(data));
  GuardedCall(nullptr, [&] {
    const std::unique_ptr<TF_Status, StatusDeleter> status(TF_NewStatus());
    if (status == nullptr) {
      call->errors->Record(TF_RESOURCE_EXHAUSTED,
                           "sectl_cuda: TF_NewStatus failed; host callback not run");
      return;
    }
    try {
      call->callback(call->callback_arg, status.get());
    } catch (...) {
      call->errors->Record(TF_INTERNAL, "sectl_cuda: host callback threw an exception");
      return;
    }
    // A failed callback poisons the stream, as a failed kernel would.
    if (TF_GetCode(status.get()) != TF_OK) {
      const char* message = TF_Message(status.get());
      call->errors->Record(TF_GetCode(status.get()), message != nullptr ? message : "");
    }
  });
}

}  // namespace

// ---------------------------------------------------------------------------
// Streams
// ---------------------------------------------------------------------------

void CreateStream(const SP_Device* device, SP_Stream* stream, TF_Status* status) noexcept {
  GuardedCall(status, [&] {
    const DeviceState* state = StateOf(device);
    if (!CheckDevice(state, status) || !CheckHandle(stream, "SP_Stream* output", status)) return;
    if (!CudaSucceeded(state->Activate(), "cudaSetDevice", status)) return;
    CudaStream created;
    if (!CudaSucceeded(NewCudaStream(created), "cudaStreamCreateWithFlags", status)) {
      return;
    }
    *stream = std::make_unique<SP_Stream_st>(*state, std::move(created)).release();
  });
}

void DestroyStream(const SP_Device* /*device*/, SP_Stream stream) noexcept {
  if (stream == nullptr) return;
  // Finish the stream's work first, as destroying a queue does in the other
  // reference plugins: the host may free the memory that work uses as soon
  // as this returns. Then ~SP_Stream_st destroys the CUDA stream.
  GuardedCall(nullptr, [&] {
    std::unique_ptr<SP_Stream_st> owned(stream);
    cudaStreamSynchronize(owned->stream.get());
  });
}

void CreateStreamDependency(const SP_Device* /*device*/, SP_Stream dependent, SP_Stream other,
                            TF_Status* status) noexcept {
  GuardedCall(status, [&] {
    if (!CheckStream(dependent, status) || !CheckStream(other, status)) return;
    if (dependent == other) {  // A stream already waits for its own work.
      SetOk(status);
      return;
    }
    if (!ActivateStreamDevice(other, status)) return;
    // A marker at the end of `other`'s work so far, which `dependent` waits
    // for. The wait holds the marker's state as of now, so the event can go
    // at once; CUDA frees it when the wait no longer needs it.
    CudaEvent marker;
    if (!CudaSucceeded(NewCudaEvent(marker, /*timing=*/false), "cudaEventCreateWithFlags",
                       status) ||
        !CudaSucceeded(cudaEventRecord(marker.get(), other->stream.get()), "cudaEventRecord",
                       status)) {
      return;
    }
    CudaSucceeded(cudaStreamWaitEvent(dependent->stream.get(), marker.get(), 0),
                  "cudaStreamWaitEvent", status);
  });
}

void GetStreamStatus(const SP_Device* /*device*/, SP_Stream stream, TF_Status* status) noexcept {
  GuardedCall(status, [&] {
    if (!CheckStream(stream, status)) return;
    if (const StreamError error = stream->callback_errors->first(); error.code != TF_OK) {
      SetError(status, error.code, error.message);
      return;
    }
    // cudaStreamQuery reports an asynchronous failure of earlier work (a
    // faulting copy poisons the whole context); "not ready" is healthy.
    const cudaError_t state = cudaStreamQuery(stream->stream.get());
    CudaSucceeded(state == cudaErrorNotReady ? cudaSuccess : state, "cudaStreamQuery", status);
  });
}

void BlockHostUntilDone(const SP_Device* /*device*/, SP_Stream stream, TF_Status* status) noexcept {
  GuardedCall(status, [&] {
    if (!CheckStream(stream, status)) return;
    CudaSucceeded(cudaStreamSynchronize(stream->stream.get()), "cudaStreamSynchronize", status);
  });
}

void SynchronizeAllActivity(const SP_Device* device, TF_Status* status) noexcept {
  GuardedCall(status, [&] {
    const DeviceState* state = StateOf(device);
    if (!CheckDevice(state, status) || !CudaSucceeded(state->Activate(), "cudaSetDevice", status)) {
      return;
    }
    // Waits for every stream of the device, host callbacks included.
    CudaSucceeded(cudaDeviceSynchronize(), "cudaDeviceSynchronize", status);
  });
}

// ---------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------

void CreateEvent(const SP_Device* device, SP_Event* event, TF_Status* status) noexcept {
  GuardedCall(status, [&] {
    const DeviceState* state = StateOf(device);
    if (!CheckDevice(state, status) || !CheckHandle(event, "SP_Event* output", status)) return;
    if (!CudaSucceeded(state->Activate(), "cudaSetDevice", status)) return;
    CudaEvent created;
    if (!CudaSucceeded(NewCudaEvent(created, /*timing=*/false), "cudaEventCreateWithFlags",
                       status)) {
      return;
    }
    *event = std::make_unique<SP_Event_st>(std::move(created)).release();
  });
}

void DestroyEvent(const SP_Device* /*device*/, SP_Event event) noexcept {
  // CUDA lets an event go while records of it or waits on it are queued.
  std::unique_ptr<SP_Event_st> owned(event);
}

SE_EventStatus GetEventStatus(const SP_Device* /*device*/, SP_Event event) noexcept {
  if (event == nullptr) return SE_EVENT_ERROR;
  // A never-recorded event is complete, and a re-recorded one pending until
  // the stream reaches the new record: CUDA's semantics are TensorFlow's.
  switch (cudaEventQuery(event->event.get())) {
    case cudaSuccess:
      return SE_EVENT_COMPLETE;
    case cudaErrorNotReady:
      return SE_EVENT_PENDING;
    default:
      return SE_EVENT_ERROR;
  }
}

void RecordEvent(const SP_Device* /*device*/, SP_Stream stream, SP_Event event,
                 TF_Status* status) noexcept {
  GuardedCall(status, [&] {
    if (!CheckStream(stream, status) || !CheckHandle(event, "SP_Event", status) ||
        !ActivateStreamDevice(stream, status)) {
      return;
    }
    CudaSucceeded(cudaEventRecord(event->event.get(), stream->stream.get()), "cudaEventRecord",
                  status);
  });
}

void WaitForEvent(const SP_Device* /*device*/, SP_Stream stream, SP_Event event,
                  TF_Status* status) noexcept {
  GuardedCall(status, [&] {
    if (!CheckStream(stream, status) || !CheckHandle(event, "SP_Event", status) ||
        !ActivateStreamDevice(stream, status)) {
      return;
    }
    // Waits for the record made last before this call; a later re-record
    // does not extend the wait.
    CudaSucceeded(cudaStreamWaitEvent(stream->stream.get(), event->event.get(), 0),
                  "cudaStreamWaitEvent", status);
  });
}

void BlockHostForEvent(const SP_Device* /*device*/, SP_Event event, TF_Status* status) noexcept {
  GuardedCall(status, [&] {
    if (!CheckHandle(event, "SP_Event", status)) return;
    CudaSucceeded(cudaEventSynchronize(event->event.get()), "cudaEventSynchronize", status);
  });
}

// ---------------------------------------------------------------------------
// Timers
// ---------------------------------------------------------------------------

void CreateTimer(const SP_Device* device, SP_Timer* timer, TF_Status* status) noexcept {
  GuardedCall(status, [&] {
    const DeviceState* state = StateOf(device);
    if (!CheckDevice(state, status) || !CheckHandle(timer, "SP_Timer* output", status)) return;
    if (!CudaSucceeded(state->Activate(), "cudaSetDevice", status)) return;
    CudaEvent start;
    CudaEvent stop;
    if (!CudaSucceeded(NewCudaEvent(start, /*timing=*/true), "cudaEventCreate", status) ||
        !CudaSucceeded(NewCudaEvent(stop, /*timing=*/true), "cudaEventCreate", status)) {
      return;
    }
    *timer = std::make_unique<SP_Timer_st>(std::move(start), std::move(stop)).release();
  });
}

void DestroyTimer(const SP_Device* /*device*/, SP_Timer timer) noexcept {
  std::unique_ptr<SP_Timer_st> owned(timer);
}

void StartTimer(const SP_Device* /*device*/, SP_Stream stream, SP_Timer timer,
                TF_Status* status) noexcept {
  GuardedCall(status, [&] {
    if (!CheckStream(stream, status) || !CheckHandle(timer, "SP_Timer", status) ||
        !ActivateStreamDevice(stream, status)) {
      return;
    }
    CudaSucceeded(cudaEventRecord(timer->start.get(), stream->stream.get()), "cudaEventRecord",
                  status);
  });
}

void StopTimer(const SP_Device* /*device*/, SP_Stream stream, SP_Timer timer,
               TF_Status* status) noexcept {
  GuardedCall(status, [&] {
    if (!CheckStream(stream, status) || !CheckHandle(timer, "SP_Timer", status) ||
        !ActivateStreamDevice(stream, status)) {
      return;
    }
    CudaSucceeded(cudaEventRecord(timer->stop.get(), stream->stream.get()), "cudaEventRecord",
                  status);
  });
}

// ---------------------------------------------------------------------------
// Host callbacks
// ---------------------------------------------------------------------------

TF_Bool HostCallback(const SP_Device* /*device*/, SP_Stream stream, SE_StatusCallbackFn callback_fn,
                     void* callback_arg) noexcept {
  if (stream == nullptr || callback_fn == nullptr) return false;
  // true means "enqueued": CUDA will run it exactly once, after the work
  // before it. If launching fails it never runs, and we say so.
  return GuardedValue<bool>(false, [&] {
    if (stream->device.Activate() != cudaSuccess) return false;
    auto call = std::make_unique<HostCallbackCall>(
        HostCallbackCall{callback_fn, callback_arg, stream->callback_errors});
    if (cudaLaunchHostFunc(stream->stream.get(), RunHostCallback, call.get()) != cudaSuccess) {
      return false;
    }
    static_cast<void>(call.release());  // RunHostCallback owns it now.
    return true;
  });
}

}  // namespace sectl_plugin::cuda
