// Events: the status TensorFlow's EventMgr polls to know when a stream has
// reached a point, and block_host_for_event, its way of waiting for one.
//
// A synchronous plugin's events are COMPLETE as soon as they are recorded,
// which is legal. So no check concludes "early" from timing: the stream is
// kept busy (conform::BusyWork: a host callback that sleeps or, where
// host_callback is broken, a long copy whose bytes the host watches arrive),
// and only an event recorded after that work seen COMPLETE while the work
// has not finished is early. No check here needs host_callback to work, so a
// plugin whose callbacks are broken still has its events checked.
//
// Where neither route works either (host_callback and allocate or the
// copies broken), the event is recorded on an idle stream: record, poll,
// block. What is wrong there (UNKNOWN, never COMPLETE, a crash) is still
// reported; a check whose every property an idle stream cannot show is then
// blocked by the function that ruled the busy work out.
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

#include "abi/event_status.h"
#include "conform/check.h"
#include "conform/check_support.h"
#include "host/event.h"
#include "host/stream.h"

namespace sectl::checks {
namespace {

using conform::SkipUnlessProvided;

using namespace std::chrono_literals;
using abi::PluginFunction;

// How long a check waits for something a correct plugin does at once.
constexpr auto kPatience = 3s;
// How long a "slow" host callback sleeps: the window in which an event that
// completes early, or a wait that returns early, is seen doing so.
constexpr auto kSlowCallback = 50ms;

// Waits until the stream has got past `busy`, by two means so that an event
// check never hinges on an event: the busy work itself, then
// block_host_until_done (or TensorFlow's fallback). The copy route is waited
// for first, as a plugin may run copies only when asked to wait.
void FinishStream(conform::CheckContext& check, host::Stream& stream,
                  const conform::BusyWork& busy) {
  if (busy.route() == conform::BusyWork::Route::kCopy) (void)conform::WaitForStream(check, stream);
  if (!busy.Await(kPatience)) {
    check.Blocked(busy.StalledFunction(),
                  fmt::format("this check keeps the stream busy with {}, which had not finished "
                              "{} s later",
                              busy.Describe(), std::chrono::seconds(kPatience).count()));
  }
  (void)conform::WaitForStream(check, stream);
}

// When get_event_status answered, for what it may answer then.
enum class Moment {
  kBehindBusyWork,         // recorded behind work still running: PENDING is due
  kJustRecordedWhileIdle,  // recorded on an idle stream, polled at once
  kStreamPastTheRecord,    // the stream has run past the record
};

// What an event went through: its status while a host callback enqueued
// before its record was still running (or just after its record on an
// idle stream), then each change of status once the stream had run past the
// record, up to COMPLETE, and a few polls after that.
struct EventHistory {
  SE_EventStatus while_busy = SE_EVENT_UNKNOWN;
  bool busy_when_seen = false;              // the busy work had really not finished
  std::string busy_work;                    // what kept the stream busy
  std::optional<conform::IdleStream> idle;  // set where nothing could keep it busy
  std::vector<SE_EventStatus> after_reached;
  bool completed = false;

