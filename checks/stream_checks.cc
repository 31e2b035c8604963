// Streams: work on one stream runs in order, dependencies between streams
// hold, and the host's waits return only once the work is done.
//
// Many plugins legally run everything synchronously at enqueue time, so no
// check here concludes "out of order" or "early" from timing. Each looks for
// an observation that no correct plugin, synchronous or asynchronous, can
// produce: a host callback on a waiting stream that runs while the stream it
// waits for is still inside an earlier callback, a wait that returns while
// work enqueued before it has not finished.
//
// Where host_callback is broken (many real plugins return false from it),
// the waits are watched through a long copy instead (conform::BusyWork) and
// stream.in_order goes without its hold; only the cross-stream checks, which
// need a callback on the waiting stream, are then blocked by host_callback.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
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

// How long a check waits for something a correct plugin does at once: long
// enough for a loaded machine, short enough to end a check whose plugin
// never does it.
constexpr auto kPatience = 3s;
// How long a "slow" host callback sleeps: the window in which a wait that
// returns early is seen returning early.
constexpr auto kSlowCallback = 50ms;

// What a check says when host callbacks it relies on never ran.
[[noreturn]] void BlockForSilentCallbacks(conform::CheckContext& check) {
  check.Blocked(PluginFunction::kHostCallback,
                fmt::format("this check watches the stream through host callbacks, and none ran "
                            "within {} s",
                            std::chrono::seconds(kPatience).count()));
}

// Enqueues `body` as a host callback; a host_callback that fails blocks the
// check (callback.enqueued reports it).
void EnqueueProbe(conform::CheckContext& check, host::Stream& stream,
                  std::function<void(TF_Status*)> body) {
  check.Require(stream.EnqueueHostCallback(std::move(body)), "enqueueing a host callback");
}

// A shared flag a host callback raises; shared, so that a callback the
// plugin runs late never touches a check's dead stack.
using Flag = std::shared_ptr<std::atomic<bool>>;
Flag NewFlag() { return std::make_shared<std::atomic<bool>>(false); }

// Waits until `stream` has run everything enqueued on it so far. A check
// must not hinge on the mechanism it is not about, so this uses two where it
// can: a host callback enqueued last (with a bounded wait), then
// block_host_until_done (or TensorFlow's event fallback where the plugin has
// none). Without usable host callbacks, the second alone.
void FinishStream(conform::CheckContext& check, host::Stream& stream) {
  if (conform::HostCallbacksUsable(check)) {
    const Flag finished = NewFlag();
    EnqueueProbe(check, stream, [finished](TF_Status*) { finished->store(true); });
    if (!WaitUntil([&] { return finished->load(); }, kPatience)) BlockForSilentCallbacks(check);
  }
  (void)conform::WaitForStream(check, stream);
}

// A host callback that keeps its stream busy until the check releases it, so
// that work enqueued behind it is certainly still pending on an asynchronous
// plugin while the check looks. A plugin that runs callbacks inside
// host_callback (on the check's thread, or while the check's thread waits)
// gets a hold that passes at once: the check could never release it.
class StreamHold {
 public:
  // Enqueues the hold on `stream`. A hold is a help, not a need, where
  // `optional`: without usable host callbacks there is then no hold (and
  // host_callback is avoided from then on); otherwise a failing
  // host_callback blocks the check.
  StreamHold(conform::CheckContext& check, host::Stream& stream, bool optional = false)
      : state_(std::make_shared<State>()) {
    if (optional && !conform::HostCallbacksUsable(check)) return;
    state_->enqueuing_thread = std::this_thread::get_id();
    auto enqueued = stream.EnqueueHostCallback([state = state_](TF_Status*) { state->Hold(); });
    state_->enqueue_returned.store(true);
    if (!enqueued) {
      Release();
      const auto culprit = enqueued.error().culprit();
      if (optional && culprit && !check.Tests(*culprit)) {
        check.Avoid(*culprit);
        return;
      }
      check.Require(Expected<void>(tl::unexpected(enqueued.error())), "enqueueing a host callback");
    }
    active_ = true;
  }
  ~StreamHold() { Release(); }
  StreamHold(const StreamHold&) = delete;
  StreamHold& operator=(const StreamHold&) = delete;

