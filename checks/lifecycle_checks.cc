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

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "conform/check.h"
#include "conform/check_process_server.h"
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
// lifecycle.tensorflow_order: the most devices held at once (as
// device.create_every_ordinal creates at most 64 ordinals).
constexpr int kMostDevicesInUse = 64;

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
std::optional<Error> RunCycles(host::Platform& platform, int ordinal, bool with_timer, int cycles) {
  for (int cycle = 0; cycle < cycles; ++cycle) {
    auto in_use = UseDevice(platform, ordinal, with_timer);
    if (!in_use) {
      return in_use.error().WithContext(fmt::format("in cycle {} of {}", cycle + 1, cycles));
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

// bytes_in_use of a device that stays alive.
std::optional<int64_t> AllocatorBytesInUse(const host::Device& device) {
  auto stats = device.QueryAllocatorStats();
  if (!stats || !*stats) return std::nullopt;
  return (**stats).bytes_in_use;
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

// How much each resource grew over the measured cycles of one kind.
struct FootprintGrowth {
  int threads = 0;
  int64_t resident_bytes = 0;
  std::optional<int64_t> bytes_in_use;

  // The growth `other` does not explain: a stream's cycles include the wait
  // TensorFlow does before destroying it, whose own growth is not the
  // stream's.
  FootprintGrowth Beyond(const FootprintGrowth& other) const {
    FootprintGrowth rest{threads - other.threads, resident_bytes - other.resident_bytes, {}};
    if (bytes_in_use && other.bytes_in_use) rest.bytes_in_use = *bytes_in_use - *other.bytes_in_use;
    return rest;
  }
};

FootprintGrowth GrowthBetween(const Footprint& before, const Footprint& after) {
  FootprintGrowth growth{
      after.threads - before.threads,
      static_cast<int64_t>(after.resident_bytes) - static_cast<int64_t>(before.resident_bytes),
      {}};
  // Unmeasurable where resident memory cannot be read (0).
  if (before.resident_bytes == 0 || after.resident_bytes == 0) growth.resident_bytes = 0;
  if (before.bytes_in_use && after.bytes_in_use) {
    growth.bytes_in_use = *after.bytes_in_use - *before.bytes_in_use;
  }
  return growth;
}

// One kind of create, use and destroy cycle, run on its own so that what
// grows is blamed on the destroy function that should have given it back:
// devices alone (destroy_device), and streams, events and timers on one
// device that stays alive (destroy_stream, destroy_event, destroy_timer).
struct CycleKind {
  std::string_view key;    // "device_footprint", for the details
  std::string cycling;     // "creating and destroying a device alone (...)"
  PluginFunction destroy;  // what the growth is blamed on
  std::function<Expected<void>()> once;
  std::function<std::optional<int64_t>()> bytes_in_use;
};

// Runs kWarmUpCycles, then kMeasuredCycles measured, of `kind`; the growth,
// or the failure (with the cycle it occurred in) when a cycle failed.
Expected<FootprintGrowth> MeasureFootprintGrowth(const CycleKind& kind, nlohmann::json& details) {
  auto run = [&](int cycles) -> Expected<void> {
    for (int cycle = 0; cycle < cycles; ++cycle) {
      if (auto done = kind.once(); !done) {
        return tl::unexpected(done.error().WithContext(
            fmt::format("{}, in cycle {} of {}", kind.cycling, cycle + 1, cycles)));
      }
    }
    return {};
  };
  if (auto warmed = run(kWarmUpCycles); !warmed) return tl::unexpected(warmed.error());
  const Footprint before{conform::ThreadCount(), conform::ResidentBytes(), kind.bytes_in_use()};
  if (auto measured = run(kMeasuredCycles); !measured) return tl::unexpected(measured.error());
  Footprint after{0, conform::ResidentBytes(), kind.bytes_in_use()};
  after.threads = SettledThreadCount(before.threads);
  details[std::string(kind.key)] = {{"before", Describe(before)}, {"after", Describe(after)}};
  return GrowthBetween(before, after);
}

// Warns about each resource `kind`'s cycles left behind, naming its destroy
// function.
void JudgeFootprintGrowth(conform::CheckContext& check, const CycleKind& kind,
                          const FootprintGrowth& growth) {
  const std::string_view destroy = abi::InfoOf(kind.destroy).member;
  const std::string over = fmt::format("over {} cycles of {}", kMeasuredCycles, kind.cycling);
  if (growth.threads > kThreadSlack) {
    check.WarnIn(kind.destroy,
                 fmt::format("{} leaks threads: the process's threads grew by {} {}: a thread is "
                             "left behind each time, and a long TensorFlow process runs out of "
                             "them",
                             destroy, growth.threads, over));
  }
  if (growth.resident_bytes > static_cast<int64_t>(kResidentSlackBytes)) {
    check.WarnIn(kind.destroy,
                 fmt::format("{} leaks memory: resident memory grew by {} MiB {}: memory is left "
                             "behind each time",
                             destroy, growth.resident_bytes >> 20, over));
  }
  if (growth.bytes_in_use && *growth.bytes_in_use > 0) {
    check.WarnIn(kind.destroy,
                 fmt::format("{} leaks device memory: the allocator's bytes_in_use grew by {} {} "
                             "although every object was destroyed",
                             destroy, *growth.bytes_in_use, over));
  }
}

// Heap growth per create/destroy cycle of one object.

// Enough cycles for a leak of one small object per cycle (16 bytes or more
// in glibc's accounting, one block in the guard's) to stand far above the
// noise of a warm cache, in two halves that must both show it. Streams cost
// more (a plugin may start a thread for each), and the suite must stay fast.
constexpr int kHeapWarmUpCycles = 100;
constexpr int kEventCyclesPerHalf = 500;
constexpr int kStreamCyclesPerHalf = 150;
constexpr double kLeakedBytesPerCycle = 16;
// The guard (isolation/guard_malloc.h) counts the plugin's small blocks
// itself: one object per cycle is one block per cycle.
constexpr double kLeakedBlocksPerCycle = 0.5;

// The heap in use: glibc's arenas and large blocks, and what the guard holds.
struct HeapInUse {
  uint64_t bytes = 0;
  uint64_t guarded_blocks = 0;
};

HeapInUse HeapNow() {
  const conform::PluginHeap heap = conform::PluginHeapNow();
  return {heap.bytes, heap.guarded_live_blocks};
}

struct HeapGrowth {
  double bytes_per_cycle = 0;
  double blocks_per_cycle = 0;
  bool Leaks() const {
    return bytes_per_cycle >= kLeakedBytesPerCycle || blocks_per_cycle >= kLeakedBlocksPerCycle;
  }
  // The growth `other` does not explain (see FootprintGrowth::Beyond).
  HeapGrowth Beyond(const HeapGrowth& other) const {
    return {bytes_per_cycle - other.bytes_per_cycle, blocks_per_cycle - other.blocks_per_cycle};
  }
};

HeapGrowth GrowthBetween(const HeapInUse& before, const HeapInUse& after, int cycles) {
  return {(static_cast<double>(after.bytes) - static_cast<double>(before.bytes)) / cycles,
          (static_cast<double>(after.guarded_blocks) - static_cast<double>(before.guarded_blocks)) /
              cycles};
}

// The growth of each half of the measured cycles, after a warm-up: a
// leak grows in both, a pool or cache filled once in neither or one.
template <typename Cycle>
std::pair<HeapGrowth, HeapGrowth> MeasureHeapGrowth(int cycles_per_half, Cycle&& cycle) {
  for (int i = 0; i < kHeapWarmUpCycles; ++i) cycle();
  const HeapInUse start = HeapNow();
  for (int i = 0; i < cycles_per_half; ++i) cycle();
  const HeapInUse middle = HeapNow();
  for (int i = 0; i < cycles_per_half; ++i) cycle();
  const HeapInUse end = HeapNow();
  return {GrowthBetween(start, middle, cycles_per_half),
          GrowthBetween(middle, end, cycles_per_half)};
}

// What the guard did in this process so far, and the kernel mappings it
// costs (vm.max_map_count bounds them), for the report.
nlohmann::json DescribeGuard() {
  const conform::PluginHeap heap = conform::PluginHeapNow();
  nlohmann::json described = {{"guarded_allocations", heap.guarded_allocations},
                              {"live_guarded_blocks", heap.guarded_live_blocks},
                              {"fallbacks_to_glibc", heap.guard_fallbacks}};
  // The plugin server's maps are not this process's to read unless it is
  // root (remote/server_resources.h): counted only for a plugin here.
  if (conform::CheckProcessServer() == nullptr) {
    std::ifstream maps("/proc/self/maps");
    described["process_mappings"] =
        std::count(std::istreambuf_iterator<char>(maps), std::istreambuf_iterator<char>(), '\n');
  }
  return described;
}

nlohmann::json Describe(const std::pair<HeapGrowth, HeapGrowth>& growth, int cycles_per_half) {
  auto half = [](const HeapGrowth& one) {
    return nlohmann::json{{"heap_bytes_per_cycle", one.bytes_per_cycle},
                          {"guarded_blocks_per_cycle", one.blocks_per_cycle}};
  };
  return {{"warm_up_cycles", kHeapWarmUpCycles},
          {"cycles_per_half", cycles_per_half},
          {"guard_malloc", DescribeGuard()},
          {"first_half", half(growth.first)},
          {"second_half", half(growth.second)}};
}

bool Leaks(const std::pair<HeapGrowth, HeapGrowth>& growth) {
  return growth.first.Leaks() && growth.second.Leaks();
}

// "about 32 bytes (1 heap block) per cycle"
std::string DescribeLeak(const std::pair<HeapGrowth, HeapGrowth>& growth) {
  const double bytes = (growth.first.bytes_per_cycle + growth.second.bytes_per_cycle) / 2;
  const double blocks = (growth.first.blocks_per_cycle + growth.second.blocks_per_cycle) / 2;
  std::string described = fmt::format("about {:.0f} bytes", std::max(bytes, 0.0));
  if (blocks >= kLeakedBlocksPerCycle) {
    described += fmt::format(" ({:.1f} heap block{})", blocks, blocks >= 1.5 ? "s" : "");
  }
  return described + " per cycle";
}

// create_event then destroy_event, as TensorFlow's BlockHostUntilDone does
// on a plugin without block_host_until_done.
std::pair<HeapGrowth, HeapGrowth> EventCycleGrowth(conform::CheckContext& check) {
  const host::Device& device = check.device();
  return MeasureHeapGrowth(kEventCyclesPerHalf,
                           [&] { (void)check.Require(device.CreateEvent(), "create_event"); });
}

// create_stream then destroy_stream, after waiting for the stream as
// TensorFlow does (host/stream.cc).
std::pair<HeapGrowth, HeapGrowth> StreamCycleGrowth(conform::CheckContext& check) {
  const host::Device& device = check.device();
  return MeasureHeapGrowth(kStreamCyclesPerHalf,
                           [&] { (void)check.Require(device.CreateStream(), "create_stream"); });
}

// The wait alone, on a stream that stays: on a plugin without
// block_host_until_done it creates, records, waits for and destroys an
// event, as each stream cycle's wait does.
std::pair<HeapGrowth, HeapGrowth> WaitCycleGrowth(conform::CheckContext& check,
                                                  host::Stream& stream) {
  return MeasureHeapGrowth(kStreamCyclesPerHalf, [&] {
    check.Require(stream.BlockHostUntilDone(), "waiting for an idle stream");
  });
}

std::pair<HeapGrowth, HeapGrowth> Beyond(const std::pair<HeapGrowth, HeapGrowth>& growth,
                                         const std::pair<HeapGrowth, HeapGrowth>& explained) {
  return {growth.first.Beyond(explained.first), growth.second.Beyond(explained.second)};
}

// Warns, naming the destroy function, where one object per cycle is left on
// the heap; each object's leak is judged on its own. Waiting for a stream
// without block_host_until_done goes through an event (host/stream.cc, as
// TensorFlow does), so a stream cycle's growth is judged beyond what the
// wait alone leaves: a leaking destroy_event is not destroy_stream's, and
// hides no leak of destroy_stream's.
void JudgeHeapPerObject(conform::CheckContext& check) {
  host::Platform& platform = check.platform();
  if (platform.Provides(PluginFunction::kCreateEvent) &&
      platform.Provides(PluginFunction::kDestroyEvent)) {
    const auto growth = EventCycleGrowth(check);
    check.details()["event_cycles"] = Describe(growth, kEventCyclesPerHalf);
    if (Leaks(growth)) {
      check.WarnIn(
          PluginFunction::kDestroyEvent,
          fmt::format(
              "destroy_event leaks: the process's heap grew by {} of creating and destroying an "
              "event, so destroy_event does not free what create_event allocated; a long "
              "TensorFlow run creates events without end",
              DescribeLeak(growth)));
    }
  }
  if (platform.Provides(PluginFunction::kCreateStream) &&
      platform.Provides(PluginFunction::kDestroyStream)) {
    auto growth = StreamCycleGrowth(check);
    check.details()["stream_cycles"] = Describe(growth, kStreamCyclesPerHalf);
    if (!platform.Provides(PluginFunction::kBlockHostUntilDone)) {
      auto stream = check.Require(check.device().CreateStream(), "create_stream");
      const auto waiting = WaitCycleGrowth(check, *stream);
      check.details()["stream_wait_cycles"] = Describe(waiting, kStreamCyclesPerHalf);
      growth = Beyond(growth, waiting);
    }
    if (Leaks(growth)) {
      check.WarnIn(
          PluginFunction::kDestroyStream,
          fmt::format(
              "destroy_stream leaks: the process's heap grew by {} of creating and destroying a "
              "stream (beyond what waiting for a stream leaves), so destroy_stream does not free "
              "what create_stream allocated",
              DescribeLeak(growth)));
    }
  }
}

// Each kind of object cycled on its own, so that growth is blamed on its
// destroy function: devices alone first (no device is held then: TensorFlow
// never holds two of one ordinal), then streams, events and timers on the
// device under test, which stays alive.
void JudgeFootprintPerObject(conform::CheckContext& check) {
  host::Platform& platform = check.platform();
  const int ordinal = check.settings().device_ordinal;
  nlohmann::json& details = check.details();
  auto measure = [&](const CycleKind& kind) {
    auto growth = MeasureFootprintGrowth(kind, details);
    // A function that fails on the way is lifecycle.recreate's finding:
    // this check is blocked by it (or fails, where it tests it).
    return check.Require(std::move(growth), "growth cannot be measured");
  };
  const CycleKind devices{
      "device_footprint",
      fmt::format("creating and destroying device {} alone (no stream, event or timer)", ordinal),
      PluginFunction::kDestroyDevice,
      [&]() -> Expected<void> {
        auto device = Explain(platform.CreateDevice(ordinal), "create_device");
        if (!device) return tl::unexpected(device.error());
        return {};
      },
      [&] { return AllocatorBytesInUse(platform, ordinal); }};
  JudgeFootprintGrowth(check, devices, measure(devices));

  const host::Device& device = check.device();
  const auto device_bytes_in_use = [&] { return AllocatorBytesInUse(device); };
  const std::unique_ptr<host::Stream> stream =
      check.Require(device.CreateStream(), "create_stream (a stream for events and timers)");
  const CycleKind streams{"stream_footprint",
                          "creating and destroying a stream on a device that stays",
                          PluginFunction::kDestroyStream,
                          [&]() -> Expected<void> {
                            auto created = Explain(device.CreateStream(), "create_stream");
                            if (!created) return tl::unexpected(created.error());
                            return {};
                          },
                          device_bytes_in_use};
  FootprintGrowth stream_growth = measure(streams);
  if (!platform.Provides(PluginFunction::kBlockHostUntilDone)) {
    // Each stream cycle's wait goes through an event: not the stream's.
    const CycleKind waits{
        "stream_wait_footprint", "waiting for an idle stream", PluginFunction::kDestroyEvent,
        [&] { return Explain(stream->BlockHostUntilDone(), "waiting"); }, device_bytes_in_use};
    stream_growth = stream_growth.Beyond(measure(waits));
  }
  JudgeFootprintGrowth(check, streams, stream_growth);

  const CycleKind events{"event_footprint",
                         "creating, recording and destroying an event on a stream that stays",
                         PluginFunction::kDestroyEvent,
                         [&]() -> Expected<void> {
                           auto event = Explain(device.CreateEvent(), "create_event");
                           if (!event) return tl::unexpected(event.error());
                           return Explain(stream->RecordEvent(**event), "record_event");
                         },
                         device_bytes_in_use};
  JudgeFootprintGrowth(check, events, measure(events));

  if (!ProvidesTimers(platform)) return;
  const CycleKind timers{
      "timer_footprint",
      "creating, starting, stopping and destroying a timer on a stream that stays",
      PluginFunction::kDestroyTimer,
      [&]() -> Expected<void> {
        auto timer = Explain(device.CreateTimer(), "create_timer");
        if (!timer) return tl::unexpected(timer.error());
        if (auto started = Explain((*timer)->Start(*stream), "start_timer"); !started) {
          return started;
        }
        return Explain((*timer)->Stop(*stream), "stop_timer");
      },
      device_bytes_in_use};
  JudgeFootprintGrowth(check, timers, measure(timers));
}

}  // namespace

SECTL_CHECK("lifecycle.tensorflow_order", kRequired,
            "Registration, every device in use at once, and teardown, in TensorFlow's order",
            .tests = {kCreateDevice, kDestroyDevice, kDestroyDeviceFns, kDestroyStreamExecutor,
                      kDestroyTimerFns, kDestroyPlatform, kDestroyPlatformFns},
            .severity_reason =
                "TensorFlow 2.5 and later: the first use of each visible device creates its "
                "executor and keeps every one alive at once, each with its streams and events; "
                "a plugin that cannot hold them all fails TensorFlow's device creation. The "
                "teardown order is the one TensorFlow's own unit tests run",
            .establishes =
                "registration as TensorFlow does it; then every device (up to 64) created and in "
                "use at once, each with a stream, an event recorded on it and, where the plugin "
                "has timers, a timer; then teardown in TensorFlow's order: timers, events, "
                "streams, devices, then `destroy_device_fns`, `destroy_stream_executor`, "
                "`destroy_timer_fns`, `destroy_platform`, `destroy_platform_fns`",
            .common_mistakes =
                "State shared by all devices (a driver context, a queue) that the first "
                "`destroy_device` tears down while other devices still use it; the faulty plugin "
                "frees a shared context in every `destroy_device`, so the second one crashes. A "
                "plugin tested with one device at a time only.",
            .how_to_fix =
                "Reference-count what devices share and release it with the last device, or in "
                "`destroy_platform`; test with every device alive at once, as TensorFlow keeps "
                "them.",
            .proven_by = "`SHARED_CONTEXT_TEARDOWN` (crash)") {
  host::Platform& platform = check.platform();
  SkipUnlessProvided(check, {PluginFunction::kCreateStream, PluginFunction::kDestroyStream,
                             PluginFunction::kCreateEvent, PluginFunction::kDestroyEvent,
                             PluginFunction::kRecordEvent, PluginFunction::kBlockHostForEvent});
  // The host runtime registered the platform as TensorFlow does; the journal
  // shows the order the plugin saw.
  check.details()["registration"] =
      CallsTo(check, {PluginFunction::kInitPlugin, PluginFunction::kCreateDeviceFns,
                      PluginFunction::kCreateStreamExecutor, PluginFunction::kCreateTimerFns});

  const int reported = check.Require(platform.DeviceCount(), "get_device_count");
  if (reported < 1) check.Skip("get_device_count reports no device (registration.init reports it)");
  // A count in the millions is a defect device.count reports; using that many
  // devices at once would exhaust sectl's memory, not test the plugin.
  const int count = std::min(reported, kMostDevicesInUse);
  if (count < reported) check.details()["devices_reported"] = reported;
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

// Why a crash in the lifecycle checks does not make them required: they tear
// down and create again what TensorFlow keeps for the life of its process.
constexpr std::string_view kLifecycleUnusualUse =
    "TensorFlow creates each device and its stream group once and keeps them for the life of the "
    "process (StreamGroupFactory never deletes a stream); only its unit tests tear a platform "
    "down and create it again";

SECTL_CHECK("lifecycle.recreate", kRecommended,
            "A device with its stream, event and timer can be created and destroyed 50 times over",
            .tests = {kCreateDevice, kDestroyDevice, kCreateStream, kDestroyStream, kCreateEvent,
                      kDestroyEvent, kCreateTimer, kDestroyTimer},
            .severity_reason =
                "No released TensorFlow destroys a device in a running process (its platforms live "
                "until exit); only tests, notebooks that reload and TensorFlow's own unit tests "
                "create a device again",
            .establishes =
                "a device with a stream, an event and (where provided) a timer is created, used "
                "and destroyed 50 times over, every cycle succeeding",
            .common_mistakes =
                "Resources taken from a fixed table that `destroy_device` (or `destroy_stream`, "
                "`destroy_event`) never gives back, so creation fails after a number of cycles; "
                "the faulty plugin's device table has 16 slots.",
            .how_to_fix =
                "Give back in each destroy function everything the matching create took: table "
                "slots, handles, driver objects.",
            .proven_by = "`DEVICE_TABLE_EXHAUSTED`", .unusual_use = kLifecycleUnusualUse) {
  SkipUnlessProvided(check, {PluginFunction::kCreateStream, PluginFunction::kDestroyStream,
                             PluginFunction::kCreateEvent, PluginFunction::kDestroyEvent,
                             PluginFunction::kRecordEvent, PluginFunction::kBlockHostForEvent});
  if (check.settings().plugin_reports_no_devices) {
    check.Skip(std::string(conform::kNoDevicesReason));
  }
  host::Platform& platform = check.platform();
  const bool with_timer = ProvidesTimers(platform);
  check.details() = {{"cycles", kRecreateCycles}, {"timers", with_timer}};
  if (auto failure =
          RunCycles(platform, check.settings().device_ordinal, with_timer, kRecreateCycles)) {
    const std::string message = fmt::format(
        "creating the device and its objects again after destroying them failed {}: TensorFlow "
        "creates and destroys streams, events and timers throughout a run, and test suites and "
        "servers create devices again in one process",
        failure->message());
    // The function that failed, where it is one this check tests, is the
    // root cause (lifecycle.no_growth is blocked by it).
    if (failure->culprit() && check.Tests(*failure->culprit())) {
      check.FailIn(*failure->culprit(), message);
    } else {
      check.Fail(message);
    }
  }
  if (!with_timer) check.details()["timers_skipped"] = "the plugin provides no timers (optional)";
}

SECTL_CHECK("lifecycle.no_growth", kRecommended,
            "Creating and destroying devices, streams, events and timers leaks no threads, memory "
            "or device allocations, and destroy_stream and destroy_event free every heap "
            "object their create made",
            .tests = {kDestroyDevice, kDestroyStream, kDestroyEvent, kDestroyTimer},
            .severity_reason =
                "Growth harms long-running processes only; nothing fails at once. No released "
                "TensorFlow destroys a device while it runs; events leak fastest under the "
                "latest TensorFlow, whose BlockHostUntilDone creates and destroys an event each "
                "time on a plugin without block_host_until_done",
            .establishes =
                "each kind of object is cycled on its own, so that what grows is blamed on its "
                "destroy function: over 50 cycles (after 5 to warm up) of creating and "
                "destroying a device alone, then of a stream, an event and (where provided) a "
                "timer on a device that stays, threads grow by at most 2, resident memory by at "
                "most 8 MiB, and `bytes_in_use` not at all (a stream's cycles judged beyond what "
                "waiting for a stream leaves); and over hundreds of "
                "`create_stream`/`destroy_stream` and `create_event`/`destroy_event` cycles the "
                "heap does not grow (16 bytes or half a heap block per cycle, in both halves of "
                "the run, is a leak), each object's leak judged on its own",
            .common_mistakes =
                "A helper thread per stream that `destroy_stream` never stops; a service thread "
                "or a logical-device context per device that `destroy_device` never releases; a "
                "staging buffer per stream or device memory per event that is never freed; a "
                "destroy function that forgets the object (`destroy_stream` or `destroy_event` "
                "that frees nothing).",
            .how_to_fix =
                "Make each destroy function undo its create: join the threads it started, free "
                "its buffers and device memory, and free the object itself. Run the plugin under "
                "a leak checker through repeated create/destroy cycles.",
            .proven_by =
                "`LEAKS_STREAM_THREADS`, `LEAKS_MEMORY_PER_STREAM`, "
                "`LEAKS_DEVICE_MEMORY_PER_EVENT`, `STREAM_DESTROY_LEAKS`, `EVENT_DESTROY_LEAKS`, "
                "`STREAM_AND_EVENT_DESTROY_LEAK`, `DEVICE_DESTROY_LEAKS_MEMORY`, "
                "`DEVICE_DESTROY_LEAKS_THREAD`",
            .unusual_use = kLifecycleUnusualUse) {
  SkipUnlessProvided(check, {PluginFunction::kCreateStream, PluginFunction::kDestroyStream,
                             PluginFunction::kCreateEvent, PluginFunction::kDestroyEvent,
                             PluginFunction::kRecordEvent, PluginFunction::kBlockHostForEvent});
  if (check.settings().plugin_reports_no_devices) {
    check.Skip(std::string(conform::kNoDevicesReason));
  }
  check.details() = {{"cycles", kMeasuredCycles},
                     {"warm_up_cycles", kWarmUpCycles},
                     {"timers", ProvidesTimers(check.platform())}};
  JudgeFootprintPerObject(check);
  // One small object per cycle is far below the slack above: measured on
  // the heap, object by object. An allocator other than glibc's (a
  // sanitizer's, or one the plugin brings) shows nothing to mallinfo2: say
  // so rather than pass on a measurement that cannot see a leak.
  if (HeapNow().bytes == 0) {
    check.details()["heap_measured"] = false;
    check.details()["heap_not_measured_because"] =
        "mallinfo2 reports no heap in use: malloc is not glibc's in the plugin's process";
    return;
  }
  JudgeHeapPerObject(check);
}

}  // namespace sectl::checks
