// Faults in streams, events, host callbacks, timers and concurrency
// (checks/{stream,event,callback,timer,concurrency}_checks.cc).
//
// Each fault wraps one or two of the base plugin's functions. The ordering
// faults misbehave only while a host callback is pending on a stream: a
// plugin whose every wait returned early would fail every check that waits
// for a copy, while sectl's ordering checks are exactly the ones that keep a
// stream busy with a host callback when they look. Real plugins have this
// shape of bug too: a host-callback thread that the DMA engine or the wait
// does not know about.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "fault_hooks.h"

#if defined(FAULT_STREAM_OUT_OF_ORDER) || defined(FAULT_BLOCK_RETURNS_EARLY) ||                 \
    defined(FAULT_SYNCHRONIZE_RETURNS_EARLY) || defined(FAULT_BLOCK_FOR_EVENT_RETURNS_EARLY) || \
    defined(FAULT_CALLBACK_BEFORE_EARLIER_WORK) || defined(FAULT_STREAM_STATUS_SPURIOUS_ERROR)
#define TRACKS_HOST_CALLBACKS 1
#endif

namespace {

using HostCallbackFn = TF_Bool (*)(const SP_Device*, SP_Stream, SE_StatusCallbackFn, void*);

[[maybe_unused]] void SetOk(TF_Status* status) { TF_SetStatus(status, TF_OK, ""); }

// Where the host's SP_StreamExecutor keeps host_callback: a host older than
// TensorFlow 2.7 has a 264-byte struct with host_callback where mem_zero is now.
HostCallbackFn* HostCallbackSlot(SP_StreamExecutor* stream_executor) {
  constexpr size_t kPre27Size = 264;
  constexpr size_t kPre27HostCallbackOffset = 256;
  if (stream_executor->struct_size != kPre27Size) return &stream_executor->host_callback;
  return reinterpret_cast<HostCallbackFn*>(reinterpret_cast<unsigned char*>(stream_executor) +
                                           kPre27HostCallbackOffset);
}

HostCallbackFn base_host_callback = nullptr;

#if defined(TRACKS_HOST_CALLBACKS)
// Which streams have host callbacks enqueued and not yet run, and which
// have run one. The base plugin is left to do the work; this only watches.
class CallbackTracker {
 public:
  void Enqueued(SP_Stream stream) {
    std::lock_guard lock(mutex_);
    ++pending_[stream];
  }
  void Ran(SP_Stream stream) {
    {
      std::lock_guard lock(mutex_);
      Withdraw(stream);
      ran_.insert(stream);
    }
    withdrawn_.notify_all();
  }
  void NotEnqueued(SP_Stream stream) {
    {
      std::lock_guard lock(mutex_);
      Withdraw(stream);
    }
    withdrawn_.notify_all();
  }
  void Forget(SP_Stream stream) {
    std::lock_guard lock(mutex_);
    ran_.erase(stream);
  }
  bool PendingOn(SP_Stream stream) {
    std::lock_guard lock(mutex_);
    return pending_.count(stream) != 0;
  }
  // Whether a callback on `stream` is still queued or running after
  // `patience`. A callback counts as pending until its wrapper notes that it
  // returned, a moment after the host has seen it run: the host may enqueue
  // its next callback in that moment, and must not find the last one pending.
  bool StillPendingOnAfter(SP_Stream stream, std::chrono::milliseconds patience) {
    std::unique_lock lock(mutex_);
    return !withdrawn_.wait_for(lock, patience, [&] { return pending_.count(stream) == 0; });
  }
  bool PendingAnywhere() {
    std::lock_guard lock(mutex_);
    return !pending_.empty();
  }
  bool HasRunOn(SP_Stream stream) {
    std::lock_guard lock(mutex_);
    return ran_.count(stream) != 0;
  }

 private:
  void Withdraw(SP_Stream stream) {
    if (--pending_[stream] == 0) pending_.erase(stream);
  }