  // Whether get_event_status answered anything but PENDING or COMPLETE.
  bool answered_undefined() const {
    const auto undefined = [](SE_EventStatus status) {
      return status != SE_EVENT_PENDING && status != SE_EVENT_COMPLETE;
    };
    return undefined(while_busy) ||
           std::any_of(after_reached.begin(), after_reached.end(), undefined);
  }

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
    for (SE_EventStatus status : after_reached) polled.push_back(abi::EventStatusName(status));
    return {{"kept_busy_by", busy_work},
            {idle ? "just_after_the_record" : "while_earlier_work_ran",
             abi::EventStatusName(while_busy)},
            {"earlier_work_still_running_then", busy_when_seen},
            {"after_the_stream_passed_the_record", polled}};
  }
};

// Sees each answer of get_event_status as it comes, so that a check records
// what it observed before anything later can stop it.
using AnswerSeen = std::function<void(SE_EventStatus, Moment)>;

// Records `event` on `stream` behind busy work (or on an idle stream, where
// no busy work is possible) and follows its status.
EventHistory FollowRecord(conform::CheckContext& check, host::Stream& stream,
                          const host::Event& event, const AnswerSeen& seen = {}) {
  constexpr int kPollsAfterComplete = 3;
  const auto poll = [&](Moment moment) {
    const SE_EventStatus status = check.Require(event.Status(), "get_event_status");
    if (seen) seen(status, moment);
    return status;
  };
  EventHistory history;
  {
    const conform::BusyWork busy(check, stream, kSlowCallback,
                                 conform::BusyWork::WithoutRoute::kLeaveIdle);
    history.busy_work = busy.Describe();
    if (busy.route() == conform::BusyWork::Route::kIdle) history.idle = busy.Idle();
    check.Require(stream.RecordEvent(event), "record_event");
    history.while_busy =
        poll(history.idle ? Moment::kJustRecordedWhileIdle : Moment::kBehindBusyWork);
    history.busy_when_seen = !busy.finished();
    FinishStream(check, stream, busy);
  }
  // Briefly where get_event_status was seen not to reach COMPLETE before
  // the checks: this confirms it rather than waiting the whole time again.
  const auto deadline =
      std::chrono::steady_clock::now() + check.Patience(PluginFunction::kGetEventStatus, kPatience);
  history.after_reached.push_back(poll(Moment::kStreamPastTheRecord));
  while (history.after_reached.back() != SE_EVENT_COMPLETE &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(200us);
    const SE_EventStatus status = poll(Moment::kStreamPastTheRecord);
    if (status != history.after_reached.back()) history.after_reached.push_back(status);
  }
  history.completed = history.after_reached.back() == SE_EVENT_COMPLETE;
  for (int i = 0; history.completed && i < kPollsAfterComplete; ++i) {
    std::this_thread::sleep_for(200us);
    history.after_reached.push_back(poll(Moment::kStreamPastTheRecord));
  }
  return history;
}

bool IsDefinedAnswer(SE_EventStatus status) {
  return status == SE_EVENT_PENDING || status == SE_EVENT_COMPLETE;
}

// "for an event whose stream had not reached the record yet (PENDING was due)"
std::string ForWhichEvent(Moment moment) {
  switch (moment) {
    case Moment::kBehindBusyWork:
      return "for an event whose stream had not reached the record yet (PENDING was due)";
    case Moment::kJustRecordedWhileIdle:
      return "for an event just recorded on an idle stream";
    case Moment::kStreamPastTheRecord:
      return "for an event recorded on a healthy stream";
  }
  return {};
}

// How long a check waited for COMPLETE, as its message says it.
std::string WaitedFor(conform::CheckContext& check) {
  const auto waited = check.Patience(PluginFunction::kGetEventStatus, kPatience);
  return fmt::format("{} ms{}", waited.count(),
                     check.AsLearnedBeforeChecks(PluginFunction::kGetEventStatus));
}

}  // namespace

SECTL_CHECK("event.completes_when_reached", kRequired,
            "An event becomes COMPLETE when its stream reaches the record, not before, and "
            "stays COMPLETE",
            .tests = {kCreateEvent, kRecordEvent, kGetEventStatus},
            .severity_reason =
                "TensorFlow 2.5 and later poll events in EventMgr to free tensors "
                "and run completions after copies: an early COMPLETE frees memory "
                "still in use, one never COMPLETE hangs TensorFlow",
            .establishes =
                "an event recorded behind work that keeps the stream busy (a host callback that "
                "sleeps 50 ms, or a long copy whose bytes the host watches arrive) is never "
                "COMPLETE while that work runs, is COMPLETE within 3 s after the stream has run "
                "past it, and stays COMPLETE",
            .common_mistakes =
                "Answering COMPLETE from the moment of the record: the community sample and the "
                "DirectML plugin always answer COMPLETE (with a no-op `create_event`), which is "
                "right only if everything enqueued before has finished by the time "
                "`record_event` returns. An event that never becomes COMPLETE.",
            .how_to_fix =
                "Make `record_event` put a marker in the stream's queue, and answer COMPLETE "
                "only once the stream has run past it (a driver event, or a flag the stream's "
                "worker sets).",
            .proven_by = "`EVENT_COMPLETE_EARLY`") {
  SkipUnlessProvided(check, {PluginFunction::kCreateStream, PluginFunction::kCreateEvent,
                             PluginFunction::kRecordEvent, PluginFunction::kGetEventStatus});
  const host::Device& device = check.device();
  // The event outlives the stream, which is drained as it is destroyed.
  auto event = check.Require(device.CreateEvent(), "create_event");
  auto stream = check.Require(device.CreateStream(), "create_stream");
  // An answer that is neither PENDING nor COMPLETE means the event never
  // says it completed: reported as it is seen.
  std::optional<SE_EventStatus> undefined;
  const EventHistory history =
      FollowRecord(check, *stream, *event, [&](SE_EventStatus status, Moment moment) {
        if (undefined || IsDefinedAnswer(status)) return;
        undefined = status;
        check.FailIn(PluginFunction::kGetEventStatus,
                     fmt::format("get_event_status answered {} {}, neither PENDING nor COMPLETE, "
                                 "so the event never says it completed. TensorFlow's EventMgr "
                                 "aborts the process on such an answer",
                                 abi::EventStatusName(status), ForWhichEvent(moment)));
      });
  check.details() = history.ToJson();
  if (undefined) return;
  if (history.completed_early()) {
    check.FailIn(PluginFunction::kGetEventStatus,
                 "get_event_status reported COMPLETE while work enqueued before the record (" +
                     history.busy_work +
                     ") was still running: the event completed before its stream reached it. "
                     "TensorFlow's EventMgr would free tensors and run completion callbacks "
                     "while the stream still uses them");
  }
  if (!history.completed) {
    check.FailIn(PluginFunction::kGetEventStatus,
                 fmt::format("get_event_status still reported {} {} after the stream had run "
                             "past the record. TensorFlow's EventMgr polls until COMPLETE, so "
                             "everything waiting on the event (freeing tensors, finishing "
                             "copies) hangs",
                             abi::EventStatusName(history.after_reached.back()), WaitedFor(check)));
    return;
  }
  if (const auto relapse = history.relapse()) {
    check.FailIn(PluginFunction::kGetEventStatus,
                 fmt::format("get_event_status went from COMPLETE back to {} without the event "
                             "being recorded again. TensorFlow may poll an event more than once "
                             "and expects it to stay COMPLETE",
                             abi::EventStatusName(*relapse)));
    return;
  }
  if (history.idle && !history.completed_early()) {
    conform::BlockBecauseIdle(check, *history.idle,
                              "on an idle stream the event became COMPLETE and stayed so",
                              "telling whether it completes before its stream reaches it");
  }
}

