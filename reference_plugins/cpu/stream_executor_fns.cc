// SP_StreamExecutor: memory, streams, events, timers and copies.
//
// Every callback is noexcept and checks its arguments before touching them:
// a conformance tool passes edge cases on purpose, and a plugin should answer
// a bad argument with TF_INVALID_ARGUMENT, not a crash. Asynchronous
// operations are validated when enqueued, so they cannot fail when they run.

#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "../common/entry_guard.h"
#include "../common/host_struct.h"
#include "aligned_buffer.h"
#include "device_state.h"
#include "handles.h"
#include "operations.h"
#include "plugin_fns.h"

namespace sectl_plugin::cpu {
namespace {

DeviceState* StateOf(const SP_Device* device) {
  return device != nullptr ? static_cast<DeviceState*>(device->device_handle) : nullptr;
}

void* AddressOf(const SP_DeviceMemoryBase* memory) {
  return memory != nullptr ? memory->opaque : nullptr;
}

// The argument checks. Each sets `status` and returns false on failure.

bool CheckDevice(const DeviceState* state, TF_Status* status) {
  if (state != nullptr) return true;
  SetError(status, TF_INVALID_ARGUMENT, "sectl_cpu: null SP_Device or device_handle");
  return false;
}

bool CheckStream(SP_Stream stream, TF_Status* status) {
  if (stream != nullptr) return true;
  SetError(status, TF_INVALID_ARGUMENT, "sectl_cpu: null SP_Stream");
  return false;
}

bool CheckHandle(const void* handle, const char* what, TF_Status* status) {
  if (handle != nullptr) return true;
  SetError(status, TF_INVALID_ARGUMENT, std::string("sectl_cpu: null ") + what);
  return false;
}

// An operation on `size` bytes at `address` needs a real address, unless
// it touches nothing.
bool CheckAddress(const void* address, const char* role, uint64_t size, TF_Status* status) {
  if (size == 0 || address != nullptr) return true;
  SetError(status, TF_INVALID_ARGUMENT,
           std::string("sectl_cpu: null ") + role + " for " + std::to_string(size) + " bytes");
  return false;
}

bool CheckTransfer(const void* destination, const void* source, uint64_t size, TF_Status* status) {
  return CheckAddress(destination, "destination", size, status) &&
         CheckAddress(source, "source", size, status);
}

// ---------------------------------------------------------------------------
// Device memory
// ---------------------------------------------------------------------------

void Allocate(const SP_Device* device, uint64_t size, int64_t /*memory_space*/,
              SP_DeviceMemoryBase* memory) noexcept {
  if (memory == nullptr) return;
  HostStruct<SP_DeviceMemoryBase> out(memory, SP_DEVICE_MEMORY_BASE_STRUCT_SIZE);
  // Memory we could not hand back would be leaked.
  if (!out.Has(&SP_DeviceMemoryBase::opaque)) return;
  DeviceState* state = StateOf(device);
  void* address = state != nullptr
                      ? GuardedValue<void*>(nullptr, [&] { return state->Allocate(size); })
                      : nullptr;
  // Failure (size 0, over budget, out of memory) is reported as a null
  // address of size 0: allocate has no status to report through.
  out.Set(&SP_DeviceMemoryBase::opaque, address);
  out.Set(&SP_DeviceMemoryBase::size, address != nullptr ? size : 0);
  out.Set(&SP_DeviceMemoryBase::payload, 0);
  out.WriteBackSize();
}

void Deallocate(const SP_Device* device, SP_DeviceMemoryBase* memory) noexcept {
  DeviceState* state = StateOf(device);
  if (state == nullptr || memory == nullptr) return;
  // Only `opaque` is used: TensorFlow frees with size and payload left 0.
  state->Deallocate(memory->opaque);
}

// Host and unified memory are the same thing on a CPU device: ordinary
// aligned host memory, not counted against the device budget.
void* HostMemoryAllocate(const SP_Device* /*device*/, uint64_t size) noexcept {
  return AllocateAligned(size).release();
}

void HostMemoryDeallocate(const SP_Device* /*device*/, void* memory) noexcept {
  AlignedBuffer owned(memory);  // Takes back what HostMemoryAllocate released.
}

void* UnifiedMemoryAllocate(const SP_Device* /*device*/, uint64_t bytes) noexcept {
  return AllocateAligned(bytes).release();
}

void UnifiedMemoryDeallocate(const SP_Device* /*device*/, void* location) noexcept {
  AlignedBuffer owned(location);
}

TF_Bool GetAllocatorStats(const SP_Device* device, SP_AllocatorStats* stats) noexcept {
  const DeviceState* state = StateOf(device);
  if (state == nullptr || stats == nullptr) return false;
  const MemoryStats now = state->memory_stats();
  const int64_t budget = state->memory_budget();

  HostStruct<SP_AllocatorStats> out(stats, SP_ALLOCATORSTATS_STRUCT_SIZE);
  out.Set(&SP_AllocatorStats::num_allocs, now.num_allocs);
  out.Set(&SP_AllocatorStats::bytes_in_use, now.bytes_in_use);
  out.Set(&SP_AllocatorStats::peak_bytes_in_use, now.peak_bytes_in_use);
  out.Set(&SP_AllocatorStats::largest_alloc_size, now.largest_alloc_size);
  out.Set(&SP_AllocatorStats::has_bytes_limit, 1);
  out.Set(&SP_AllocatorStats::bytes_limit, budget);
  // Nothing is reserved ahead of use: every allocation goes to the system.
  out.Set(&SP_AllocatorStats::bytes_reserved, 0);
  out.Set(&SP_AllocatorStats::peak_bytes_reserved, 0);
  out.Set(&SP_AllocatorStats::has_bytes_reservable_limit, 0);
  out.Set(&SP_AllocatorStats::bytes_reservable_limit, 0);
  out.Set(&SP_AllocatorStats::largest_free_block_bytes, budget - now.bytes_in_use);
  out.WriteBackSize();
  return true;
}

TF_Bool DeviceMemoryUsage(const SP_Device* device, int64_t* free, int64_t* total) noexcept {
  const DeviceState* state = StateOf(device);
  if (state == nullptr || free == nullptr || total == nullptr) return false;
  // TensorFlow sizes its BFC pool from `free`; it must return true, or
  // device creation fails.
  *total = state->memory_budget();
  *free = state->memory_budget() - state->memory_stats().bytes_in_use;
  return true;
}

// ---------------------------------------------------------------------------
// Streams
// ---------------------------------------------------------------------------

void CreateStream(const SP_Device* device, SP_Stream* stream, TF_Status* status) noexcept {
  GuardedCall(status, [&] {
    DeviceState* state = StateOf(device);
    if (!CheckDevice(state, status) || !CheckHandle(stream, "SP_Stream* output", status)) return;
    *stream = std::make_unique<SP_Stream_st>(*state).release();
    SetOk(status);
  });
}

void DestroyStream(const SP_Device* /*device*/, SP_Stream stream) noexcept {
  // Runs the rest of the queue and joins the worker.
  GuardedCall(nullptr, [&] { std::unique_ptr<SP_Stream_st> owned(stream); });
}

// Enqueues a record of `event` on `stream`; returns the generation recorded.
uint64_t EnqueueRecord(SP_Stream stream, const std::shared_ptr<EventState>& event) {
  const uint64_t generation = event->BeginRecord();
  try {
    stream->worker.Enqueue(RecordEventOp{event, generation});
  } catch (...) {
    event->Complete(generation);  // Never leave an event pending forever.
    throw;
  }
  return generation;
}

// Makes `stream`'s later work wait until `event` reaches `generation`.
void EnqueueWait(SP_Stream stream, const std::shared_ptr<EventState>& event, uint64_t generation) {
  if (event->HasCompleted(generation)) return;  // Nothing to wait for.
  stream->worker.Enqueue(WaitForEventOp{event, generation});
}

void CreateStreamDependency(const SP_Device* /*device*/, SP_Stream dependent, SP_Stream other,
                            TF_Status* status) noexcept {
  GuardedCall(status, [&] {
    if (!CheckStream(dependent, status) || !CheckStream(other, status)) return;
    if (dependent != other) {  // A stream already waits for its own work.
      // A marker on `other` and a wait for it on `dependent`: an event that
      // belongs to neither stream and lives as long as the operations do.
      auto marker = std::make_shared<EventState>();
      EnqueueWait(dependent, marker, EnqueueRecord(other, marker));
    }
    SetOk(status);
  });
}

void GetStreamStatus(const SP_Device* /*device*/, SP_Stream stream, TF_Status* status) noexcept {
  GuardedCall(status, [&] {
    if (!CheckStream(stream, status)) return;
    const StreamError error = stream->worker.error();
    if (error.code == TF_OK) {
      SetOk(status);
    } else {
      SetError(status, error.code, error.message);
    }
  });
}

void BlockHostUntilDone(const SP_Device* /*device*/, SP_Stream stream, TF_Status* status) noexcept {
  GuardedCall(status, [&] {
    if (!CheckStream(stream, status)) return;
    stream->worker.BlockUntilDone();
    SetOk(status);
  });
}

void SynchronizeAllActivity(const SP_Device* device, TF_Status* status) noexcept {
  GuardedCall(status, [&] {
    DeviceState* state = StateOf(device);
    if (!CheckDevice(state, status)) return;
    state->SynchronizeAllStreams();
    SetOk(status);
  });
}

// ---------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------

void CreateEvent(const SP_Device* /*device*/, SP_Event* event, TF_Status* status) noexcept {
  GuardedCall(status, [&] {
    if (!CheckHandle(event, "SP_Event* output", status)) return;
    *event = std::make_unique<SP_Event_st>().release();
    SetOk(status);
  });
}

void DestroyEvent(const SP_Device* /*device*/, SP_Event event) noexcept {
  // Operations still queued on the event keep its state alive.
  std::unique_ptr<SP_Event_st> owned(event);
}

SE_EventStatus GetEventStatus(const SP_Device* /*device*/, SP_Event event) noexcept {
  if (event == nullptr) return SE_EVENT_ERROR;
  return event->state->IsComplete() ? SE_EVENT_COMPLETE : SE_EVENT_PENDING;
}

void RecordEvent(const SP_Device* /*device*/, SP_Stream stream, SP_Event event,
                 TF_Status* status) noexcept {
  GuardedCall(status, [&] {
    if (!CheckStream(stream, status) || !CheckHandle(event, "SP_Event", status)) return;
    EnqueueRecord(stream, event->state);
    SetOk(status);
  });
}

void WaitForEvent(const SP_Device* const /*device*/, SP_Stream stream, SP_Event event,
                  TF_Status* const status) noexcept {
  GuardedCall(status, [&] {
    if (!CheckStream(stream, status) || !CheckHandle(event, "SP_Event", status)) return;
    // The generation recorded now: a later re-record must not extend the wait.
    EnqueueWait(stream, event->state, event->state->recorded_generation());
    SetOk(status);
  });
}

void BlockHostForEvent(const SP_Device* /*device*/, SP_Event event, TF_Status* status) noexcept {
  GuardedCall(status, [&] {
    if (!CheckHandle(event, "SP_Event", status)) return;
    event->state->WaitFor(event->state->recorded_generation());
    SetOk(status);
  });
}

// ---------------------------------------------------------------------------
// Timers
// ---------------------------------------------------------------------------

void CreateTimer(const SP_Device* /*device*/, SP_Timer* timer, TF_Status* status) noexcept {
  GuardedCall(status, [&] {
    if (!CheckHandle(timer, "SP_Timer* output", status)) return;
    *timer = std::make_unique<SP_Timer_st>().release();
    SetOk(status);
  });
}

void DestroyTimer(const SP_Device* /*device*/, SP_Timer timer) noexcept {
  std::unique_ptr<SP_Timer_st> owned(timer);
}

void StartTimer(const SP_Device* /*device*/, SP_Stream stream, SP_Timer timer,
                TF_Status* status) noexcept {
  GuardedCall(status, [&] {
    if (!CheckStream(stream, status) || !CheckHandle(timer, "SP_Timer", status)) return;
    stream->worker.Enqueue(StartTimerOp{timer->state});
    SetOk(status);
  });
}

void StopTimer(const SP_Device* /*device*/, SP_Stream stream, SP_Timer timer,
               TF_Status* status) noexcept {
  GuardedCall(status, [&] {
    if (!CheckStream(stream, status) || !CheckHandle(timer, "SP_Timer", status)) return;
    stream->worker.Enqueue(StopTimerOp{timer->state});
    SetOk(status);
  });
}

// ---------------------------------------------------------------------------
// Copies and fills
// ---------------------------------------------------------------------------

void EnqueueCopy(SP_Stream stream, void* destination, const void* source, uint64_t size,
                 TF_Status* status) {
  GuardedCall(status, [&] {
    if (!CheckStream(stream, status) || !CheckTransfer(destination, source, size, status)) return;
    if (size != 0) stream->worker.Enqueue(CopyOp{destination, source, size});
    SetOk(status);
  });
}

void MemcpyDtoH(const SP_Device* /*device*/, SP_Stream stream, void* host_dst,
                const SP_DeviceMemoryBase* device_src, uint64_t size, TF_Status* status) noexcept {
  EnqueueCopy(stream, host_dst, AddressOf(device_src), size, status);
}

void MemcpyHtoD(const SP_Device* /*device*/, SP_Stream stream, SP_DeviceMemoryBase* device_dst,
                const void* host_src, uint64_t size, TF_Status* status) noexcept {
  EnqueueCopy(stream, AddressOf(device_dst), host_src, size, status);
}

void MemcpyDtoD(const SP_Device* /*device*/, SP_Stream stream, SP_DeviceMemoryBase* device_dst,
                const SP_DeviceMemoryBase* device_src, uint64_t size, TF_Status* status) noexcept {
  EnqueueCopy(stream, AddressOf(device_dst), AddressOf(device_src), size, status);
}

// The synchronous copies run on the calling thread, right away.
void CopyNow(void* destination, const void* source, uint64_t size, TF_Status* status) {
  GuardedCall(status, [&] {
    if (!CheckTransfer(destination, source, size, status)) return;
    if (size != 0) std::memmove(destination, source, size);
    SetOk(status);
  });
}

void SyncMemcpyDtoH(const SP_Device* /*device*/, void* host_dst,
                    const SP_DeviceMemoryBase* device_src, uint64_t size,
                    TF_Status* status) noexcept {
  CopyNow(host_dst, AddressOf(device_src), size, status);
}

void SyncMemcpyHtoD(const SP_Device* /*device*/, SP_DeviceMemoryBase* device_dst,
                    const void* host_src, uint64_t size, TF_Status* status) noexcept {
  CopyNow(AddressOf(device_dst), host_src, size, status);
}

void SyncMemcpyDtoD(const SP_Device* /*device*/, SP_DeviceMemoryBase* device_dst,
                    const SP_DeviceMemoryBase* device_src, uint64_t size,
                    TF_Status* status) noexcept {
  CopyNow(AddressOf(device_dst), AddressOf(device_src), size, status);
}

void EnqueueFillBytes(SP_Stream stream, SP_DeviceMemoryBase* location, uint8_t value, uint64_t size,
                      TF_Status* status) {
  GuardedCall(status, [&] {
    void* destination = AddressOf(location);
    if (!CheckStream(stream, status) || !CheckAddress(destination, "destination", size, status)) {
      return;
    }
    if (size != 0) stream->worker.Enqueue(FillBytesOp{destination, size, value});
    SetOk(status);
  });
}

void MemZero(const SP_Device* /*device*/, SP_Stream stream, SP_DeviceMemoryBase* location,
             uint64_t size, TF_Status* status) noexcept {
  EnqueueFillBytes(stream, location, 0, size, status);
}

void Memset(const SP_Device* /*device*/, SP_Stream stream, SP_DeviceMemoryBase* location,
            uint8_t pattern, uint64_t size, TF_Status* status) noexcept {
  EnqueueFillBytes(stream, location, pattern, size, status);
}

void Memset32(const SP_Device* /*device*/, SP_Stream stream, SP_DeviceMemoryBase* location,
              uint32_t pattern, uint64_t size, TF_Status* status) noexcept {
  GuardedCall(status, [&] {
    void* destination = AddressOf(location);
    if (!CheckStream(stream, status) || !CheckAddress(destination, "destination", size, status)) {
      return;
    }
    // `size` counts bytes, like TensorFlow's own test of memset32; a count
    // of words would be the classic mistake.
    if (size % sizeof(uint32_t) != 0) {
      SetError(
          status, TF_INVALID_ARGUMENT,
          "sectl_cpu: memset32 size " + std::to_string(size) + " is not a multiple of 4 bytes");
      return;
    }
    if (size != 0) {
      stream->worker.Enqueue(FillWordsOp{destination, size / sizeof(uint32_t), pattern});
    }
    SetOk(status);
  });
}

// ---------------------------------------------------------------------------
// Host callbacks
// ---------------------------------------------------------------------------

TF_Bool HostCallback(const SP_Device* /*device*/, SP_Stream stream, SE_StatusCallbackFn callback_fn,
                     void* callback_arg) noexcept {
  if (stream == nullptr || callback_fn == nullptr) return false;
  // true means "enqueued": the worker will call it exactly once, after the
  // work before it. If enqueueing fails it is never called, and we say so.
  return GuardedValue<bool>(false, [&] {
    stream->worker.Enqueue(HostCallbackOp{callback_fn, callback_arg});
    return true;
  });
}

}  // namespace

// The layout of SP_StreamExecutor before TensorFlow ~2.7 inserted mem_zero,
// memset and memset32: 264 bytes, with host_callback where mem_zero is now.
constexpr size_t kPre27StreamExecutorSize = 264;
constexpr size_t kPre27HostCallbackOffset = 256;
static_assert(TF_OFFSET_OF_END(SP_StreamExecutor, synchronize_all_activity) ==
              kPre27HostCallbackOffset);

void FillStreamExecutor(SP_StreamExecutor* executor) {
  HostStruct<SP_StreamExecutor> se(executor, SP_STREAMEXECUTOR_STRUCT_SIZE);
  se.Set(&SP_StreamExecutor::allocate, Allocate);
  se.Set(&SP_StreamExecutor::deallocate, Deallocate);
  se.Set(&SP_StreamExecutor::host_memory_allocate, HostMemoryAllocate);
  se.Set(&SP_StreamExecutor::host_memory_deallocate, HostMemoryDeallocate);
  se.Set(&SP_StreamExecutor::unified_memory_allocate, UnifiedMemoryAllocate);
  se.Set(&SP_StreamExecutor::unified_memory_deallocate, UnifiedMemoryDeallocate);
  se.Set(&SP_StreamExecutor::get_allocator_stats, GetAllocatorStats);
  se.Set(&SP_StreamExecutor::device_memory_usage, DeviceMemoryUsage);
  se.Set(&SP_StreamExecutor::create_stream, CreateStream);
  se.Set(&SP_StreamExecutor::destroy_stream, DestroyStream);
  se.Set(&SP_StreamExecutor::create_stream_dependency, CreateStreamDependency);
  se.Set(&SP_StreamExecutor::get_stream_status, GetStreamStatus);
  se.Set(&SP_StreamExecutor::create_event, CreateEvent);
  se.Set(&SP_StreamExecutor::destroy_event, DestroyEvent);
  se.Set(&SP_StreamExecutor::get_event_status, GetEventStatus);
  se.Set(&SP_StreamExecutor::record_event, RecordEvent);
  se.Set(&SP_StreamExecutor::wait_for_event, WaitForEvent);
  se.Set(&SP_StreamExecutor::create_timer, CreateTimer);
  se.Set(&SP_StreamExecutor::destroy_timer, DestroyTimer);
  se.Set(&SP_StreamExecutor::start_timer, StartTimer);
  se.Set(&SP_StreamExecutor::stop_timer, StopTimer);
  se.Set(&SP_StreamExecutor::memcpy_dtoh, MemcpyDtoH);
  se.Set(&SP_StreamExecutor::memcpy_htod, MemcpyHtoD);
  se.Set(&SP_StreamExecutor::memcpy_dtod, MemcpyDtoD);
  se.Set(&SP_StreamExecutor::sync_memcpy_dtoh, SyncMemcpyDtoH);
  se.Set(&SP_StreamExecutor::sync_memcpy_htod, SyncMemcpyHtoD);
  se.Set(&SP_StreamExecutor::sync_memcpy_dtod, SyncMemcpyDtoD);
  se.Set(&SP_StreamExecutor::block_host_for_event, BlockHostForEvent);
  se.Set(&SP_StreamExecutor::block_host_until_done, BlockHostUntilDone);
  se.Set(&SP_StreamExecutor::synchronize_all_activity, SynchronizeAllActivity);

  if (se.host_size() == kPre27StreamExecutorSize) {
    // An older host: its struct has no fills, and its host_callback sits
    // where today's mem_zero is. Filling by today's names would hand it
    // mem_zero as its host_callback.
    const decltype(SP_StreamExecutor::host_callback) host_callback = HostCallback;
    se.SetAtOffset(kPre27HostCallbackOffset, host_callback);
  } else {
    se.Set(&SP_StreamExecutor::mem_zero, MemZero);
    se.Set(&SP_StreamExecutor::memset, Memset);
    se.Set(&SP_StreamExecutor::memset32, Memset32);
    se.Set(&SP_StreamExecutor::host_callback, HostCallback);
  }
  se.WriteBackSize();
}

}  // namespace sectl_plugin::cpu
