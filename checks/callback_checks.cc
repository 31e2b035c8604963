// Host callbacks: TensorFlow's way of running host code once a stream gets
// somewhere (finishing a copy, EventMgr's completions). TensorFlow passes a
// trampoline and a context that the trampoline deletes, so the plugin must
// call it exactly once, after all earlier work on the stream, with a
// TF_Status whose error becomes the stream's.
//
// A plugin may run a callback inside host_callback (synchronously): that is
// legal, and every check here accepts it.
#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string_view>
#include <thread>
#include <vector>

#include "conform/check.h"
#include "conform/check_support.h"
#include "host/stream.h"

namespace sectl::checks {
namespace {

using conform::SkipUnlessProvided;
using conform::WaitUntil;

using namespace std::chrono_literals;
using abi::PluginFunction;

// How long a check waits for something a correct plugin does at once.
constexpr auto kPatience = 3s;
// How long a "slow" host callback sleeps: it keeps its stream busy while the
// check enqueues what follows it.
constexpr auto kSlowCallback = 50ms;

// How long a check waits for a host callback to run: kPatience, or briefly
// where callbacks were seen not to run before the checks.
std::chrono::milliseconds CallbackPatience(const conform::CheckContext& check) {
  return check.Patience(PluginFunction::kHostCallback, kPatience);
}

// "3000 ms", or "250 ms, as before the checks, where ..."; `after` follows
// the time ("later").
std::string CallbackWait(const conform::CheckContext& check, std::string_view after = "") {
  return fmt::format("{} ms{}{}", CallbackPatience(check).count(), after,
                     check.AsLearnedBeforeChecks(PluginFunction::kHostCallback));
}

// Enqueues `body` as a host callback. A plugin that refuses fails this
// check too (callback.enqueued says the same): it tests host_callback, and
// what it establishes could not be seen.
std::shared_ptr<const host::HostCallbackRecord> EnqueueOrFail(
    conform::CheckContext& check, host::Stream& stream, std::function<void(TF_Status*)> body) {
  return check.Require(stream.EnqueueHostCallback(std::move(body)),
                       "enqueueing a host callback (this check needs it to run)");
}

// Waits until a host callback has raised `returned` (its last act); one
// that never runs fails the check, which tests host_callback, as it does
// callback.called_once.
void AwaitReturnOrFail(conform::CheckContext& check, const std::atomic<bool>& returned) {
  if (!WaitUntil([&] { return returned.load(); }, CallbackPatience(check))) {
    check.Abort(fmt::format(
        "host_callback returned true (enqueued), but the callback had not run {}, so what this "
        "check establishes could not be seen. TensorFlow waits for its callbacks (copy "
        "completions, EventMgr), so it hangs",
        CallbackWait(check, " later")));
  }
}

// How many of `bytes` equal `expected`, position by position.
size_t BytesEqual(const conform::HostBytes& expected, const unsigned char* bytes) {
  size_t equal = 0;
  for (size_t i = 0; i < expected.size(); ++i) equal += bytes[i] == expected[i] ? 1 : 0;
  return equal;
}

}  // namespace

SECTL_CHECK("callback.enqueued", kRequired,
            "host_callback accepts a callback on a healthy stream (returns true)",
            .tests = {kHostCallback},
            .severity_reason =
                "TensorFlow 2.5 and later validate host_callback and send every "
                "copy completion and EventMgr callback through it: false fails "
                "the operation (\"Failed to host callback\")",
            .establishes =
                "`host_callback` returns true for a callback on a healthy, idle stream; if it "
                "returns false, the check also notes whether the callback was called anyway",
            .common_mistakes =
                "Returning `TF_OK` as if it were a success code: `TF_OK` is 0, which as a "
                "`TF_Bool` means \"not enqueued\". The community sample and the DirectML plugin "
                "do this, and never run the callback.",
            .how_to_fix =
                "Return true (1) once the callback is enqueued; return false only when it could "
                "not be, and then never call it.",
            .proven_by =
                "`CALLBACK_NOT_ENQUEUED`, `HOST_CALLBACK_RETURNS_FALSE` (only callback checks "
                "fail; 3 are blocked)") {
  SkipUnlessProvided(check, {PluginFunction::kCreateStream, PluginFunction::kHostCallback});
  auto stream = check.Require(check.device().CreateStream(), "create_stream");
  auto called = std::make_shared<std::atomic<bool>>(false);
  auto enqueued = stream->EnqueueHostCallback([called](TF_Status*) { called->store(true); });
  if (enqueued) return;
  // Told "not enqueued", TensorFlow never expects the call; see if it comes anyway.
  (void)conform::WaitForStream(check, *stream);
  WaitUntil([&] { return called->load(); }, 20ms);
  check.details() = {{"called_anyway", called->load()}};
  check.Fail(fmt::format(
      "{} on a healthy, idle stream{}. TensorFlow then fails the operation that needed it "
      "(\"Failed to host callback\"): every copy completion and EventMgr callback goes through "
      "host_callback",
      enqueued.error().message(),
      called->load() ? ", and yet the callback was called: TensorFlow, told it was not "
                       "enqueued, has already reported the operation as failed"
                     : ""));
}

SECTL_CHECK("callback.called_once", kRequired,
            "An enqueued host callback is called exactly once, with a TF_Status",
            .tests = {kHostCallback},
            .severity_reason =
                "TensorFlow 2.5 and later pass a trampoline that deletes its "
                "context when called: never called hangs TensorFlow's waits, "
                "twice is a use-after-free",
            .establishes =
                "an enqueued host callback is called within 3 s (within 250 ms where a "
                "callback on an idle stream was seen not to run for 1 s before the checks), "
                "exactly once (not again after the stream is done), with a non-null "
                "`TF_Status`",
            .common_mistakes =
                "Never calling it: TensorFlow's own test plugin returns true without calling it, "
                "and TensorFlow's waits then hang. Calling it twice, for example from the "
                "stream's worker and again when the stream is synchronised or destroyed: "
                "TensorFlow's trampoline deletes its context on the first call. Passing a null "
                "status.",
            .how_to_fix =
                "Call each callback exactly once, after the work enqueued before it, with a "
                "`TF_Status` of your own (`TF_NewStatus`), and delete that status afterwards.",
            .proven_by = "`CALLBACK_CALLED_TWICE`, `CALLBACK_NEVER_CALLED`") {
  SkipUnlessProvided(check, {PluginFunction::kCreateStream, PluginFunction::kHostCallback});
  constexpr auto kLater = 20ms;
  auto stream = check.Require(check.device().CreateStream(), "create_stream");
  auto null_status = std::make_shared<std::atomic<bool>>(false);
  const auto record = EnqueueOrFail(check, *stream, [null_status](TF_Status* status) {
    if (status == nullptr) null_status->store(true);
  });
  if (!WaitUntil([&] { return record->calls.load() > 0; }, CallbackPatience(check))) {
    check.Abort(fmt::format(
        "host_callback returned true (enqueued), but the callback was not called within {}. "
        "TensorFlow waits for its callbacks (copy completions, EventMgr), so it hangs",
        CallbackWait(check)));
  }
  (void)conform::WaitForStream(check, *stream);
  std::this_thread::sleep_for(kLater);
  const int calls = record->calls.load();
  check.details() = {{"calls", calls}};
  check.Expect(calls == 1, fmt::format("the host callback was called {} times. TensorFlow's "
                                       "trampoline deletes its context on the first call, so a "
                                       "second call is a use-after-free inside TensorFlow",
                                       calls));
  check.Expect(!null_status->load(),
               "the host callback was called with a null TF_Status. TensorFlow's trampoline "
               "writes the callback's result into it, so it would crash");
}

SECTL_CHECK("callback.after_earlier_work", kRequired,
            "A host callback runs only after all work enqueued before it on its stream",
            .tests = {kHostCallback},
            .severity_reason =
                "TensorFlow 2.5 and later hand a copied tensor on from a host "
                "callback enqueued after the copy (ThenExecute): run early, the "
                "CPU reads it unfinished",
            .establishes =
                "on one stream, a host callback that sleeps 50 ms, then a 64 KiB `memcpy_dtoh`, "
                "then the callback under test: when it runs, the first callback has finished and "
                "all 64 KiB have arrived",
            .common_mistakes =
                "Running a callback at once on the caller's thread while earlier work is still "
                "pending on the stream (the faulty plugin does this when another callback is "
                "pending); running callbacks on a thread of their own that does not wait for the "
                "stream's copies.",
            .how_to_fix =
                "Enqueue the callback in the stream's queue and run it when everything before it "
                "has finished; a fully synchronous plugin may call it inside `host_callback`, "
                "since everything before it is then done.",
            .proven_by = "`CALLBACK_BEFORE_EARLIER_WORK`") {
  SkipUnlessProvided(
      check, {PluginFunction::kAllocate, PluginFunction::kCreateStream, PluginFunction::kMemcpyHtoD,
              PluginFunction::kMemcpyDtoH, PluginFunction::kHostCallback});
  constexpr size_t kBytes = size_t{64} * 1024;
  const host::Device& device = check.device();
  // Locals die in reverse order: the stream, drained as it is destroyed, must
  // go before the memory its queued copies touch.
  auto memory = check.Require(device.Allocate(kBytes), "allocate");
  // Shared, like everything the callbacks touch: a plugin may run them late.
  const auto written = std::make_shared<const conform::HostBytes>(conform::TestPattern(kBytes, 5));
  auto stream = check.Require(device.CreateStream(), "create_stream");
  check.Require(stream->MemcpyHtoD(memory.base(), written->data(), kBytes), "memcpy_htod");
  check.Require(conform::WaitForStream(check, *stream), "waiting for the stream");

  // On the stream: a slow callback, a copy back to the host, and the
  // callback under test, which notes how much of both it finds done.
  struct Sighting {
    std::atomic<bool> slow_callback_finished{false};
    std::atomic<bool> slow_callback_finished_before{false};
    std::atomic<size_t> bytes_landed_before{0};
    std::atomic<bool> noted{false};  // raised last
  };
  auto sighting = std::make_shared<Sighting>();
  // Filled with the complement, so that no byte matches before the copy lands.
  auto host_buffer = std::make_shared<conform::HostBytes>(*written);
  for (unsigned char& byte : *host_buffer) byte = static_cast<unsigned char>(~byte);
  EnqueueOrFail(check, *stream, [sighting](TF_Status*) {
    std::this_thread::sleep_for(kSlowCallback);
    sighting->slow_callback_finished.store(true);
  });
  check.Require(stream->MemcpyDtoH(host_buffer->data(), memory.base(), kBytes), "memcpy_dtoh");
  EnqueueOrFail(check, *stream, [sighting, host_buffer, written](TF_Status*) {
    sighting->slow_callback_finished_before.store(sighting->slow_callback_finished.load());
    sighting->bytes_landed_before.store(BytesEqual(*written, host_buffer->data()));
    sighting->noted.store(true);
  });
  AwaitReturnOrFail(check, sighting->noted);
  (void)conform::WaitForStream(check, *stream);

  const size_t landed_before = sighting->bytes_landed_before.load();
  const size_t landed_after = BytesEqual(*written, host_buffer->data());
  check.details() = {{"bytes", kBytes},
                     {"bytes_landed_when_called", landed_before},
                     {"bytes_landed_in_the_end", landed_after}};
  check.Expect(sighting->slow_callback_finished_before.load(),
               "a host callback ran while a host callback enqueued before it on the same stream "
               "was still running. TensorFlow chains work on host callbacks (a copy's completion "
               "hands the tensor on) and relies on stream order");
  // A copy that never delivers is memcpy.*'s finding; judge only one that does.
  if (landed_after == kBytes && landed_before < kBytes) {
    check.Fail(fmt::format(
        "a host callback ran before the memcpy_dtoh enqueued ahead of it had finished: {} of {} "
        "bytes had arrived. TensorFlow uses a host callback after a device-to-host copy to hand "
        "the tensor to the CPU, which would read it unfinished",
        landed_before, kBytes));
  }
}

SECTL_CHECK("callback.error_reaches_stream", kRequired,
            "A host callback's error makes get_stream_status report an error",
            .tests = {kHostCallback},
            .severity_reason =
                "TensorFlow 2.5 and later report a host callback's failure through "
                "the status it writes: a stream that hides it lets TensorFlow go "
                "on with wrong results",
            .establishes =
                "after a host callback writes `TF_INTERNAL` into its status, `get_stream_status` "
                "reports an error within 3 s (a plugin that runs the callback inside "
                "`host_callback` and returns false for its failure also passes)",
            .common_mistakes =
                "Passing the callback a status that nobody reads afterwards (the faulty plugin), "
                "or deleting it unread.",
            .how_to_fix =
                "After the callback returns, read the status you passed; if it is not OK, put "
                "the stream into an error state that `get_stream_status` reports.",
            .proven_by = "`CALLBACK_ERROR_DROPPED`") {
  SkipUnlessProvided(check, {PluginFunction::kCreateStream, PluginFunction::kHostCallback,
                             PluginFunction::kGetStreamStatus});
  auto stream = check.Require(check.device().CreateStream(), "create_stream");
  auto returned = std::make_shared<std::atomic<bool>>(false);
  auto enqueued = stream->EnqueueHostCallback([returned](TF_Status* status) {
    if (status != nullptr) {
      TF_SetStatus(status, TF_INTERNAL, "sectl: a host callback failing on purpose");
    }
    returned->store(true);
  });
  if (!enqueued && returned->load()) {
    // TensorFlow's own test plugin runs the callback inside host_callback and
    // reports its failure by returning false, which fails the stream in
    // TensorFlow just as well.
    check.details() = {{"reported_by", "host_callback returning false"}};
    return;
  }
  check.Require(enqueued, "enqueueing a host callback (this check needs it to run)");
  AwaitReturnOrFail(check, *returned);
  (void)conform::WaitForStream(check, *stream);
  // The plugin may note the error a moment after the callback returns.
  Expected<void> status;
  WaitUntil(
      [&] {
        status = stream->Status();
        return !status.has_value();
      },
      kPatience);
  check.details() = {{"reported_by", "get_stream_status"},
                     {"stream_status", status ? "OK" : status.error().message()}};
  check.Expect(!status.has_value(),
               "get_stream_status still reported OK after a host callback on the stream returned "
               "TF_INTERNAL. TensorFlow's callbacks report failures this way, and a stream that "
               "hides them lets TensorFlow carry on with results that are wrong");
}

}  // namespace sectl::checks
