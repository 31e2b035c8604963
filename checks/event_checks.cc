// Events: the status TensorFlow's EventMgr polls to know when a stream has
// reached a point, and block_host_for_event, its way of waiting for one.
//
// A synchronous plugin's events are COMPLETE as soon as they are recorded,
// which is legal. So no check concludes "early" from timing: the stream is
// kept busy by a host callback that sleeps, and only an event recorded after
// that callback seen COMPLETE while the callback has not finished is early.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "conform/check.h"
#include "conform/check_support.h"
#include "host/event.h"
#include "host/stream.h"

namespace sectl::checks {
namespace {

using conform::SkipUnlessProvided;
using conform::WaitUntil;

using namespace std::chrono_literals;
using abi::PluginFunction;

// How long a check waits for something a correct plugin does at once.
constexpr auto kPatience = 3s;
// How long a "slow" host callback sleeps: the window in which an event that
// completes early, or a wait that returns early, is seen doing so.
constexpr auto kSlowCallback = 50ms;

// The checks here keep streams busy with host callbacks. A plugin whose
// callbacks cannot be enqueued or never run is reported by the callback
// checks; these skip rather than report it twice.
void EnqueueProbe(conform::CheckContext& check, host::Stream& stream,
                  std::function<void(TF_Status*)> body) {
  auto enqueued = stream.EnqueueHostCallback(std::move(body));
  if (!enqueued) {
    check.Skip(fmt::format(
        "this check keeps the stream busy with a host callback, and {} (callback.enqueued "
        "reports it)",
        enqueued.error().message()));
  }
}

[[noreturn]] void SkipForSilentCallbacks(conform::CheckContext& check) {
  check.Skip(
      fmt::format("this check keeps the stream busy with a host callback, and none ran within {} s "
                  "(callback.called_once reports it)",
                  std::chrono::seconds(kPatience).count()));
}

// A flag a host callback raises; shared, so that a callback the plugin runs
// late never touches a check's dead stack.
using Flag = std::shared_ptr<std::atomic<bool>>;
Flag NewFlag() { return std::make_shared<std::atomic<bool>>(false); }

// Enqueues a host callback that sleeps kSlowCallback, then raises `finished`.
void EnqueueSlowCallback(conform::CheckContext& check, host::Stream& stream, const Flag& finished) {
  EnqueueProbe(check, stream, [finished](TF_Status*) {
    std::this_thread::sleep_for(kSlowCallback);
    finished->store(true);
  });
}

// Waits until `finished` is raised; skips the check if it never is.
void AwaitCallback(conform::CheckContext& check, const Flag& finished) {
  if (!WaitUntil([&] { return finished->load(); }, kPatience)) SkipForSilentCallbacks(check);
}

// Waits until `stream` has run everything enqueued so far, by two means so
// that an event check never hinges on an event: a host callback enqueued
// last, then block_host_until_done (or TensorFlow's fallback).
void FinishStream(conform::CheckContext& check, host::Stream& stream) {
  const Flag finished = NewFlag();
  EnqueueProbe(check, stream, [finished](TF_Status*) { finished->store(true); });
  AwaitCallback(check, finished);
  (void)stream.BlockHostUntilDone();
}

std::string StatusName(SE_EventStatus status) {
  switch (status) {
    case SE_EVENT_UNKNOWN:
      return "UNKNOWN";
    case SE_EVENT_ERROR:
      return "ERROR";
    case SE_EVENT_PENDING:
      return "PENDING";
    case SE_EVENT_COMPLETE:
      return "COMPLETE";
  }
  return fmt::format("{} (no SE_EventStatus)", static_cast<int>(status));
}

// What an event went through: its status while a host callback enqueued
// before its record was still running, then each change of status once the
// stream had run past the record, up to COMPLETE, and a few polls after that.
struct EventHistory {
  SE_EventStatus while_busy = SE_EVENT_UNKNOWN;
  bool busy_when_seen = false;  // the callback had really not finished
  std::vector<SE_EventStatus> after_reached;
  bool completed = false;