  void Release() { state_->Release(); }

  // Whether a hold was enqueued.
  bool active() const { return active_; }

  // Raised once the stream has gone past the hold (its callback returned).
  std::shared_ptr<const std::atomic<bool>> passed() const { return {state_, &state_->passed}; }

 private:
  // The longest a hold waits for a release that should come in microseconds.
  static constexpr auto kLimit = 2s;
  // How long a hold waits before it concludes that host_callback has not
  // returned because the plugin is waiting for the callback.
  static constexpr auto kEnqueueGrace = 5ms;

  struct State {
    void Hold() {
      if (std::this_thread::get_id() != enqueuing_thread) {
        std::unique_lock lock(mutex);
        const auto is_released = [this] { return released; };
        if (!released_cv.wait_for(lock, kEnqueueGrace, is_released) && enqueue_returned.load()) {
          released_cv.wait_for(lock, kLimit, is_released);
        }
      }
      passed.store(true);
    }

    void Release() {
      std::lock_guard lock(mutex);
      released = true;
      released_cv.notify_all();
    }

    std::thread::id enqueuing_thread;
    std::atomic<bool> enqueue_returned{false};
    std::atomic<bool> passed{false};
    std::mutex mutex;
    std::condition_variable released_cv;
    bool released = false;  // Guarded by mutex.
  };

  std::shared_ptr<State> state_;
  bool active_ = false;
};

// How long `stream` takes to run a host callback when nothing holds it back.
std::chrono::nanoseconds CallbackLatency(conform::CheckContext& check, host::Stream& stream) {
  const auto start = std::chrono::steady_clock::now();
  const Flag ran = NewFlag();
  EnqueueProbe(check, stream, [ran](TF_Status*) { ran->store(true); });
  if (!WaitUntil([&] { return ran->load(); }, kPatience)) BlockForSilentCallbacks(check);
  return std::chrono::steady_clock::now() - start;
}

// What a host callback enqueued on a waiting stream saw of the stream it waits for.
enum class Sighting : int { kNotYet, kOtherStillBusy, kOtherDone };

// Runs `make_wait` (which makes `waiting` wait for `other`'s work so far)
// while `other` is held busy, with a host callback on `waiting` behind the
// wait. Returns what that callback saw. Without usable host callbacks
// (broken, or seen not to run before the checks) the check is blocked at
// once: nothing else can hold a stream and watch another.
Sighting WatchWait(conform::CheckContext& check, host::Stream& waiting, host::Stream& other,
                   const std::function<void()>& make_wait) {
  if (!conform::HostCallbacksUsable(check)) {
    check.Blocked(PluginFunction::kHostCallback,
                  fmt::format("this check holds one stream and watches another through host "
                              "callbacks, and they are unusable here: {}",
                              check.platform().Provides(PluginFunction::kHostCallback)
                                  ? check.WhyAvoided(PluginFunction::kHostCallback)
                                  : "the plugin does not provide host_callback"));
  }
  // A stream that ignores the wait runs the callback about as fast as it
  // runs one now; `other` stays held well beyond that, so it is seen.
  const auto grace = std::clamp(
      std::chrono::duration_cast<std::chrono::milliseconds>(20 * CallbackLatency(check, waiting)),
      std::chrono::milliseconds(10), std::chrono::milliseconds(250));
  auto sighting = std::make_shared<std::atomic<Sighting>>(Sighting::kNotYet);
  {
    StreamHold hold(check, other);
    make_wait();
    EnqueueProbe(check, waiting, [sighting, other_done = hold.passed()](TF_Status*) {
      sighting->store(other_done->load() ? Sighting::kOtherDone : Sighting::kOtherStillBusy);
    });
    WaitUntil([&] { return sighting->load() != Sighting::kNotYet; }, grace);
  }
  FinishStream(check, other);
  FinishStream(check, waiting);
  if (!WaitUntil([&] { return sighting->load() != Sighting::kNotYet; }, kPatience)) {
    BlockForSilentCallbacks(check);
  }
  return sighting->load();
}

