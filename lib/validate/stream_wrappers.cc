// Wrappers for streams, events, timers, synchronisation and host
// callbacks. Handles pass through unchanged; the layer only counts them.
// Host callbacks are the one exception: the plugin is given the layer's
// trampoline and a callback number instead of the host's function and
// context, so a second call is caught before it reaches TensorFlow's
// already-freed context.
#include <fmt/format.h>

#include "validate/forward.h"
#include "validate/wrapper_support.h"
#include "validate/wrappers.h"

namespace sectl::validate::wrappers {
namespace {

using abi::PluginFunction;

void RunCallback(void* argument, TF_Status* status);

// What the plugin calls in place of the host's callback. No exception of
// the layer's own goes into the plugin's code.
void CallbackTrampoline(void* argument, TF_Status* status) noexcept {
  try {
    RunCallback(argument, status);
  } catch (...) {
    Layer::Get().NoteOwnFailure();
  }
}

void RunCallback(void* argument, TF_Status* status) {
  const auto id = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(argument));
  Call call(PluginFunction::kHostCallback, nullptr, trace::RecordKind::kCallbackRan);
  call.record().callback = id;
  call.record().status = CodeOf(status);
  call.Number("callback", id);
  bool was_issued = false;
  const std::optional<PendingCallback> callback =
      call.layer().objects().CallbackRan(id, &was_issued);
  if (!callback) {
    call.Raise(FindingKind::kCallbackCalledTwice,
               was_issued ? fmt::format("host callback {} was called again after it had run; "
                                        "the second call was not passed on to the host",
                                        id)
                          : fmt::format("a host callback was called with an argument ({}) that "
                                        "was never handed to the plugin",
                                        argument));
    return;
  }
  call.record().stream = call.layer()
                             .objects()
                             .CheckHandle(HandleKind::kStream, callback->stream, callback->device)
                             .id;
  callback->function(callback->argument, status);
  // What the host's callback answered (its own failure, which the plugin
  // keeps as the stream's): a replay answers the same.
  call.record().result = CodeOf(status);
}

}  // namespace

void CreateStream(const SP_Device* device, SP_Stream* stream, TF_Status* status) {
  Call call(PluginFunction::kCreateStream, device);
  Forward<&SP_StreamExecutor::create_stream>(call, device, stream, status);
  call.record().status = CodeOf(status);
  call.record().created =
      NoteCreatedHandle(call, HandleKind::kStream, stream != nullptr ? *stream : nullptr, status);
}

void DestroyStream(const SP_Device* device, SP_Stream stream) {
  Call call(PluginFunction::kDestroyStream, device);
  const Release release = NoteDestroyedHandle(call, HandleKind::kStream, "stream", stream);
  call.record().stream = release.id;
  if (release.forward) Forward<&SP_StreamExecutor::destroy_stream>(call, device, stream);
}

void CreateStreamDependency(const SP_Device* device, SP_Stream dependent, SP_Stream other,
                            TF_Status* status) {
  Call call(PluginFunction::kCreateStreamDependency, device);
  const OrderedCallIds ids = CheckOrderedCall(call, dependent, HandleKind::kStream, "other", other);
  call.record().stream = ids.stream;
  call.record().other_stream = ids.other;
  Forward<&SP_StreamExecutor::create_stream_dependency>(call, device, dependent, other, status);
  FinishOrderedCall(call, dependent, status);
}

void GetStreamStatus(const SP_Device* device, SP_Stream stream, TF_Status* status) {
  Call call(PluginFunction::kGetStreamStatus, device);
  call.record().stream = CheckHandleArgument(call, HandleKind::kStream, "stream", stream);
  Forward<&SP_StreamExecutor::get_stream_status>(call, device, stream, status);
  call.record().status = CodeOf(status);
}

