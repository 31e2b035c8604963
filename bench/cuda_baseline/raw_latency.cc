#include "raw_latency.h"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <thread>

#include "baseline_report.h"
#include "bench/copy_buffers.h"
#include "bench/statistics.h"
#include "cuda_buffers.h"
#include "cuda_error.h"

namespace sectl::cuda_baseline {
namespace {

using Clock = std::chrono::steady_clock;

// As in lib/bench/latency_bench.cc.
constexpr auto kCompletionBound = std::chrono::seconds(5);
constexpr uint64_t kTinyCopyBytes = 4;
constexpr uint64_t kTinyAllocationBytes = 256;
constexpr int kMaxOperationsPerSample = 1000;

// What the operations work with: one stream, a completed event, tiny
// buffers, and the count of host functions that have run.
struct Fixture {
  Stream stream;
  Event completed_event;
  DeviceMemory tiny_device;
  std::optional<bench::PageableBuffer> tiny_host;
  // Bumped by each host function. It outlives them all: the run waits for
  // the device before it lets the fixture go.
  std::atomic<uint64_t> host_functions_run{0};
};

// Performs `count` operations and returns the seconds they took.
using Operation = Expected<double> (*)(Fixture&, int count);

struct RawOperation {
  std::string_view name;  // sectl bench latency's
  std::string_view description;
  Operation run;
};

double SecondsSince(Clock::time_point started) {
  return std::chrono::duration<double>(Clock::now() - started).count();
}

template <typename Predicate>
Expected<void> SpinUntil(Predicate done, std::string_view what) {
  const auto started = Clock::now();
  for (int spins = 0; !done(); ++spins) {
    // Spin for a prompt answer, then leave the core to CUDA's threads.
    if (spins > 1000) std::this_thread::yield();
    if (Clock::now() - started > kCompletionBound) {
      return Fail(ErrorCode::kTimeout,
                  fmt::format("{} did not happen within {} s", what, kCompletionBound.count()));
    }
  }
  return {};
}

Expected<double> EnqueueTinyCopies(Fixture& fixture, int count) {
  const auto started = Clock::now();
  for (int i = 0; i < count; ++i) {
    if (auto copied =
            Check(cudaMemcpyAsync(fixture.tiny_device.get(), fixture.tiny_host->data(),
                                  kTinyCopyBytes, cudaMemcpyHostToDevice, fixture.stream.get()),
                  "cudaMemcpyAsync");
        !copied) {
      return tl::unexpected(copied.error());
    }
  }
  const double seconds = SecondsSince(started);
  // The copies run outside the timed interval: only enqueueing is measured.
  if (auto done = Check(cudaStreamSynchronize(fixture.stream.get()), "cudaStreamSynchronize");
      !done) {
    return tl::unexpected(done.error());
  }
  return seconds;
}

void CUDART_CB CountHostFunction(void* counter) {
  static_cast<std::atomic<uint64_t>*>(counter)->fetch_add(1, std::memory_order_release);
}

Expected<double> HostFunctionRoundTrips(Fixture& fixture, int count) {
  // A fresh stream per sample, as sectl's measurement has.
  auto stream = CreateStream();
  if (!stream) return tl::unexpected(stream.error());
  const auto started = Clock::now();
  for (int i = 0; i < count; ++i) {
    const uint64_t before = fixture.host_functions_run.load(std::memory_order_acquire);
    if (auto launched =
            Check(cudaLaunchHostFunc(stream->get(), CountHostFunction, &fixture.host_functions_run),
                  "cudaLaunchHostFunc");
        !launched) {
      return tl::unexpected(launched.error());
    }
    auto ran = SpinUntil(
        [&] { return fixture.host_functions_run.load(std::memory_order_acquire) > before; },
        "the host function");
    if (!ran) return tl::unexpected(ran.error());
  }
  return SecondsSince(started);
}

Expected<double> RecordEventToComplete(Fixture& fixture, int count) {
  auto event = CreateSyncEvent();
  if (!event) return tl::unexpected(event.error());
  const auto started = Clock::now();
  for (int i = 0; i < count; ++i) {
    if (auto recorded =
            Check(cudaEventRecord(event->get(), fixture.stream.get()), "cudaEventRecord");
        !recorded) {
      return tl::unexpected(recorded.error());
    }
    cudaError_t query = cudaErrorNotReady;
    auto completed = SpinUntil(
        [&] {
          query = cudaEventQuery(event->get());
          return query != cudaErrorNotReady;
        },
        "the recorded event's completion");
    if (!completed) return tl::unexpected(completed.error());
    if (auto done = Check(query, "cudaEventQuery"); !done) return tl::unexpected(done.error());
  }
  return SecondsSince(started);
}

Expected<double> AllocateAndFree(Fixture& /*fixture*/, int count) {
  const auto started = Clock::now();
  for (int i = 0; i < count; ++i) {
    auto memory = AllocateDevice(kTinyAllocationBytes);
    if (!memory) return tl::unexpected(memory.error());
  }
  return SecondsSince(started);
}

Expected<double> CreateAndDestroyStreams(Fixture& /*fixture*/, int count) {
  const auto started = Clock::now();
  for (int i = 0; i < count; ++i) {
    auto stream = CreateStream();
    if (!stream) return tl::unexpected(stream.error());
  }
  return SecondsSince(started);
}

Expected<double> CreateAndDestroyEvents(Fixture& /*fixture*/, int count) {
  const auto started = Clock::now();
  for (int i = 0; i < count; ++i) {
    auto event = CreateSyncEvent();
    if (!event) return tl::unexpected(event.error());
  }
  return SecondsSince(started);
}

Expected<double> PollCompletedEvent(Fixture& fixture, int count) {
  const auto started = Clock::now();
  for (int i = 0; i < count; ++i) {
    if (auto polled = Check(cudaEventQuery(fixture.completed_event.get()), "cudaEventQuery");
        !polled) {
      return tl::unexpected(polled.error());
    }
  }
  return SecondsSince(started);
}

Expected<double> SynchronizeIdleStream(Fixture& fixture, int count) {
  const auto started = Clock::now();
  for (int i = 0; i < count; ++i) {
    if (auto done = Check(cudaStreamSynchronize(fixture.stream.get()), "cudaStreamSynchronize");
        !done) {
      return tl::unexpected(done.error());
    }
  }
  return SecondsSince(started);
}

const std::vector<RawOperation>& Operations() {
  static const std::vector<RawOperation> operations = {
      {"enqueue_tiny_copy",
       "cudaMemcpyAsync of 4 bytes from pageable memory, enqueued (amortised over a batch)",
       EnqueueTinyCopies},
      {"host_callback_round_trip", "cudaLaunchHostFunc on an idle stream until the function runs",
       HostFunctionRoundTrips},
      {"event_record_to_complete",
       "cudaEventRecord on an idle stream until cudaEventQuery says complete",
       RecordEventToComplete},
      {"allocate_deallocate", "cudaMalloc and cudaFree of 256 bytes", AllocateAndFree},
      {"stream_create_destroy", "cudaStreamCreateWithFlags (non-blocking) and cudaStreamDestroy",
       CreateAndDestroyStreams},
      {"event_create_destroy", "cudaEventCreateWithFlags (timing disabled) and cudaEventDestroy",
       CreateAndDestroyEvents},
      {"get_event_status", "cudaEventQuery of a completed event (one poll)", PollCompletedEvent},
      {"block_host_until_done_idle", "cudaStreamSynchronize on an idle stream",
       SynchronizeIdleStream},
  };
  return operations;
}

// Moves the value of `result` into `target`, or returns its error.
template <typename T>
Expected<void> Take(Expected<T> result, T& target) {
  if (!result) return tl::unexpected(result.error());
  target = std::move(*result);
  return {};
}

Expected<std::unique_ptr<Fixture>> MakeFixture() {
  auto fixture = std::make_unique<Fixture>();
  if (auto done = Take(CreateStream(), fixture->stream); !done) return tl::unexpected(done.error());
  if (auto done = Take(CreateSyncEvent(), fixture->completed_event); !done) {
    return tl::unexpected(done.error());
  }
  if (auto recorded = Check(cudaEventRecord(fixture->completed_event.get(), fixture->stream.get()),
                            "cudaEventRecord");
      !recorded) {
    return tl::unexpected(recorded.error());
  }
  if (auto done = Check(cudaStreamSynchronize(fixture->stream.get()), "cudaStreamSynchronize");
      !done) {
    return tl::unexpected(done.error());
  }
  if (auto done = Take(AllocateDevice(kTinyCopyBytes), fixture->tiny_device); !done) {
    return tl::unexpected(done.error());
  }
  auto host = bench::PageableBuffer::Allocate(kTinyCopyBytes);
  if (!host) return tl::unexpected(host.error());
  fixture->tiny_host = std::move(*host);
  return fixture;
}

bench::LatencyResult Measure(const RawOperation& operation, Fixture& fixture,
                             const bench::SamplingPlan& plan) {
  bench::LatencyResult result{.operation = std::string(operation.name),
                              .description = std::string(operation.description)};
  // Warm-up, which also sizes the batch one sample times.
  auto calibrated = bench::CalibrateBatch([&](int count) { return operation.run(fixture, count); },
                                          kMaxOperationsPerSample);
  if (!calibrated) {
    result.error = calibrated.error().message();
    return result;
  }
  const int count = *calibrated;
  result.operations_per_sample = count;
  auto samples = bench::SampleUntilStable(plan, [&]() -> Expected<double> {
    auto seconds = operation.run(fixture, count);
    if (!seconds) return seconds;
    return *seconds / count * 1e9;
  });
  if (!samples) {
    result.error = samples.error().message();
    return result;
  }
  result.ns = bench::Describe(samples->values);
  result.stable = samples->stable;
  return result;
}

}  // namespace

std::vector<std::string_view> RawLatencyOperationNames() {
  std::vector<std::string_view> names;
  for (const auto& operation : Operations()) names.push_back(operation.name);
  return names;
}

void MeasureRawLatencies(const bench::SamplingPlan& plan, bool progress,
                         bench::BenchReport& report) {
  auto fixture = MakeFixture();
  for (const auto& operation : Operations()) {
    if (progress) {
      std::fprintf(stderr, "%.*s\n", static_cast<int>(operation.name.size()),
                   operation.name.data());
    }
    if (!fixture) {
      report.latency.push_back({.operation = std::string(operation.name),
                                .description = std::string(operation.description),
                                .error = "setting up: " + fixture.error().message()});
      continue;
    }
    report.latency.push_back(Measure(operation, **fixture, plan));
  }
  // Every host function has run before the counter they bump goes away.
  if (fixture) static_cast<void>(cudaDeviceSynchronize());
}

Expected<bench::BenchReport> RunLatencyBaseline(const LatencyBaselineOptions& options) {
  const auto started = std::chrono::system_clock::now();
  auto report = StartBaselineReport("latency", options.device, options.command_line, started);
  if (!report) return report;
  MeasureRawLatencies(options.plan, options.progress, *report);
  FinishBaselineReport(*report, started);
  return report;
}

}  // namespace sectl::cuda_baseline