// A device buffer goes through versions that differ in every byte; a copy
// read back from it should hold exactly the version current at its place
// in the stream.
struct ReadBack {
  size_t expected_version;
  conform::HostBytes bytes;
};

// The share of `bytes` equal to `version`.
double ShareOf(const conform::HostBytes& version, const conform::HostBytes& bytes) {
  size_t equal = 0;
  for (size_t i = 0; i < bytes.size(); ++i) equal += bytes[i] == version[i] ? 1 : 0;
  return static_cast<double>(equal) / static_cast<double>(bytes.size());
}

// The ordering failure a read-back shows, if any. A copy that holds none of
// the versions is broken in itself (memcpy.* reports that), not out of order.
std::optional<std::string> OrderingFailure(const std::vector<conform::HostBytes>& versions,
                                           const ReadBack& read_back) {
  // Stray bytes match a version 1 time in 256; a tenth is no accident.
  constexpr double kSubstantial = 0.1;
  for (size_t version = 0; version < versions.size(); ++version) {
    if (version == read_back.expected_version) continue;
    const double share = ShareOf(versions[version], read_back.bytes);
    if (share < kSubstantial) continue;
    return fmt::format(
        "the memcpy_dtoh enqueued after the copy of version {} read back {:.0f}% of version {}, "
        "{}",
        read_back.expected_version, share * 100, version,
        version < read_back.expected_version
            ? "which that earlier copy had overwritten: it ran before the copy enqueued ahead "
              "of it"
            : "which a copy enqueued after it wrote: it ran after work enqueued behind it");
  }
  return std::nullopt;
}

}  // namespace

// PluggableDevice::Init (pluggable_device.cc) gets the device's stream
// group from StreamGroupFactory::GetOrCreate, which creates a compute stream,
// a host-to-device, a device-to-host and one device-to-device stream (1 to
// 4 with num_dev_to_dev_copy_streams).
constexpr int kStreamsPerDevice = 4;

SECTL_CHECK("stream.create_destroy", kRequired,
            "create_stream and destroy_stream work for the streams TensorFlow makes per device",
            .tests = {kCreateStream, kDestroyStream},
            .severity_reason =
                "TensorFlow 2.5 and later create a compute, a host-to-device, a device-to-host and "
                "a device-to-device stream for every device they register (PluggableDevice::Init, "
                "StreamGroupFactory::GetOrCreate in pluggable_device.cc): a create_stream that "
                "fails, crashes or hangs leaves TensorFlow without the device, or without its "
                "process",
            .establishes =
                "four streams created one after another on the device under test each come back "
                "with an OK status, and are then destroyed, newest first, after a wait on each; "
                "a null handle is accepted (TensorFlow's own test plugin returns one, and "
                "TensorFlow then never destroys it)",
            .common_mistakes =
                "A create_stream that aborts or asserts on a condition the plugin's own tests "
                "never meet (a second stream on one device, the device handle TensorFlow copied "
                "after create_device); a destroy_stream that frees what another stream still "
                "uses.",
            .how_to_fix =
                "Make create_stream return an error status (never abort) when it cannot create a "
                "stream, support several streams per device, and keep each stream's resources "
                "its own.",
            .proven_by = "`CREATE_STREAM_ABORTS`") {
  SkipUnlessProvided(check, {PluginFunction::kCreateStream, PluginFunction::kDestroyStream});
  const host::Device& device = check.device();
  std::vector<std::unique_ptr<host::Stream>> streams;
  for (int i = 0; i < kStreamsPerDevice; ++i) {
    streams.push_back(
        check.Require(device.CreateStream(),
                      fmt::format("create_stream (stream {} of {})", i + 1, kStreamsPerDevice)));
  }
  check.details()["streams"] = kStreamsPerDevice;
  while (!streams.empty()) streams.pop_back();  // destroy_stream, newest first
}