  std::mutex mutex_;
  std::condition_variable withdrawn_;
  std::map<SP_Stream, int> pending_;  // Guarded by mutex_.
  std::set<SP_Stream> ran_;           // Guarded by mutex_.
};

CallbackTracker tracker;

struct TrackedCallback {
  SP_Stream stream;
  SE_StatusCallbackFn callback;
  void* argument;
};

void RunTracked(void* context, TF_Status* status) {
  const std::unique_ptr<TrackedCallback> tracked(static_cast<TrackedCallback*>(context));
  tracked->callback(tracked->argument, status);
  tracker.Ran(tracked->stream);
}

TF_Bool TrackedHostCallback(const SP_Device* device, SP_Stream stream, SE_StatusCallbackFn callback,
                            void* argument) {
  auto tracked = std::make_unique<TrackedCallback>(TrackedCallback{stream, callback, argument});
  tracker.Enqueued(stream);
  if (!base_host_callback(device, stream, RunTracked, tracked.get())) {
    tracker.NotEnqueued(stream);
    return 0;
  }
  (void)tracked.release();  // RunTracked owns it now (and may already have run).
  return 1;
}

void (*base_destroy_stream)(const SP_Device*, SP_Stream) = nullptr;

void ForgettingDestroyStream(const SP_Device* device, SP_Stream stream) {
  tracker.Forget(stream);
  base_destroy_stream(device, stream);
}
#endif

// ---- Streams ---------------------------------------------------------------

#if defined(FAULT_STREAM_OUT_OF_ORDER)
void (*base_memcpy_dtoh)(const SP_Device*, SP_Stream, void*, const SP_DeviceMemoryBase*, uint64_t,
                         TF_Status*) = nullptr;

// While a host callback is pending, a device-to-host copy is made at once,
// ahead of the work queued before it.
void MemcpyDtoHJumpingTheQueue(const SP_Device* device, SP_Stream stream, void* host_dst,
                               const SP_DeviceMemoryBase* device_src, uint64_t size,
                               TF_Status* status) {
  if (!tracker.PendingOn(stream) || host_dst == nullptr || device_src == nullptr) {
    base_memcpy_dtoh(device, stream, host_dst, device_src, size, status);
    return;
  }
  std::memcpy(host_dst, device_src->opaque, size);
  SetOk(status);
}
#endif

#if defined(FAULT_DEPENDENCY_IGNORED)
void IgnoredStreamDependency(const SP_Device*, SP_Stream, SP_Stream, TF_Status* status) {
  SetOk(status);
}
#endif

#if defined(FAULT_WAIT_FOR_EVENT_IGNORED)
void IgnoredWaitForEvent(const SP_Device*, SP_Stream, SP_Event, TF_Status* status) {
  SetOk(status);
}
#endif

#if defined(FAULT_BLOCK_RETURNS_EARLY)
void (*base_block_host_until_done)(const SP_Device*, SP_Stream, TF_Status*) = nullptr;

// Waits for the stream's copies, but not for its pending host callbacks.
void BlockHostUntilDoneIgnoringCallbacks(const SP_Device* device, SP_Stream stream,
                                         TF_Status* status) {
  if (tracker.PendingOn(stream)) {
    SetOk(status);
    return;
  }
  base_block_host_until_done(device, stream, status);
}
#endif

#if defined(FAULT_BLOCK_IGNORES_TIMERS)
// A device that reaches a stop_timer 20 ms after the work before it (a long
// queue: legal), and a block_host_until_done that waits for copies and host
// callbacks but not for timer stops (the defect): it returns while a stop is
// still on its way. Only the timer checks wait for a stop, so they must name
// block_host_until_done rather than fail the timer.
using TimerFn = void (*)(const SP_Device*, SP_Stream, SP_Timer, TF_Status*);
TimerFn base_stop_timer = nullptr;
void (*base_block_host_until_done)(const SP_Device*, SP_Stream, TF_Status*) = nullptr;
std::atomic<int> stops_on_the_way{0};

void StopArrivesLate(void* /*argument*/, TF_Status* status) {
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  --stops_on_the_way;
  SetOk(status);
}

void StopTimerLate(const SP_Device* device, SP_Stream stream, SP_Timer timer, TF_Status* status) {
  ++stops_on_the_way;
  if (!base_host_callback(device, stream, StopArrivesLate, nullptr)) --stops_on_the_way;
  base_stop_timer(device, stream, timer, status);
}

void BlockHostUntilDoneIgnoringTimers(const SP_Device* device, SP_Stream stream,
                                      TF_Status* status) {
  if (stops_on_the_way > 0) {
    SetOk(status);
    return;
  }
  base_block_host_until_done(device, stream, status);
}
#endif

#if defined(FAULT_SYNCHRONIZE_RETURNS_EARLY)
void (*base_synchronize_all_activity)(const SP_Device*, TF_Status*) = nullptr;

void SynchronizeIgnoringCallbacks(const SP_Device* device, TF_Status* status) {
  if (tracker.PendingAnywhere()) {
    SetOk(status);
    return;
  }
  base_synchronize_all_activity(device, status);
}
#endif

#if defined(FAULT_STREAM_STATUS_SPURIOUS_ERROR)
void (*base_get_stream_status)(const SP_Device*, SP_Stream, TF_Status*) = nullptr;

// A stream that has run any host callback, successful or not, reports an error.
void StatusFailingAfterCallbacks(const SP_Device* device, SP_Stream stream, TF_Status* status) {
  if (tracker.HasRunOn(stream)) {
    TF_SetStatus(status, TF_INTERNAL, "faulty: the stream failed (it did not)");
    return;
  }
  base_get_stream_status(device, stream, status);
}
#endif

// ---- Events ----------------------------------------------------------------

#if defined(FAULT_EVENT_STATUS_UNKNOWN) || defined(FAULT_EVENT_RERECORD_KEEPS_COMPLETE)
SE_EventStatus (*base_get_event_status)(const SP_Device*, SP_Event) = nullptr;
#endif

#if defined(FAULT_EVENT_COMPLETE_EARLY)
SE_EventStatus AlwaysComplete(const SP_Device*, SP_Event) { return SE_EVENT_COMPLETE; }
#endif

#if defined(FAULT_EVENT_STATUS_UNKNOWN)
SE_EventStatus UnknownWhilePending(const SP_Device* device, SP_Event event) {
  const SE_EventStatus status = base_get_event_status(device, event);
  return status == SE_EVENT_PENDING ? SE_EVENT_UNKNOWN : status;
}
#endif

#if defined(FAULT_EVENT_RERECORD_KEEPS_COMPLETE)
std::mutex completed_mutex;
std::set<SP_Event> completed_events;  // Guarded by completed_mutex.
void (*base_destroy_event)(const SP_Device*, SP_Event) = nullptr;

// Once an event has been seen COMPLETE, it stays COMPLETE, re-recorded or not.
SE_EventStatus CompleteForever(const SP_Device* device, SP_Event event) {
  std::lock_guard lock(completed_mutex);
  if (completed_events.count(event) != 0) return SE_EVENT_COMPLETE;
  const SE_EventStatus status = base_get_event_status(device, event);
  if (status == SE_EVENT_COMPLETE) completed_events.insert(event);
  return status;
}

void ForgettingDestroyEvent(const SP_Device* device, SP_Event event) {
  {
    std::lock_guard lock(completed_mutex);
    completed_events.erase(event);
  }
  base_destroy_event(device, event);
}
#endif

#if defined(FAULT_BLOCK_FOR_EVENT_RETURNS_EARLY)
void (*base_block_host_for_event)(const SP_Device*, SP_Event, TF_Status*) = nullptr;

void BlockForEventIgnoringCallbacks(const SP_Device* device, SP_Event event, TF_Status* status) {
  if (tracker.PendingAnywhere()) {
    SetOk(status);
    return;
  }
  base_block_host_for_event(device, event, status);
}
#endif

// ---- Host callbacks --------------------------------------------------------

#if defined(FAULT_CALLBACK_NOT_ENQUEUED)
TF_Bool RefusingHostCallback(const SP_Device*, SP_Stream, SE_StatusCallbackFn, void*) { return 0; }
#endif

#if defined(FAULT_CALLBACK_CALLED_TWICE)
TF_Bool HostCallbackTwice(const SP_Device* device, SP_Stream stream, SE_StatusCallbackFn callback,
                          void* argument) {
  const TF_Bool enqueued = base_host_callback(device, stream, callback, argument);
  (void)base_host_callback(device, stream, callback, argument);
  return enqueued;
}
#endif

#if defined(FAULT_CREATE_STREAM_ABORTS)
// A create_stream that aborts on every call, as an assertion on a condition
// the plugin's own tests never met does: TensorFlow creates four streams for
// every device it registers, so it cannot use this plugin at all.
void AbortingCreateStream(const SP_Device*, SP_Stream*, TF_Status*) { std::abort(); }
#endif

#if defined(FAULT_CALLBACK_NEVER_CALLED)
TF_Bool ForgettingHostCallback(const SP_Device*, SP_Stream, SE_StatusCallbackFn, void*) {
  return 1;
}
#endif

#if defined(FAULT_CALLBACK_BEFORE_EARLIER_WORK)
// A callback enqueued while another is pending on the stream runs at once,
// on the caller's thread, ahead of everything queued before it.
TF_Bool HostCallbackJumpingTheQueue(const SP_Device* device, SP_Stream stream,
                                    SE_StatusCallbackFn callback, void* argument) {
  // Well within the 50 ms callback.after_earlier_work holds the stream with.
  constexpr std::chrono::milliseconds kReturning{10};
  if (!tracker.StillPendingOnAfter(stream, kReturning)) {
    return TrackedHostCallback(device, stream, callback, argument);
  }
  TF_Status* status = TF_NewStatus();
  callback(argument, status);
  TF_DeleteStatus(status);
  return 1;
}
#endif

#if defined(FAULT_CALLBACK_ERROR_DROPPED)
struct CallbackWithDroppedError {
  SE_StatusCallbackFn callback;
  void* argument;
};

// The callback writes its result into a status nobody reads.
void RunDroppingError(void* context, TF_Status* /*status*/) {
  const std::unique_ptr<CallbackWithDroppedError> owned(
      static_cast<CallbackWithDroppedError*>(context));
  TF_Status* ignored = TF_NewStatus();
  owned->callback(owned->argument, ignored);
  TF_DeleteStatus(ignored);
}

TF_Bool HostCallbackDroppingErrors(const SP_Device* device, SP_Stream stream,
                                   SE_StatusCallbackFn callback, void* argument) {
  auto wrapped =
      std::make_unique<CallbackWithDroppedError>(CallbackWithDroppedError{callback, argument});
  if (!base_host_callback(device, stream, RunDroppingError, wrapped.get())) return 0;
  (void)wrapped.release();  // RunDroppingError owns it now (and may already have run).
  return 1;
}
#endif

// ---- Field-style: broken host callbacks hiding other defects ---------------
//
// Real plugins whose host_callback returns false without running the
// callback (TF_OK is 0) also had defects that sectl never saw, because every
// check watching a stream needed a callback. Each of these plugins has such
// a host_callback, and the defects below besides it.

#if defined(FAULT_HOST_CALLBACK_RETURNS_FALSE) || defined(FAULT_TIMER_HANDLE_UNSET) || \
    defined(FAULT_EVENT_STATUS_ALWAYS_UNKNOWN)
#define REFUSES_HOST_CALLBACKS 1
TF_Bool HostCallbackReturningTfOk(const SP_Device*, SP_Stream, SE_StatusCallbackFn, void*) {
  return TF_OK;  // 0: "not enqueued", and the callback never runs
}
#endif

#if defined(FAULT_EVENT_STATUS_ALWAYS_UNKNOWN)
// TensorFlow's own test plugin does this: UNKNOWN whatever the event went through.
SE_EventStatus AlwaysUnknown(const SP_Device*, SP_Event) { return SE_EVENT_UNKNOWN; }
#endif

#if defined(FAULT_TIMER_HANDLE_UNSET)
// create_timer reports OK and never sets the handle; start and stop do
// nothing; nanoseconds reads through the handle, as the community sample's
// does: a null dereference.
void CreateTimerLeavingHandle(const SP_Device*, SP_Timer*, TF_Status* status) { SetOk(status); }
void IdleTimerCall(const SP_Device*, SP_Stream, SP_Timer, TF_Status* status) { SetOk(status); }
void DestroyUnsetTimer(const SP_Device*, SP_Timer) {}
uint64_t NanosecondsThroughHandle(SP_Timer timer) {
  return *reinterpret_cast<volatile uint64_t*>(timer);
}
void (*base_create_timer_fns_unset)(const SP_Platform*, SP_TimerFns*, TF_Status*) = nullptr;
void CreateTimerFnsDereferencing(const SP_Platform* platform, SP_TimerFns* timer_fns,
                                 TF_Status* status) {
  base_create_timer_fns_unset(platform, timer_fns, status);
  if (TF_GetCode(status) == TF_OK) timer_fns->nanoseconds = NanosecondsThroughHandle;
}
#endif

// ---- Timers ----------------------------------------------------------------

#if defined(FAULT_TIMER_MEASURES_ENQUEUE) || defined(FAULT_TIMER_IN_MICROSECONDS)
#define REPLACES_NANOSECONDS 1
uint64_t (*base_nanoseconds)(SP_Timer) = nullptr;
void (*base_create_timer_fns)(const SP_Platform*, SP_TimerFns*, TF_Status*) = nullptr;
uint64_t FaultyNanoseconds(SP_Timer timer);

void CreateFaultyTimerFns(const SP_Platform* platform, SP_TimerFns* timer_fns, TF_Status* status) {
  base_create_timer_fns(platform, timer_fns, status);
  if (TF_GetCode(status) != TF_OK) return;
  base_nanoseconds = timer_fns->nanoseconds;
  timer_fns->nanoseconds = FaultyNanoseconds;
}
#endif

#if defined(FAULT_TIMER_MEASURES_ENQUEUE)
using TimerFn = void (*)(const SP_Device*, SP_Stream, SP_Timer, TF_Status*);
TimerFn base_start_timer = nullptr;
TimerFn base_stop_timer = nullptr;

// When start_timer and stop_timer were called, not when the stream ran them.
struct EnqueueTimes {
  int64_t start_ns = 0;
  int64_t stop_ns = 0;
};
std::mutex enqueue_times_mutex;
std::map<SP_Timer, EnqueueTimes> enqueue_times;  // Guarded by enqueue_times_mutex.

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void StartTimerAtEnqueue(const SP_Device* device, SP_Stream stream, SP_Timer timer,
                         TF_Status* status) {
  {
    std::lock_guard lock(enqueue_times_mutex);
    enqueue_times[timer].start_ns = NowNs();
  }
  base_start_timer(device, stream, timer, status);
}

void StopTimerAtEnqueue(const SP_Device* device, SP_Stream stream, SP_Timer timer,
                        TF_Status* status) {
  {
    std::lock_guard lock(enqueue_times_mutex);
    enqueue_times[timer].stop_ns = NowNs();
  }
  base_stop_timer(device, stream, timer, status);
}

uint64_t FaultyNanoseconds(SP_Timer timer) {
  std::lock_guard lock(enqueue_times_mutex);
  const auto times = enqueue_times.find(timer);
  if (times == enqueue_times.end() || times->second.stop_ns <= times->second.start_ns) return 0;
  return static_cast<uint64_t>(times->second.stop_ns - times->second.start_ns);
}
#endif

#if defined(FAULT_TIMER_IN_MICROSECONDS)
uint64_t FaultyNanoseconds(SP_Timer timer) { return base_nanoseconds(timer) / 1000; }
#endif

// ---- Concurrency -----------------------------------------------------------

#if defined(FAULT_RACY_CONCURRENT_COPIES)
void (*base_memcpy_htod)(const SP_Device*, SP_Stream, SP_DeviceMemoryBase*, const void*, uint64_t,
                         TF_Status*) = nullptr;

// One staging buffer for every thread, unguarded: the fault.
constexpr size_t kStagingBytes = size_t{1} << 20;
unsigned char staging[kStagingBytes];

void MemcpyHtoDThroughSharedStaging(const SP_Device* device, SP_Stream stream,
                                    SP_DeviceMemoryBase* device_dst, const void* host_src,
                                    uint64_t size, TF_Status* status) {
  if (host_src == nullptr || size > kStagingBytes) {
    base_memcpy_htod(device, stream, device_dst, host_src, size, status);
    return;
  }
  std::memcpy(staging, host_src, size);
  // Wide enough that another thread's copy lands in the staging buffer
  // meanwhile, whenever two threads copy at once.
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  base_memcpy_htod(device, stream, device_dst, staging, size, status);
}
#endif

}  // namespace