SECTL_CHECK("event.status_values", kRequired,
            "get_event_status answers only PENDING or COMPLETE for a healthy event",
            .tests = {kGetEventStatus},
            .severity_reason =
                "TensorFlow 2.5 and later poll get_event_status in EventMgr, which "
                "aborts the process on UNKNOWN or ERROR (\"Unexpected Event "
                "status\")",
            .establishes =
                "`get_event_status` answers PENDING while the stream has not reached the record, "
                "and only PENDING or COMPLETE after it, for an event on a healthy stream",
            .common_mistakes =
                "Answering UNKNOWN whatever the event went through: TensorFlow's own test plugin "
                "does, and TensorFlow's EventMgr aborts on it. Answering ERROR for an event that "
                "is merely not reached yet.",
            .how_to_fix =
                "Answer PENDING until the stream reaches the record and COMPLETE from then on; "
                "keep ERROR for an event whose stream failed.",
            .proven_by =
                "`EVENT_STATUS_UNKNOWN`, `EVENT_STATUS_ALWAYS_UNKNOWN` (with a broken "
                "host_callback)") {
  SkipUnlessProvided(check, {PluginFunction::kCreateStream, PluginFunction::kCreateEvent,
                             PluginFunction::kRecordEvent, PluginFunction::kGetEventStatus});
  const host::Device& device = check.device();
  // The event outlives the stream, which is drained as it is destroyed.
  auto event = check.Require(device.CreateEvent(), "create_event");
  auto stream = check.Require(device.CreateStream(), "create_stream");
  constexpr std::string_view kConsequence =
      "TensorFlow's EventMgr aborts the process on anything but PENDING or COMPLETE "
      "(\"Unexpected Event status\")";
  // Each wrong answer is reported as it is seen (once before and once after
  // the stream passes the record), whatever stops the check later.
  bool wrong_before = false;
  bool wrong_after = false;
  const EventHistory history =
      FollowRecord(check, *stream, *event, [&](SE_EventStatus status, Moment moment) {
        // On an idle stream the record is reached at once: one moment.
        bool& reported = moment == Moment::kBehindBusyWork ? wrong_before : wrong_after;
        if (reported || IsDefinedAnswer(status)) return;
        reported = true;
        check.Fail(fmt::format("get_event_status answered {} {}. {}", abi::EventStatusName(status),
                               ForWhichEvent(moment), kConsequence));
      });
  check.details() = history.ToJson();
  if (history.idle && !wrong_before && !wrong_after) {
    conform::BlockBecauseIdle(check, *history.idle,
                              "get_event_status answered only PENDING or COMPLETE for an event "
                              "recorded on an idle stream",
                              "seeing what it answers before the stream reaches the record");
  }
}