SECTL_CHECK("stream.in_order", kRequired,
            "Copies on one stream run in the order they were enqueued",
            .tests = {kMemcpyHtoD, kMemcpyDtoH},
            .severity_reason =
                "TensorFlow 2.5 and later enqueue a copy and the work that reads "
                "its result on one stream and rely on that order alone: out of "
                "order, tensors are read before they are written",
            .establishes =
                "on one stream, 64 KiB written (version 1), then, queued behind a host callback "
                "that holds the stream: write version 2, read, write version 3, read; each read "
                "returns the version written just before it, never a later or earlier one",
            .common_mistakes =
                "Doing a copy at once on the caller's thread while earlier work is still queued "
                "on the stream (the faulty plugin does this while a host callback is pending); a "
                "host-callback thread or DMA engine that the stream's other work does not wait "
                "for.",
            .how_to_fix =
                "Run everything enqueued on a stream (copies, fills, host callbacks) in the "
                "order it was enqueued, through one queue per stream; do work at once only when "
                "nothing is pending on that stream.",
            .proven_by = "`STREAM_OUT_OF_ORDER`") {
  SkipUnlessProvided(check, {PluginFunction::kAllocate, PluginFunction::kCreateStream,
                             PluginFunction::kMemcpyHtoD, PluginFunction::kMemcpyDtoH});
  constexpr size_t kBytes = size_t{64} * 1024;
  const host::Device& device = check.device();
  // Locals die in reverse order: the stream, drained as it is destroyed, must
  // go before the memory its queued copies touch.
  auto memory = check.Require(device.Allocate(kBytes), "allocate");
  const std::vector<conform::HostBytes> versions = {conform::TestPattern(kBytes, 1),
                                                    conform::TestPattern(kBytes, 2),
                                                    conform::TestPattern(kBytes, 3)};
  std::array<ReadBack, 2> read_backs = {ReadBack{1, conform::HostBytes(kBytes)},
                                        ReadBack{2, conform::HostBytes(kBytes)}};
  auto stream = check.Require(device.CreateStream(), "create_stream");
  check.Require(stream->MemcpyHtoD(memory.base(), versions[0].data(), kBytes), "memcpy_htod");
  check.Require(conform::WaitForStream(check, *stream), "waiting for the stream");

  // Behind a hold, so that an asynchronous plugin has all four copies queued.
  // Without usable host callbacks there is no hold; a plugin that reorders
  // queued copies may then run them before it can, but no correct plugin
  // produces what is judged below either way.
  bool held = false;
  {
    StreamHold hold(check, *stream, /*optional=*/true);
    held = hold.active();
    for (ReadBack& read_back : read_backs) {
      const auto& version = versions[read_back.expected_version];
      check.Require(stream->MemcpyHtoD(memory.base(), version.data(), kBytes), "memcpy_htod");
      check.Require(stream->MemcpyDtoH(read_back.bytes.data(), memory.base(), kBytes),
                    "memcpy_dtoh");
    }
  }
  FinishStream(check, *stream);

  check.details() = {{"bytes", kBytes}, {"copies", 5}, {"held_behind_a_host_callback", held}};
  for (const ReadBack& read_back : read_backs) {
    if (auto failure = OrderingFailure(versions, read_back)) {
      check.FailIn(PluginFunction::kMemcpyDtoH,
                   *failure +
                       ". TensorFlow enqueues a copy and the work that reads its result on one "
                       "stream and relies on that order alone");
    }
  }
}