void CreateEvent(const SP_Device* device, SP_Event* event, TF_Status* status) {
  Call call(PluginFunction::kCreateEvent, device);
  Forward<&SP_StreamExecutor::create_event>(call, device, event, status);
  call.record().status = CodeOf(status);
  call.record().created =
      NoteCreatedHandle(call, HandleKind::kEvent, event != nullptr ? *event : nullptr, status);
}

void DestroyEvent(const SP_Device* device, SP_Event event) {
  Call call(PluginFunction::kDestroyEvent, device);
  const Release release = NoteDestroyedHandle(call, HandleKind::kEvent, "event", event);
  call.record().event = release.id;
  if (release.forward) Forward<&SP_StreamExecutor::destroy_event>(call, device, event);
}

SE_EventStatus GetEventStatus(const SP_Device* device, SP_Event event) {
  Call call(PluginFunction::kGetEventStatus, device);
  call.record().event = CheckHandleArgument(call, HandleKind::kEvent, "event", event);
  // Taken as an integer straight from the call: a value outside the enum,
  // the very defect checked here, must never be read as an SE_EventStatus.
  const auto value =
      static_cast<int64_t>(Forward<&SP_StreamExecutor::get_event_status>(call, device, event));
  call.record().result = value;
  if (value < SE_EVENT_UNKNOWN || value > SE_EVENT_COMPLETE) {
    call.Raise(
        FindingKind::kEventStatusOutOfRange,
        fmt::format("get_event_status returned {}, which is no SE_EventStatus (0-3)", value));
  } else if (value == SE_EVENT_COMPLETE) {
    call.layer().objects().NoteEventComplete(event);
  }
  return static_cast<SE_EventStatus>(value);
}

void RecordEvent(const SP_Device* device, SP_Stream stream, SP_Event event, TF_Status* status) {
  Call call(PluginFunction::kRecordEvent, device);
  const OrderedCallIds ids = CheckOrderedCall(call, stream, HandleKind::kEvent, "event", event);
  call.record().stream = ids.stream;
  call.record().event = ids.other;
  Forward<&SP_StreamExecutor::record_event>(call, device, stream, event, status);
  FinishOrderedCall(call, stream, status);
  if (!call.withheld() && CodeOf(status) == TF_OK) {
    call.layer().objects().NoteEventRecorded(event, stream);
  }
}

void WaitForEvent(const SP_Device* device, SP_Stream stream, SP_Event event, TF_Status* status) {
  Call call(PluginFunction::kWaitForEvent, device);
  const OrderedCallIds ids = CheckOrderedCall(call, stream, HandleKind::kEvent, "event", event);
  call.record().stream = ids.stream;
  call.record().event = ids.other;
  Forward<&SP_StreamExecutor::wait_for_event>(call, device, stream, event, status);
  FinishOrderedCall(call, stream, status);
}

void CreateTimer(const SP_Device* device, SP_Timer* timer, TF_Status* status) {
  Call call(PluginFunction::kCreateTimer, device);
  Forward<&SP_StreamExecutor::create_timer>(call, device, timer, status);
  call.record().status = CodeOf(status);
  call.record().created =
      NoteCreatedHandle(call, HandleKind::kTimer, timer != nullptr ? *timer : nullptr, status);
}

void DestroyTimer(const SP_Device* device, SP_Timer timer) {
  Call call(PluginFunction::kDestroyTimer, device);
  const Release release = NoteDestroyedHandle(call, HandleKind::kTimer, "timer", timer);
  call.record().timer = release.id;
  if (release.forward) Forward<&SP_StreamExecutor::destroy_timer>(call, device, timer);
}

void StartTimer(const SP_Device* device, SP_Stream stream, SP_Timer timer, TF_Status* status) {
  Call call(PluginFunction::kStartTimer, device);
  const OrderedCallIds ids = CheckOrderedCall(call, stream, HandleKind::kTimer, "timer", timer);
  call.record().stream = ids.stream;
  call.record().timer = ids.other;
  Forward<&SP_StreamExecutor::start_timer>(call, device, stream, timer, status);
  FinishOrderedCall(call, stream, status);
}