void PlantRegistrationFault(SE_PlatformRegistrationParams* params, TF_Status* status) {
  (void)status;
#if defined(FAULT_TIMER_HANDLE_UNSET)
  base_create_timer_fns_unset = params->platform_fns->create_timer_fns;
  params->platform_fns->create_timer_fns = CreateTimerFnsDereferencing;
#endif
#if defined(REPLACES_NANOSECONDS)
  base_create_timer_fns = params->platform_fns->create_timer_fns;
  params->platform_fns->create_timer_fns = CreateFaultyTimerFns;
#endif
  (void)params;
}

void PlantStreamExecutorFault(SP_StreamExecutor* stream_executor) {
  HostCallbackFn* host_callback = HostCallbackSlot(stream_executor);
  base_host_callback = *host_callback;
#if defined(TRACKS_HOST_CALLBACKS)
  *host_callback = TrackedHostCallback;
  base_destroy_stream = stream_executor->destroy_stream;
  stream_executor->destroy_stream = ForgettingDestroyStream;
#endif

#if defined(FAULT_STREAM_OUT_OF_ORDER)
  base_memcpy_dtoh = stream_executor->memcpy_dtoh;
  stream_executor->memcpy_dtoh = MemcpyDtoHJumpingTheQueue;
#elif defined(FAULT_DEPENDENCY_IGNORED)
  stream_executor->create_stream_dependency = IgnoredStreamDependency;
#elif defined(FAULT_WAIT_FOR_EVENT_IGNORED)
  stream_executor->wait_for_event = IgnoredWaitForEvent;
#elif defined(FAULT_BLOCK_RETURNS_EARLY)
  base_block_host_until_done = stream_executor->block_host_until_done;
  stream_executor->block_host_until_done = BlockHostUntilDoneIgnoringCallbacks;
#elif defined(FAULT_SYNCHRONIZE_RETURNS_EARLY)
  base_synchronize_all_activity = stream_executor->synchronize_all_activity;
  stream_executor->synchronize_all_activity = SynchronizeIgnoringCallbacks;
#elif defined(FAULT_STREAM_STATUS_SPURIOUS_ERROR)
  base_get_stream_status = stream_executor->get_stream_status;
  stream_executor->get_stream_status = StatusFailingAfterCallbacks;
#elif defined(FAULT_EVENT_COMPLETE_EARLY)
  stream_executor->get_event_status = AlwaysComplete;
#elif defined(FAULT_EVENT_STATUS_UNKNOWN)
  base_get_event_status = stream_executor->get_event_status;
  stream_executor->get_event_status = UnknownWhilePending;
#elif defined(FAULT_EVENT_RERECORD_KEEPS_COMPLETE)
  base_get_event_status = stream_executor->get_event_status;
  stream_executor->get_event_status = CompleteForever;
  base_destroy_event = stream_executor->destroy_event;
  stream_executor->destroy_event = ForgettingDestroyEvent;
#elif defined(FAULT_BLOCK_FOR_EVENT_RETURNS_EARLY)
  base_block_host_for_event = stream_executor->block_host_for_event;
  stream_executor->block_host_for_event = BlockForEventIgnoringCallbacks;
#elif defined(FAULT_CALLBACK_NOT_ENQUEUED)
  *host_callback = RefusingHostCallback;
#elif defined(FAULT_CALLBACK_CALLED_TWICE)
  *host_callback = HostCallbackTwice;
#elif defined(FAULT_CALLBACK_NEVER_CALLED)
  *host_callback = ForgettingHostCallback;
#elif defined(FAULT_CALLBACK_BEFORE_EARLIER_WORK)
  *host_callback = HostCallbackJumpingTheQueue;
#elif defined(FAULT_CALLBACK_ERROR_DROPPED)
  *host_callback = HostCallbackDroppingErrors;
#elif defined(FAULT_BLOCK_IGNORES_TIMERS)
  base_stop_timer = stream_executor->stop_timer;
  stream_executor->stop_timer = StopTimerLate;
  base_block_host_until_done = stream_executor->block_host_until_done;
  stream_executor->block_host_until_done = BlockHostUntilDoneIgnoringTimers;
#elif defined(FAULT_TIMER_MEASURES_ENQUEUE)
  base_start_timer = stream_executor->start_timer;
  stream_executor->start_timer = StartTimerAtEnqueue;
  base_stop_timer = stream_executor->stop_timer;
  stream_executor->stop_timer = StopTimerAtEnqueue;
#elif defined(FAULT_RACY_CONCURRENT_COPIES)
  base_memcpy_htod = stream_executor->memcpy_htod;
  stream_executor->memcpy_htod = MemcpyHtoDThroughSharedStaging;
#elif defined(FAULT_EVENT_STATUS_ALWAYS_UNKNOWN)
  stream_executor->get_event_status = AlwaysUnknown;
#elif defined(FAULT_CREATE_STREAM_ABORTS)
  stream_executor->create_stream = AbortingCreateStream;
#elif defined(FAULT_TIMER_HANDLE_UNSET)
  stream_executor->create_timer = CreateTimerLeavingHandle;
  stream_executor->start_timer = IdleTimerCall;
  stream_executor->stop_timer = IdleTimerCall;
  stream_executor->destroy_timer = DestroyUnsetTimer;
#endif
#if defined(REFUSES_HOST_CALLBACKS)
  *host_callback = HostCallbackReturningTfOk;
#endif
}