SECTL_CHECK("stream.dependency", kRequired,
            "create_stream_dependency makes one stream wait for another's earlier work",
            .tests = {kCreateStreamDependency},
            .severity_reason =
                "TensorFlow 2.5 and later make the compute stream wait for copy "
                "streams with create_stream_dependency: ignored, kernels read "
                "tensors not yet copied",
            .establishes =
                "after `create_stream_dependency(waiting, other)`, a host callback enqueued on "
                "`waiting` does not run while `other` is still inside a host callback enqueued "
                "before the dependency (the only observation no correct plugin, synchronous or "
                "asynchronous, can produce)",
            .common_mistakes =
                "A no-op `create_stream_dependency`, which is right only for a plugin that "
                "finishes all work at enqueue time; noting the dependency without making the "
                "waiting stream's queue wait for it.",
            .how_to_fix =
                "Make `waiting` hold everything enqueued on it after the call until `other` has "
                "finished everything enqueued before it: put a marker on `other` and have "
                "`waiting`'s queue wait for it (a driver event, or a wait in the stream's "
                "worker).",
            .proven_by = "`DEPENDENCY_IGNORED`") {
  SkipUnlessProvided(check,
                     {PluginFunction::kCreateStream, PluginFunction::kCreateStreamDependency});
  const host::Device& device = check.device();
  auto waiting = check.Require(device.CreateStream(), "create_stream");
  auto other = check.Require(device.CreateStream(), "create_stream");
  const Sighting sighting = WatchWait(check, *waiting, *other, [&] {
    check.Require(waiting->WaitFor(*other), "create_stream_dependency");
  });
  check.Expect(sighting == Sighting::kOtherDone,
               "a host callback enqueued on a stream after create_stream_dependency(stream, other) "
               "ran while `other` was still inside a host callback enqueued before the "
               "dependency: the dependency was not honoured. TensorFlow makes its compute stream "
               "wait for its copy streams this way, so kernels would read tensors not yet copied");
}

SECTL_CHECK("stream.wait_for_event", kRequired,
            "wait_for_event makes a stream wait until another stream reaches the event",
            .tests = {kWaitForEvent},
            .severity_reason =
                "TensorFlow 2.5 and later order work across streams with "
                "record_event and wait_for_event: ignored, the waiting stream uses "
                "unfinished results",
            .establishes =
                "after `record_event(other, event)` and `wait_for_event(waiting, event)`, a host "
                "callback enqueued on `waiting` does not run while `other` is still inside a "
                "host callback enqueued before the record",
            .common_mistakes =
                "A no-op `wait_for_event` on an asynchronous plugin; waiting for the event's "
                "state at the time of the call (not yet recorded, or already COMPLETE from an "
                "earlier record) rather than for the record it refers to.",
            .how_to_fix =
                "Make the waiting stream's queue wait until the other stream has run past the "
                "record, for everything enqueued on it after `wait_for_event`.",
            .proven_by = "`WAIT_FOR_EVENT_IGNORED`") {
  SkipUnlessProvided(check, {PluginFunction::kCreateStream, PluginFunction::kCreateEvent,
                             PluginFunction::kRecordEvent, PluginFunction::kWaitForEvent});
  const host::Device& device = check.device();
  // The event outlives the streams, which are drained as they are destroyed.
  auto event = check.Require(device.CreateEvent(), "create_event");
  auto waiting = check.Require(device.CreateStream(), "create_stream");
  auto other = check.Require(device.CreateStream(), "create_stream");
  const Sighting sighting = WatchWait(check, *waiting, *other, [&] {
    check.Require(other->RecordEvent(*event), "record_event");
    check.Require(waiting->WaitForEvent(*event), "wait_for_event");
  });
  check.Expect(sighting == Sighting::kOtherDone,
               "a host callback enqueued on a stream after wait_for_event ran while the stream "
               "that records the event was still inside a host callback enqueued before the "
               "record: the wait was not honoured. TensorFlow orders work across streams with "
               "record_event and wait_for_event, so the waiting stream would use unfinished "
               "results");
}