void StopTimer(const SP_Device* device, SP_Stream stream, SP_Timer timer, TF_Status* status) {
  Call call(PluginFunction::kStopTimer, device);
  const OrderedCallIds ids = CheckOrderedCall(call, stream, HandleKind::kTimer, "timer", timer);
  call.record().stream = ids.stream;
  call.record().timer = ids.other;
  Forward<&SP_StreamExecutor::stop_timer>(call, device, stream, timer, status);
  FinishOrderedCall(call, stream, status);
}

uint64_t Nanoseconds(SP_Timer timer) {
  // The one function without a device: any device's timer is accepted.
  Call call(PluginFunction::kNanoseconds, nullptr);
  call.record().timer = CheckHandleArgument(call, HandleKind::kTimer, "timer", timer);
  const uint64_t nanoseconds = Forward<&SP_TimerFns::nanoseconds>(call, timer);
  call.record().result = static_cast<int64_t>(nanoseconds);
  return nanoseconds;
}

void BlockHostForEvent(const SP_Device* device, SP_Event event, TF_Status* status) {
  Call call(PluginFunction::kBlockHostForEvent, device);
  call.record().event = CheckHandleArgument(call, HandleKind::kEvent, "event", event);
  Forward<&SP_StreamExecutor::block_host_for_event>(call, device, event, status);
  call.record().status = CodeOf(status);
  if (CodeOf(status) == TF_OK) call.layer().objects().NoteEventComplete(event);
}

void BlockHostUntilDone(const SP_Device* device, SP_Stream stream, TF_Status* status) {
  Call call(PluginFunction::kBlockHostUntilDone, device);
  call.record().stream = CheckHandleArgument(call, HandleKind::kStream, "stream", stream);
  Forward<&SP_StreamExecutor::block_host_until_done>(call, device, stream, status);
  call.record().status = CodeOf(status);
  if (CodeOf(status) != TF_OK || stream == nullptr) return;
  CheckCallbacksRanBy(call, stream);
  call.layer().objects().NoteStreamSynchronised(stream);
}

void SynchronizeAllActivity(const SP_Device* device, TF_Status* status) {
  Call call(PluginFunction::kSynchronizeAllActivity, device);
  Forward<&SP_StreamExecutor::synchronize_all_activity>(call, device, status);
  call.record().status = CodeOf(status);
  if (CodeOf(status) != TF_OK) return;
  CheckCallbacksRanBy(call, nullptr);
  call.layer().objects().NoteDeviceSynchronised(call.device());
}

TF_Bool HostCallback(const SP_Device* device, SP_Stream stream, SE_StatusCallbackFn callback_fn,
                     void* callback_arg) {
  Call call(PluginFunction::kHostCallback, device);
  call.record().stream = CheckOrderedCall(call, stream).stream;
  PendingCallback pending;
  pending.function = callback_fn;
  pending.argument = callback_arg;
  pending.stream = stream;
  pending.device = call.device();
  pending.stream_id = call.record().stream;
  pending.sequence = call.sequence();
  ObjectTracker& objects = call.layer().objects();
  // Registered before the plugin sees it: a plugin may run it at once.
  const uint32_t id = objects.CallbackEnqueued(pending);
  call.record().callback = id;
  // The callback's number travels as its argument; the trampoline reads it back.
  // NOLINTNEXTLINE(performance-no-int-to-ptr)
  void* const argument = reinterpret_cast<void*>(static_cast<uintptr_t>(id));
  const TF_Bool enqueued = Forward<&SP_StreamExecutor::host_callback>(
      call, device, stream, &CallbackTrampoline, argument);
  call.record().result = enqueued;
  if (enqueued) {
    objects.CallbackEnqueueReturned(id, call.layer().LastSequence());
  } else {
    objects.EnqueueFailed(stream);
    objects.CallbackNotEnqueued(id);  // "not enqueued": the host will not wait for it
  }
  return enqueued;
}

}  // namespace sectl::validate::wrappers