  // Whether the plugin said COMPLETE before the stream could have got there.
  bool completed_early() const { return while_busy == SE_EVENT_COMPLETE && busy_when_seen; }

  // The first status after COMPLETE that is not COMPLETE, if any.
  std::optional<SE_EventStatus> relapse() const {
    const auto complete = std::find(after_reached.begin(), after_reached.end(), SE_EVENT_COMPLETE);
    const auto other = std::find_if(complete, after_reached.end(), [](SE_EventStatus status) {
      return status != SE_EVENT_COMPLETE;
    });
    if (other == after_reached.end()) return std::nullopt;
    return *other;
  }

  nlohmann::json ToJson() const {
    nlohmann::json polled = nlohmann::json::array();
    for (SE_EventStatus status : after_reached) polled.push_back(StatusName(status));
    return {{"while_an_earlier_callback_ran", StatusName(while_busy)},
            {"callback_still_running_then", busy_when_seen},
            {"after_the_stream_passed_the_record", polled}};
  }
};

// Records `event` on `stream` behind a slow host callback and follows its status.
EventHistory FollowRecord(conform::CheckContext& check, host::Stream& stream,
                          const host::Event& event) {
  constexpr int kPollsAfterComplete = 3;
  const auto poll = [&] { return check.Require(event.Status(), "get_event_status"); };
  EventHistory history;
  const Flag finished = NewFlag();
  EnqueueSlowCallback(check, stream, finished);
  check.Require(stream.RecordEvent(event), "record_event");
  history.while_busy = poll();
  history.busy_when_seen = !finished->load();

  FinishStream(check, stream);
  const auto deadline = std::chrono::steady_clock::now() + kPatience;
  history.after_reached.push_back(poll());
  while (history.after_reached.back() != SE_EVENT_COMPLETE &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(200us);
    const SE_EventStatus status = poll();
    if (status != history.after_reached.back()) history.after_reached.push_back(status);
  }
  history.completed = history.after_reached.back() == SE_EVENT_COMPLETE;
  for (int i = 0; history.completed && i < kPollsAfterComplete; ++i) {
    std::this_thread::sleep_for(200us);
    history.after_reached.push_back(poll());
  }
  return history;
}

}  // namespace

SECTL_CHECK("event.completes_when_reached", kRequired,
            "An event becomes COMPLETE when its stream reaches the record, not before, and "
            "stays COMPLETE") {
  SkipUnlessProvided(check, {PluginFunction::kCreateStream, PluginFunction::kCreateEvent,
                             PluginFunction::kRecordEvent, PluginFunction::kGetEventStatus});
  const host::Device& device = check.device();
  // The event outlives the stream, which is drained as it is destroyed.
  auto event = check.Require(device.CreateEvent(), "create_event");
  auto stream = check.Require(device.CreateStream(), "create_stream");
  const EventHistory history = FollowRecord(check, *stream, *event);
  check.details() = history.ToJson();
  check.Expect(!history.completed_early(),
               "get_event_status reported COMPLETE while a host callback enqueued before the "
               "record was still running: the event completed before its stream reached it. "
               "TensorFlow's EventMgr would free tensors and run completion callbacks while the "
               "stream still uses them");
  if (!history.completed) {
    check.Fail(fmt::format(
        "get_event_status still reported {} {} s after the stream had run past the record. "
        "TensorFlow's EventMgr polls until COMPLETE, so everything waiting on the event (freeing "
        "tensors, finishing copies) hangs",
        StatusName(history.after_reached.back()), std::chrono::seconds(kPatience).count()));
    return;
  }
  if (const auto relapse = history.relapse()) {
    check.Fail(
        fmt::format("get_event_status went from COMPLETE back to {} without the event "
                    "being recorded again. TensorFlow may poll an event more than once "
                    "and expects it to stay COMPLETE",
                    StatusName(*relapse)));
  }
}

SECTL_CHECK("event.status_values", kRequired,
            "get_event_status answers only PENDING or COMPLETE for a healthy event") {
  SkipUnlessProvided(check, {PluginFunction::kCreateStream, PluginFunction::kCreateEvent,
                             PluginFunction::kRecordEvent, PluginFunction::kGetEventStatus});
  const host::Device& device = check.device();
  // The event outlives the stream, which is drained as it is destroyed.
  auto event = check.Require(device.CreateEvent(), "create_event");
  auto stream = check.Require(device.CreateStream(), "create_stream");
  const EventHistory history = FollowRecord(check, *stream, *event);
  check.details() = history.ToJson();
  const auto is_defined_answer = [](SE_EventStatus status) {
    return status == SE_EVENT_PENDING || status == SE_EVENT_COMPLETE;
  };
  constexpr std::string_view kConsequence =
      "TensorFlow's EventMgr aborts the process on anything but PENDING or COMPLETE "
      "(\"Unexpected Event status\")";
  if (!is_defined_answer(history.while_busy)) {
    check.Fail(
        fmt::format("get_event_status answered {} for an event whose stream had not "
                    "reached the record yet (PENDING was due). {}",
                    StatusName(history.while_busy), kConsequence));
  }
  for (SE_EventStatus status : history.after_reached) {
    if (is_defined_answer(status)) continue;
    check.Fail(
        fmt::format("get_event_status answered {} for an event recorded on a healthy "
                    "stream. {}",
                    StatusName(status), kConsequence));
    break;
  }
}

SECTL_CHECK("event.rerecord_resets", kRequired,
            "Recording a COMPLETE event again makes it wait for the new record") {
  SkipUnlessProvided(check, {PluginFunction::kCreateStream, PluginFunction::kCreateEvent,
                             PluginFunction::kRecordEvent, PluginFunction::kGetEventStatus});
  const host::Device& device = check.device();
  // The event outlives the stream, which is drained as it is destroyed.
  auto event = check.Require(device.CreateEvent(), "create_event");
  auto stream = check.Require(device.CreateStream(), "create_stream");
  const EventHistory first = FollowRecord(check, *stream, *event);
  if (first.completed_early() || !first.completed) {
    check.Skip(
        "the event's first record already went wrong (event.completes_when_reached reports it), "
        "so a reset cannot be told apart");
  }
  const EventHistory second = FollowRecord(check, *stream, *event);
  check.details() = {{"first_record", first.ToJson()}, {"second_record", second.ToJson()}};
  check.Expect(!second.completed_early(),
               "an event recorded again after it was COMPLETE still reported COMPLETE while a "
               "host callback enqueued before the new record was running: re-recording did not "
               "reset it. TensorFlow reuses events from a pool (EventMgr), so the next user of "
               "the event would go ahead before its stream got there");
}

SECTL_CHECK("event.block_host_for_event", kRequired,
            "block_host_for_event returns only after the stream has reached the event") {
  SkipUnlessProvided(check, {PluginFunction::kCreateStream, PluginFunction::kCreateEvent,
                             PluginFunction::kRecordEvent, PluginFunction::kBlockHostForEvent});
  const host::Device& device = check.device();
  // The event outlives the stream, which is drained as it is destroyed.
  auto event = check.Require(device.CreateEvent(), "create_event");
  auto stream = check.Require(device.CreateStream(), "create_stream");
  const Flag finished = NewFlag();
  EnqueueSlowCallback(check, *stream, finished);
  check.Require(stream->RecordEvent(*event), "record_event");
  check.Require(event->BlockHost(), "block_host_for_event");
  if (finished->load()) return;
  AwaitCallback(check, finished);
  check.Fail(fmt::format(
      "block_host_for_event returned while a host callback enqueued before the record (sleeping "
      "{} ms) had not finished. TensorFlow blocks on an event to wait for a stream; without "
      "block_host_until_done this is how it waits for every stream, including before destroying "
      "one",
      std::chrono::milliseconds(kSlowCallback).count()));
}

}  // namespace sectl::checks