SECTL_CHECK("stream.block_host_until_done", kRequired,
            "block_host_until_done returns only after the stream's work is done",
            .tests = {kBlockHostUntilDone},
            .severity_reason =
                "TensorFlow 2.5 and later call block_host_until_done, where "
                "provided, to wait for a stream before using its results and "
                "before destroying it: returning early reads unfinished work and "
                "frees memory in use",
            .establishes =
                "where provided, `block_host_until_done` returns only after the work enqueued "
                "before it (a host callback that sleeps 50 ms, or a long copy where host "
                "callbacks are broken) has finished",
            .common_mistakes =
                "Waiting for the stream's copies but not for the host callbacks queued on it "
                "(the faulty plugin); returning at once in a plugin that believes it is "
                "synchronous.",
            .how_to_fix =
                "Return only when everything enqueued on the stream before the call has "
                "finished, host callbacks included; or leave `block_host_until_done` null, and "
                "TensorFlow records an event and blocks on it instead.",
            .proven_by = "`BLOCK_RETURNS_EARLY`") {
  SkipUnlessProvided(check, {PluginFunction::kCreateStream});
  if (!check.platform().Provides(PluginFunction::kBlockHostUntilDone)) {
    check.Skip(
        "the plugin provides no block_host_until_done (optional: TensorFlow then records an "
        "event and blocks on it, which event.block_host_for_event checks)");
  }
  auto stream = check.Require(check.device().CreateStream(), "create_stream");
  const conform::BusyWork busy(check, *stream, kSlowCallback);
  check.Require(stream->BlockHostUntilDone(), "block_host_until_done");
  check.details() = {{"kept_busy_by", busy.Describe()}};
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
      "block_host_until_done returned while work enqueued before it ({}) had not finished. "
      "TensorFlow calls it to wait for a stream before using its results and before destroying "
      "it, so it would read unfinished work and free memory still in use",
      busy.Describe()));
}

SECTL_CHECK("stream.synchronize_all_activity", kRequired,
            "synchronize_all_activity returns only after every stream's work is done",
            .tests = {kSynchronizeAllActivity},
            .severity_reason =
                "TensorFlow 2.5 and later rely on synchronize_all_activity in "
                "PluggableDevice::Sync() to wait for all of a device's streams: "
                "returning early hands out unfinished results",
            .establishes =
                "with two streams each kept busy (a host callback that sleeps 50 ms, or a long "
                "copy), `synchronize_all_activity` returns only after the work on both has "
                "finished",
            .common_mistakes =
                "Synchronising only the stream used last, or only the device's copy queue and "
                "not the host callbacks; a no-op.",
            .how_to_fix =
                "Keep track of the device's live streams and wait for each of them, host "
                "callbacks included.",
            .proven_by = "`SYNCHRONIZE_RETURNS_EARLY`") {
  SkipUnlessProvided(check,
                     {PluginFunction::kCreateStream, PluginFunction::kSynchronizeAllActivity});
  const host::Device& device = check.device();
  std::array<std::unique_ptr<host::Stream>, 2> streams;
  // Declared after the streams: busy work goes first, as it must.
  std::array<std::unique_ptr<conform::BusyWork>, 2> busy;
  for (size_t i = 0; i < streams.size(); ++i) {
    streams[i] = check.Require(device.CreateStream(), "create_stream");
    busy[i] = std::make_unique<conform::BusyWork>(check, *streams[i], kSlowCallback);
  }
  check.Require(device.SynchronizeAllActivity(), "synchronize_all_activity");
  const auto unfinished = [&] {
    return static_cast<int>(!busy[0]->finished()) + static_cast<int>(!busy[1]->finished());
  };
  const int unfinished_on_return = unfinished();
  check.details() = {{"kept_busy_by", busy[0]->Describe()}};
  if (unfinished_on_return == 0) return;
  if (!WaitUntil([&] { return unfinished() == 0; }, kPatience)) {
    check.Blocked(busy[0]->StalledFunction(),
                  fmt::format("this check keeps two streams busy with {}, which had not "
                              "finished {} s later",
                              busy[0]->Describe(), std::chrono::seconds(kPatience).count()));
  }
  check.Fail(fmt::format(
      "synchronize_all_activity returned while work enqueued before it on {} of 2 streams ({} "
      "each) had not finished. TensorFlow's PluggableDevice::Sync() relies on it to wait for all "
      "of the device's streams",
      unfinished_on_return, busy[0]->Describe()));
}

