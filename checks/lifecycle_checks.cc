// Lifecycle: objects created and destroyed in TensorFlow's order, again and
// again, without anything piling up.
//
// TensorFlow registers the platform (create_device_fns, then
// create_stream_executor, then, in older versions, create_timer_fns),
// creates every device it is asked for and keeps them all, creates streams
// and a steady flow of events for each, and tears down in a fixed order.
// Tests, notebooks and servers do that many times in one process, so each
// object must come back after being destroyed, and destroying it must give
// back its threads and memory.
#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "conform/check.h"
#include "conform/check_support.h"
#include "host/event.h"
#include "host/stream.h"
#include "host/timer.h"

namespace sectl::checks {
namespace {

using conform::SkipUnlessProvided;

using abi::PluginFunction;

// Timers are optional since TensorFlow 2.16 (and absent from many plugins).
bool ProvidesTimers(const host::Platform& platform) {
  return platform.Provides(PluginFunction::kCreateTimer) &&
         platform.Provides(PluginFunction::kDestroyTimer) &&
         platform.Provides(PluginFunction::kStartTimer) &&
         platform.Provides(PluginFunction::kStopTimer);
}

// Error with "what failed: " in front.
template <typename T>
Expected<T> Explain(Expected<T> result, std::string_view doing) {
  if (!result) return tl::unexpected(result.error().WithContext(doing));
  return result;
}

// A device as TensorFlow uses one: a stream, an event recorded on it and,
// where the plugin has timers, a timer started and stopped on it. Members
// are destroyed in reverse order: timer, event, stream (after waiting for
// it), then the device, as TensorFlow destroys them.
struct DeviceInUse {
  std::unique_ptr<host::Device> device;
  std::unique_ptr<host::Stream> stream;
  std::unique_ptr<host::Event> event;
  std::unique_ptr<host::Timer> timer;
};

Expected<DeviceInUse> UseDevice(host::Platform& platform, int ordinal, bool with_timer) {
  DeviceInUse in_use;
  auto device = Explain(platform.CreateDevice(ordinal), "create_device");
  if (!device) return tl::unexpected(device.error());
  in_use.device = std::move(*device);
  auto stream = Explain(in_use.device->CreateStream(), "create_stream");
  if (!stream) return tl::unexpected(stream.error());
  in_use.stream = std::move(*stream);
  auto event = Explain(in_use.device->CreateEvent(), "create_event");
  if (!event) return tl::unexpected(event.error());
  in_use.event = std::move(*event);
  if (auto recorded = Explain(in_use.stream->RecordEvent(*in_use.event), "record_event");
      !recorded) {
    return tl::unexpected(recorded.error());
  }
  if (with_timer) {
    auto timer = Explain(in_use.device->CreateTimer(), "create_timer");
    if (!timer) return tl::unexpected(timer.error());
    in_use.timer = std::move(*timer);
    if (auto started = Explain(in_use.timer->Start(*in_use.stream), "start_timer"); !started) {
      return tl::unexpected(started.error());
    }
    if (auto stopped = Explain(in_use.timer->Stop(*in_use.stream), "stop_timer"); !stopped) {
      return tl::unexpected(stopped.error());
    }
  }
  if (auto done = Explain(in_use.stream->BlockHostUntilDone(), "waiting for the stream"); !done) {
    return tl::unexpected(done.error());
  }
  return in_use;
}

// The order of the journal's calls to `functions`, by name: what the plugin
// was asked to do, for the report.
std::vector<std::string> CallsTo(conform::CheckContext& check,
                                 std::initializer_list<PluginFunction> functions) {
  std::vector<std::string> calls;
  for (const host::JournalEntry& entry : check.journal().Entries()) {
    for (PluginFunction function : functions) {
      if (entry.function == function) calls.emplace_back(abi::QualifiedName(function));
    }
  }
  return calls;
}

// ---------------------------------------------------------------------------
// Cycles
// ---------------------------------------------------------------------------

constexpr int kRecreateCycles = 50;

// Cycles run before measuring, so that what a plugin sets up once (a thread
// pool, a cache, the allocator's first arena) is not counted as growth.
constexpr int kWarmUpCycles = 5;
constexpr int kMeasuredCycles = 50;

// What may grow without being a leak: a leak grows with the cycles (one
// thread or a buffer per object, 50 times over), a lazily grown pool or a
// malloc arena by a bounded amount.
constexpr int kThreadSlack = 2;
constexpr uint64_t kResidentSlackBytes = uint64_t{8} << 20;
// A plugin may let a stream's thread finish after destroy_stream returns.
constexpr auto kThreadExitGrace = std::chrono::milliseconds(500);

// Runs `cycles` create, use, destroy cycles of the device under test.
// Returns the failure, if one occurred, with the cycle it occurred in.
std::optional<std::string> RunCycles(host::Platform& platform, int ordinal, bool with_timer,
                                     int cycles) {
  for (int cycle = 0; cycle < cycles; ++cycle) {
    auto in_use = UseDevice(platform, ordinal, with_timer);
    if (!in_use) {
      return fmt::format("in cycle {} of {}: {}", cycle + 1, cycles, in_use.error().message());
    }
  }
  return std::nullopt;
}

// The process's resources that a leaking plugin makes grow.
struct Footprint {
  int threads = 0;
  uint64_t resident_bytes = 0;
  std::optional<int64_t> bytes_in_use;  // nullopt where the plugin keeps no statistics
};

// bytes_in_use, read through a device created for the purpose.
std::optional<int64_t> AllocatorBytesInUse(host::Platform& platform, int ordinal) {
  auto device = platform.CreateDevice(ordinal);
  if (!device) return std::nullopt;
  auto stats = (*device)->QueryAllocatorStats();
  if (!stats || !*stats) return std::nullopt;
  return (**stats).bytes_in_use;
}

Footprint MeasureFootprint(host::Platform& platform, int ordinal) {
  return {conform::ThreadCount(), conform::ResidentBytes(), AllocatorBytesInUse(platform, ordinal)};
}

// The thread count once it is within the slack of `baseline`, or after the
// grace period, whichever comes first.
int SettledThreadCount(int baseline) {
  const auto deadline = std::chrono::steady_clock::now() + kThreadExitGrace;
  int threads = conform::ThreadCount();
  while (threads > baseline + kThreadSlack && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    threads = conform::ThreadCount();
  }
  return threads;
}

nlohmann::json Describe(const Footprint& footprint) {
  nlohmann::json described = {{"threads", footprint.threads},
                              {"resident_bytes", footprint.resident_bytes}};
  if (footprint.bytes_in_use) described["allocator_bytes_in_use"] = *footprint.bytes_in_use;
  return described;
}

}  // namespace

SECTL_CHECK("lifecycle.tensorflow_order", kRequired,
            "Registration, every device in use at once, and teardown, in TensorFlow's order") {
  host::Platform& platform = check.platform();
  SkipUnlessProvided(check, {PluginFunction::kCreateStream, PluginFunction::kDestroyStream,
                             PluginFunction::kCreateEvent, PluginFunction::kDestroyEvent,
                             PluginFunction::kRecordEvent, PluginFunction::kBlockHostForEvent});
  // The host runtime registered the platform as TensorFlow does; the journal
  // shows the order the plugin saw.
  check.details()["registration"] =
      CallsTo(check, {PluginFunction::kInitPlugin, PluginFunction::kCreateDeviceFns,
                      PluginFunction::kCreateStreamExecutor, PluginFunction::kCreateTimerFns});

  const int count = check.Require(platform.DeviceCount(), "get_device_count");
  if (count < 1) check.Skip("get_device_count reports no device (registration.init reports it)");
  const bool with_timer = ProvidesTimers(platform);
  {
    // TensorFlow's executor cache holds every device at once, each with its
    // streams and events, until the platform goes.
    std::vector<DeviceInUse> devices;
    devices.reserve(count);
    for (int ordinal = 0; ordinal < count; ++ordinal) {
      devices.push_back(check.Require(UseDevice(platform, ordinal, with_timer),
                                      fmt::format("using device {} of {}", ordinal, count)));
    }
    // Timers, events and streams first, then the devices by ordinal.
    for (DeviceInUse& in_use : devices) {
      in_use.timer.reset();
      in_use.event.reset();
      in_use.stream.reset();
    }
    for (DeviceInUse& in_use : devices) in_use.device.reset();
  }
  // destroy_device_fns, destroy_stream_executor, destroy_timer_fns,
  // destroy_platform, destroy_platform_fns.
  check.TearDown();
  check.details()["devices"] = count;
  check.details()["timers"] = with_timer;
  check.details()["teardown"] =
      CallsTo(check, {PluginFunction::kDestroyDevice, PluginFunction::kDestroyDeviceFns,
                      PluginFunction::kDestroyStreamExecutor, PluginFunction::kDestroyTimerFns,
                      PluginFunction::kDestroyPlatform, PluginFunction::kDestroyPlatformFns});
}

SECTL_CHECK(
    "lifecycle.recreate", kRequired,
    "A device with its stream, event and timer can be created and destroyed 50 times over") {
  SkipUnlessProvided(check, {PluginFunction::kCreateStream, PluginFunction::kDestroyStream,
                             PluginFunction::kCreateEvent, PluginFunction::kDestroyEvent,
                             PluginFunction::kRecordEvent, PluginFunction::kBlockHostForEvent});
  host::Platform& platform = check.platform();
  const bool with_timer = ProvidesTimers(platform);
  check.details() = {{"cycles", kRecreateCycles}, {"timers", with_timer}};
  if (auto failure =
          RunCycles(platform, check.settings().device_ordinal, with_timer, kRecreateCycles)) {
    check.Fail(fmt::format(
        "creating the device and its objects again after destroying them failed {}: TensorFlow "
        "creates and destroys streams, events and timers throughout a run, and test suites and "
        "servers create devices again in one process",
        *failure));
  }
  if (!with_timer) check.details()["timers_skipped"] = "the plugin provides no timers (optional)";
}

SECTL_CHECK("lifecycle.no_growth", kRecommended,
            "Creating and destroying devices, streams, events and timers leaks no threads, memory "
            "or device allocations") {
  SkipUnlessProvided(check, {PluginFunction::kCreateStream, PluginFunction::kDestroyStream,
                             PluginFunction::kCreateEvent, PluginFunction::kDestroyEvent,
                             PluginFunction::kRecordEvent, PluginFunction::kBlockHostForEvent});
  host::Platform& platform = check.platform();
  const int ordinal = check.settings().device_ordinal;
  const bool with_timer = ProvidesTimers(platform);
  auto run = [&](int cycles) {
    if (auto failure = RunCycles(platform, ordinal, with_timer, cycles)) {
      check.Skip(
          fmt::format("growth cannot be measured: creation failed {} (lifecycle.recreate "
                      "reports it)",
                      *failure));
    }
  };
  run(kWarmUpCycles);
  const Footprint before = MeasureFootprint(platform, ordinal);
  run(kMeasuredCycles);
  Footprint after = MeasureFootprint(platform, ordinal);
  after.threads = SettledThreadCount(before.threads);
  check.details() = {{"cycles", kMeasuredCycles},
                     {"timers", with_timer},
                     {"before", Describe(before)},
                     {"after", Describe(after)}};

  const std::string over =
      fmt::format("over {} cycles of creating and destroying a device with {}", kMeasuredCycles,
                  with_timer ? "a stream, an event and a timer" : "a stream and an event");
  if (after.threads > before.threads + kThreadSlack) {
    check.Warn(
        fmt::format("the process's threads grew from {} to {} {}: a thread is left behind "
                    "each time, and a long TensorFlow process runs out of them",
                    before.threads, after.threads, over));
  }
  if (before.resident_bytes != 0 && after.resident_bytes > before.resident_bytes &&
      after.resident_bytes - before.resident_bytes > kResidentSlackBytes) {
    check.Warn(fmt::format("resident memory grew by {} MiB {}: memory is left behind each time",
                           (after.resident_bytes - before.resident_bytes) >> 20, over));
  }
  if (before.bytes_in_use && after.bytes_in_use && *after.bytes_in_use > *before.bytes_in_use) {
    check.Warn(
        fmt::format("the allocator's bytes_in_use grew from {} to {} {} although every "
                    "object was destroyed: device memory is left behind each time",
                    *before.bytes_in_use, *after.bytes_in_use, over));
  }
}

}  // namespace sectl::checks
