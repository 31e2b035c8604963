// Not faults: device queues that behave as real accelerators' do, for the
// bench engine's tests (reference_plugins/faulty/queue.cmake). On the
// asynchronous cpu base.
//
// FAULT_BOUNDED_QUEUE: a stream holds at most kQueueDepth operations behind a
// host callback that has not run yet; enqueueing one more blocks the caller
// until the callback has run, as cudaMemcpyAsync blocks behind a host
// function once CUDA's queue is full. A benchmark that queues thousands of
// copies behind a callback only its own thread releases deadlocks on it.
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

#include "fault_hooks.h"

namespace {

constexpr int kQueueDepth = 256;

using HostCallbackFn = TF_Bool (*)(const SP_Device*, SP_Stream, SE_StatusCallbackFn, void*);
using MemcpyDtoHFn = void (*)(const SP_Device*, SP_Stream, void*, const SP_DeviceMemoryBase*,
                              uint64_t, TF_Status*);
using MemcpyHtoDFn = void (*)(const SP_Device*, SP_Stream, SP_DeviceMemoryBase*, const void*,
                              uint64_t, TF_Status*);
using MemcpyDtoDFn = void (*)(const SP_Device*, SP_Stream, SP_DeviceMemoryBase*,
                              const SP_DeviceMemoryBase*, uint64_t, TF_Status*);

HostCallbackFn base_host_callback;
MemcpyDtoHFn base_memcpy_dtoh;
MemcpyHtoDFn base_memcpy_htod;
MemcpyDtoDFn base_memcpy_dtod;

// What waits on each stream behind host callbacks that have not run.
struct StreamQueue {
  int pending_callbacks = 0;
  int queued_behind = 0;
};

std::mutex queues_mutex;
std::condition_variable callback_ran;
std::map<SP_Stream, StreamQueue> queues;

struct CallbackContext {
  SE_StatusCallbackFn callback;
  void* argument;
  SP_Stream stream;
};

void RunThenFreeTheQueue(void* context, TF_Status* status) {
  const std::unique_ptr<CallbackContext> owned(static_cast<CallbackContext*>(context));
  owned->callback(owned->argument, status);
  {
    const std::lock_guard lock(queues_mutex);
    StreamQueue& queue = queues[owned->stream];
    if (--queue.pending_callbacks == 0) queue.queued_behind = 0;
  }
  callback_ran.notify_all();
}

TF_Bool QueueingHostCallback(const SP_Device* device, SP_Stream stream,
                             SE_StatusCallbackFn callback, void* argument) {
  {
    const std::lock_guard lock(queues_mutex);
    ++queues[stream].pending_callbacks;
  }
  auto context = std::make_unique<CallbackContext>(CallbackContext{callback, argument, stream});
  if (base_host_callback(device, stream, RunThenFreeTheQueue, context.get()) == 0) {
    const std::lock_guard lock(queues_mutex);
    --queues[stream].pending_callbacks;
    return 0;
  }
  context.release();  // RunThenFreeTheQueue owns it now
  return 1;
}

// Blocks while the stream's queue behind a pending callback is full.
void WaitForRoom(SP_Stream stream) {
  std::unique_lock lock(queues_mutex);
  StreamQueue& queue = queues[stream];
  if (queue.pending_callbacks == 0 || ++queue.queued_behind <= kQueueDepth) return;
  callback_ran.wait(lock, [&queue] { return queue.pending_callbacks == 0; });
}

void QueuedMemcpyDtoH(const SP_Device* device, SP_Stream stream, void* host_dst,
                      const SP_DeviceMemoryBase* device_src, uint64_t size, TF_Status* status) {
  WaitForRoom(stream);
  base_memcpy_dtoh(device, stream, host_dst, device_src, size, status);
}

void QueuedMemcpyHtoD(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* device_dst,
                      const void* host_src, uint64_t size, TF_Status* status) {
  WaitForRoom(stream);
  base_memcpy_htod(device, stream, device_dst, host_src, size, status);
}

void QueuedMemcpyDtoD(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* device_dst,
                      const SP_DeviceMemoryBase* device_src, uint64_t size, TF_Status* status) {
  WaitForRoom(stream);
  base_memcpy_dtod(device, stream, device_dst, device_src, size, status);
}

}  // namespace

void PlantRegistrationFault(SE_PlatformRegistrationParams* /*params*/, TF_Status* /*status*/) {}

void PlantStreamExecutorFault(SP_StreamExecutor* stream_executor) {
#if defined(FAULT_BOUNDED_QUEUE)
  base_host_callback = stream_executor->host_callback;
  base_memcpy_dtoh = stream_executor->memcpy_dtoh;
  base_memcpy_htod = stream_executor->memcpy_htod;
  base_memcpy_dtod = stream_executor->memcpy_dtod;
  stream_executor->host_callback = QueueingHostCallback;
  stream_executor->memcpy_dtoh = QueuedMemcpyDtoH;
  stream_executor->memcpy_htod = QueuedMemcpyHtoD;
  stream_executor->memcpy_dtod = QueuedMemcpyDtoD;
#endif
}