SECTL_CHECK("stream.status_ok_when_healthy", kRequired,
            "get_stream_status is OK on a stream whose work all succeeded",
            .tests = {kGetStreamStatus},
            .severity_reason =
                "TensorFlow 2.5 and later treat a stream whose status is an error "
                "as failed, and abort on a failed copy stream (\"PluggableDevice->"
                "CPU Memcpy failed\")",
            .establishes =
                "`get_stream_status` is OK after `create_stream`, after a 4 KiB copy to the "
                "device and back, and after a host callback that succeeded",
            .common_mistakes =
                "An error kept from something that did not fail: a status field never "
                "initialised, or a host callback's status taken as a failure whatever its code "
                "(the faulty plugin reports an error once any host callback has run).",
            .how_to_fix =
                "Keep one status per stream, OK from `create_stream` on, and set an error only "
                "when an operation on that stream failed or a host callback's status is not OK.",
            .proven_by = "`STREAM_STATUS_SPURIOUS_ERROR`") {
  SkipUnlessProvided(
      check, {PluginFunction::kAllocate, PluginFunction::kCreateStream, PluginFunction::kMemcpyHtoD,
              PluginFunction::kMemcpyDtoH, PluginFunction::kGetStreamStatus});
  constexpr size_t kBytes = 4096;
  const host::Device& device = check.device();
  auto memory = check.Require(device.Allocate(kBytes), "allocate");
  const auto written = conform::TestPattern(kBytes);
  conform::HostBytes read_back(kBytes);
  auto stream = check.Require(device.CreateStream(), "create_stream");
  // Each stage must leave the stream OK; the first that does not is reported.
  const auto expect_ok = [&](std::string_view after) {
    auto status = stream->Status();
    check.details()["status_after"][std::string(after)] = status ? "OK" : status.error().message();
    if (!status) {
      check.Abort(fmt::format(
          "get_stream_status reported an error on a healthy stream (after {}): {}. TensorFlow "
          "then treats the stream as failed; on a copy stream it aborts the process "
          "(\"PluggableDevice->CPU Memcpy failed\")",
          after, status.error().message()));
    }
  };
  expect_ok("create_stream");
  check.Require(stream->MemcpyHtoD(memory.base(), written.data(), kBytes), "memcpy_htod");
  check.Require(stream->MemcpyDtoH(read_back.data(), memory.base(), kBytes), "memcpy_dtoh");
  check.Require(conform::WaitForStream(check, *stream), "waiting for the stream");
  expect_ok("copies");
  // A host callback that succeeds, as TensorFlow's EventMgr and copy
  // completions enqueue all the time; where host_callback is broken (which
  // callback.enqueued reports), there is no such stage to look at.
  if (!conform::HostCallbacksUsable(check)) return;
  if (auto enqueued = stream->EnqueueHostCallback([](TF_Status*) {}); !enqueued) {
    check.details()["host_callback"] = enqueued.error().message();
    return;
  }
  FinishStream(check, *stream);
  expect_ok("a successful host callback");
}

}  // namespace sectl::checks
