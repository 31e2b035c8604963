#include "bench/latency_bench.h"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <thread>

#include "abi/event_status.h"
#include "bench/copy_buffers.h"
#include "bench/host_ceiling.h"
#include "bench/spin_wait.h"
#include "bench/statistics.h"
#include "host/event.h"
#include "host/memory.h"
#include "host/platform.h"
#include "host/stream.h"

namespace sectl::bench {
namespace {

using abi::PluginFunction;
using Clock = std::chrono::steady_clock;

constexpr uint64_t kTinyCopyBytes = 4;
constexpr int kMaxOperationsPerSample = 1000;

// What the operations work with: one stream, a completed event, tiny buffers.
struct Fixture {
  const host::Device& device;
  std::unique_ptr<host::Stream> stream;
  std::unique_ptr<host::Event> completed_event;
  host::DeviceMemory tiny_device;
  std::optional<PageableBuffer> tiny_host;
};

// Performs `count` operations and returns the seconds they took.
using Operation = std::function<Expected<double>(Fixture&, int count)>;

struct LatencyOperation {
  std::string_view name;
  std::string_view description;
  std::vector<PluginFunction> needs;
  Operation run;
};

double SecondsSince(Clock::time_point started) {
  return std::chrono::duration<double>(Clock::now() - started).count();
}

// An operation that never completes: a latency that is no number. Measure
// reports it as not measurable.
Error NeverCompleted(std::string why) { return Error(ErrorCode::kTimeout, std::move(why)); }

Expected<double> EnqueueTinyCopies(Fixture& fixture, int count) {
  const auto started = Clock::now();
  for (int i = 0; i < count; ++i) {
    if (auto copied = fixture.stream->MemcpyHtoD(fixture.tiny_device.base(),
                                                 fixture.tiny_host->data(), kTinyCopyBytes);
        !copied)
      return tl::unexpected(copied.error());
  }
  const double seconds = SecondsSince(started);
  // The copies run outside the timed interval: only enqueueing is measured.
  if (auto done = fixture.stream->BlockHostUntilDone(); !done) return tl::unexpected(done.error());
  return seconds;
}

Expected<double> HostCallbackRoundTrips(Fixture& fixture, int count) {
  // A fresh stream per sample, so the stream's callback records do not pile up.
  auto stream = fixture.device.CreateStream();
  if (!stream) return tl::unexpected(stream.error());
  const auto started = Clock::now();
  for (int i = 0; i < count; ++i) {
    auto record = (*stream)->EnqueueHostCallback(nullptr);
    if (!record) return tl::unexpected(record.error());
    if (!SpinUntil([&] { return (*record)->calls.load(std::memory_order_acquire) > 0; },
                   kStallBound)) {
      return tl::unexpected(NeverCompleted(
          fmt::format("host_callback accepted a callback on an idle stream and never ran it "
                      "(not within {} s)",
                      kStallBound.count())));
    }
  }
  return SecondsSince(started);
}

Expected<double> RecordEventToComplete(Fixture& fixture, int count) {
  auto event = fixture.device.CreateEvent();
  if (!event) return tl::unexpected(event.error());
  const auto started = Clock::now();
  for (int i = 0; i < count; ++i) {
    if (auto recorded = fixture.stream->RecordEvent(**event); !recorded)
      return tl::unexpected(recorded.error());
    Error poll_error(ErrorCode::kInternal, "");
    bool failed = false;
    SE_EventStatus last = SE_EVENT_UNKNOWN;
    const bool completed = SpinUntil(
        [&] {
          auto status = (*event)->Status();
          if (!status) {
            poll_error = status.error();
            failed = true;
            return true;
          }
          last = *status;
          return *status == SE_EVENT_COMPLETE || *status == SE_EVENT_ERROR;
        },
        kStallBound);
    if (failed) return tl::unexpected(poll_error);
    if (!completed) {
      return tl::unexpected(NeverCompleted(
          fmt::format("an event recorded on an idle stream never completed: get_event_status still "
                      "answered {} after {} s",
                      abi::EventStatusName(last), kStallBound.count())));
    }
  }
  return SecondsSince(started);
}

Expected<double> AllocateAndFree(Fixture& fixture, int count) {
  const auto started = Clock::now();
  for (int i = 0; i < count; ++i) {
    auto memory = fixture.device.Allocate(256);
    if (!memory) return tl::unexpected(memory.error());
  }
  return SecondsSince(started);
}

Expected<double> CreateAndDestroyStreams(Fixture& fixture, int count) {
  const auto started = Clock::now();
  for (int i = 0; i < count; ++i) {
    auto stream = fixture.device.CreateStream();
    if (!stream) return tl::unexpected(stream.error());
  }
  return SecondsSince(started);
}

Expected<double> CreateAndDestroyEvents(Fixture& fixture, int count) {
  const auto started = Clock::now();
  for (int i = 0; i < count; ++i) {
    auto event = fixture.device.CreateEvent();
    if (!event) return tl::unexpected(event.error());
  }
  return SecondsSince(started);
}

Expected<double> PollCompletedEvent(Fixture& fixture, int count) {
  const auto started = Clock::now();
  for (int i = 0; i < count; ++i) {
    auto status = fixture.completed_event->Status();
    if (!status) return tl::unexpected(status.error());
  }
  return SecondsSince(started);
}

Expected<double> SynchronizeIdleStream(Fixture& fixture, int count) {
  const auto started = Clock::now();
  for (int i = 0; i < count; ++i) {
    if (auto done = fixture.stream->BlockHostUntilDone(); !done)
      return tl::unexpected(done.error());
  }
  return SecondsSince(started);
}

const std::vector<LatencyOperation>& Operations() {
  static const std::vector<LatencyOperation> operations = {
      {"enqueue_tiny_copy",
       "enqueue a 4-byte memcpy_htod (amortised over a batch)",
       {PluginFunction::kMemcpyHtoD},
       EnqueueTinyCopies},
      {"host_callback_round_trip",
       "host_callback enqueued on an idle stream until it runs",
       {PluginFunction::kHostCallback},
       HostCallbackRoundTrips},
      {"event_record_to_complete",
       "record_event on an idle stream until get_event_status says complete",
       {PluginFunction::kRecordEvent, PluginFunction::kGetEventStatus},
       RecordEventToComplete},
      {"allocate_deallocate",
       "allocate and deallocate 256 bytes of device memory",
       {PluginFunction::kAllocate, PluginFunction::kDeallocate},
       AllocateAndFree},
      {"stream_create_destroy",
       "create_stream and destroy_stream",
       {PluginFunction::kCreateStream, PluginFunction::kDestroyStream},
       CreateAndDestroyStreams},
      {"event_create_destroy",
       "create_event and destroy_event",
       {PluginFunction::kCreateEvent, PluginFunction::kDestroyEvent},
       CreateAndDestroyEvents},
      {"get_event_status",
       "get_event_status of a completed event (one poll)",
       {PluginFunction::kGetEventStatus},
       PollCompletedEvent},
      {"block_host_until_done_idle",
       "block_host_until_done on an idle stream",
       {PluginFunction::kBlockHostUntilDone},
       SynchronizeIdleStream},
  };
  return operations;
}

Expected<Fixture> MakeFixture(const host::Device& device) {
  Fixture fixture{.device = device};
  auto stream = device.CreateStream();
  if (!stream) return tl::unexpected(stream.error());
  fixture.stream = std::move(*stream);
  auto event = device.CreateEvent();
  if (!event) return tl::unexpected(event.error());
  fixture.completed_event = std::move(*event);
  if (auto recorded = fixture.stream->RecordEvent(*fixture.completed_event); !recorded)
    return tl::unexpected(recorded.error());
  if (auto done = fixture.stream->BlockHostUntilDone(); !done) return tl::unexpected(done.error());
  auto memory = device.Allocate(kTinyCopyBytes);
  if (!memory) return tl::unexpected(memory.error());
  fixture.tiny_device = std::move(*memory);
  auto host = PageableBuffer::Allocate(kTinyCopyBytes);
  if (!host) return tl::unexpected(host.error());
  fixture.tiny_host = std::move(*host);
  return fixture;
}

LatencyResult Measure(const LatencyOperation& operation, Fixture& fixture,
                      const host::Device& device, const SamplingPlan& plan) {
  LatencyResult result{.operation = std::string(operation.name),
                       .description = std::string(operation.description)};
  for (const PluginFunction needed : operation.needs) {
    if (!device.platform().Provides(needed)) {
      result.error = fmt::format("the plugin does not provide {}", abi::QualifiedName(needed));
      return result;
    }
  }
  // Warm-up, which also sizes the batch one sample times.
  auto calibrated = CalibrateBatch([&](int count) { return operation.run(fixture, count); },
                                   kMaxOperationsPerSample);
  if (!calibrated) {
    if (calibrated.error().code() == ErrorCode::kTimeout) {
      MarkNotMeasurable(result, calibrated.error().message());
    } else {
      result.error = calibrated.error().message();
    }
    return result;
  }
  const int count = *calibrated;
  result.operations_per_sample = count;
  auto samples = SampleUntilStable(plan, [&]() -> Expected<double> {
    auto seconds = operation.run(fixture, count);
    if (!seconds) return seconds;
    return *seconds / count * 1e9;
  });
  if (!samples) {
    if (samples.error().code() == ErrorCode::kTimeout) {
      MarkNotMeasurable(result, samples.error().message());
    } else {
      result.error = samples.error().message();
    }
    return result;
  }
  result.ns = Describe(samples->values);
  result.stable = samples->stable;
  return result;
}

}  // namespace

std::vector<std::string_view> LatencyOperationNames() {
  std::vector<std::string_view> names;
  for (const auto& operation : Operations()) names.push_back(operation.name);
  return names;
}

void RunLatencyBench(const host::Device& device, const SamplingPlan& plan, BenchReport& report,
                     const ProgressCallback& progress, StepDeadline* deadline) {
  auto fixture = MakeFixture(device);
  std::optional<std::string> stopped;
  for (const auto& operation : Operations()) {
    if (progress) progress(operation.name);
    if (deadline != nullptr && !stopped) stopped = deadline->Begin(operation.name);
    if (stopped) {
      report.latency.push_back({.operation = std::string(operation.name),
                                .description = std::string(operation.description),
                                .error = *stopped});
      continue;
    }
    if (!fixture) {
      report.latency.push_back({.operation = std::string(operation.name),
                                .description = std::string(operation.description),
                                .error = "setting up: " + fixture.error().message()});
      continue;
    }
    report.latency.push_back(Measure(operation, *fixture, device, plan));
    if (deadline != nullptr) deadline->End();
  }
}

}  // namespace sectl::bench