SECTL_CHECK(
    "event.rerecord_resets", kRequired,
    "Recording a COMPLETE event again makes it wait for the new record", .tests = {kRecordEvent},
    .severity_reason =
        "TensorFlow 2.5 and later reuse events from EventMgr's pool: an "
        "event that stays COMPLETE lets the next user go ahead before its "
        "stream got there",
    .establishes =
        "an event that was COMPLETE, recorded again behind new busy work, is not "
        "COMPLETE while that work runs",
    .common_mistakes =
        "A \"completed\" flag set once and never cleared, so an event stays COMPLETE "
        "once seen so (the faulty plugin).",
    .how_to_fix = "Reset the event in `record_event`: its status refers to its newest record only.",
    .proven_by = "`EVENT_RERECORD_KEEPS_COMPLETE`") {
  SkipUnlessProvided(check, {PluginFunction::kCreateStream, PluginFunction::kCreateEvent,
                             PluginFunction::kRecordEvent, PluginFunction::kGetEventStatus});
  const host::Device& device = check.device();
  // The event outlives the stream, which is drained as it is destroyed.
  auto event = check.Require(device.CreateEvent(), "create_event");
  auto stream = check.Require(device.CreateStream(), "create_stream");
  const EventHistory first = FollowRecord(check, *stream, *event);
  if (first.idle) {
    conform::BlockBecauseIdle(check, *first.idle, "the event was recorded on an idle stream",
                              "telling whether a second record resets it");
  }
  if (first.completed_early() || !first.completed) {
    // get_event_status's defect, which event.completes_when_reached reports.
    check.Blocked(PluginFunction::kGetEventStatus,
                  fmt::format("the event's first record already went wrong (it was {}, kept "
                              "busy by {}), so a reset cannot be told apart",
                              first.completed_early() ? "COMPLETE while the work before it ran"
                                                      : "never COMPLETE",
                              first.busy_work));
  }
  const EventHistory second = FollowRecord(check, *stream, *event);
  check.details() = {{"first_record", first.ToJson()}, {"second_record", second.ToJson()}};
  check.Expect(!second.completed_early(),
               "an event recorded again after it was COMPLETE still reported COMPLETE while work "
               "enqueued before the new record (" +
                   second.busy_work +
                   ") was running: re-recording did not "
                   "reset it. TensorFlow reuses events from a pool (EventMgr), so the next user of "
                   "the event would go ahead before its stream got there");
}

SECTL_CHECK("event.block_host_for_event", kRequired,
            "block_host_for_event returns only after the stream has reached the event",
            .tests = {kBlockHostForEvent},
            .severity_reason =
                "TensorFlow 2.5 and later block on an event to wait for a stream, "
                "and for every stream before destroying it when the plugin has no "
                "block_host_until_done: returning early frees memory in use",
            .establishes =
                "`block_host_for_event` on an event recorded behind busy work (a host callback "
                "that sleeps 50 ms, or a long copy) returns only after that work has finished",
            .common_mistakes =
                "An unimplemented wait (VEDA's `block_host_for_event` is a `TODO()`); waiting "
                "for copies but not for host callbacks queued "
                "before the record.",
            .how_to_fix =
                "Block until the stream has run past the record: wait on the driver event, or on "
                "a condition variable the stream's worker signals when it gets there.",
            .proven_by = "`BLOCK_FOR_EVENT_RETURNS_EARLY`") {
  SkipUnlessProvided(check, {PluginFunction::kCreateStream, PluginFunction::kCreateEvent,
                             PluginFunction::kRecordEvent, PluginFunction::kBlockHostForEvent});
  const host::Device& device = check.device();
  // The event outlives the stream, which is drained as it is destroyed.
  auto event = check.Require(device.CreateEvent(), "create_event");
  auto stream = check.Require(device.CreateStream(), "create_stream");
  const conform::BusyWork busy(check, *stream, kSlowCallback,
                               conform::BusyWork::WithoutRoute::kLeaveIdle);
  check.Require(stream->RecordEvent(*event), "record_event");
  check.Require(event->BlockHost(), "block_host_for_event");
  check.details() = {{"kept_busy_by", busy.Describe()}};
  if (busy.route() == conform::BusyWork::Route::kIdle) {
    conform::BlockBecauseIdle(check, busy.Idle(),
                              "block_host_for_event returned for an event recorded on an idle "
                              "stream",
                              "telling whether it returns before the stream reaches the event");
  }
  if (busy.finished()) return;
  // Finished later: the wait returned early. Never finished: the busy work
  // itself is broken, which says nothing about the wait.
  if (!busy.Await(kPatience)) {
    check.Blocked(busy.StalledFunction(),
                  fmt::format("this check keeps the stream busy with {}, which had not finished "
                              "{} s later",
                              busy.Describe(), std::chrono::seconds(kPatience).count()));
  }
  check.Fail(fmt::format(
      "block_host_for_event returned while work enqueued before the record ({}) had not "
      "finished. TensorFlow blocks on an event to wait for a stream; without "
      "block_host_until_done this is how it waits for every stream, including before destroying "
      "one",
      busy.Describe()));
}

}  // namespace sectl::checks
