#include "bench/run_bench.h"

#include <fmt/format.h>
#include <poll.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <nlohmann/json.hpp>

#include "base/file_digest.h"
#include "base/timestamp.h"
#include "bench/bench_json.h"
#include "bench/latency_bench.h"
#include "host/device.h"
#include "host/journal.h"
#include "host/platform.h"
#include "isolation/child_error.h"
#include "isolation/child_process.h"
#include "isolation/shared_memory.h"
#include "loader/plugin_library.h"

namespace sectl::bench {
namespace {

// The child's exit codes: a report, or an error about the plugin.
constexpr int kChildReported = 0;
constexpr int kChildFailed = 3;

// Progress shared by the measuring child with the supervising parent. The
// step text is guarded by a sequence number (odd while being written), so
// the parent never shows a half-written one.
struct ProgressRegion {
  std::atomic<int> done{0};
  std::atomic<int> total{0};
  std::atomic<uint32_t> step_sequence{0};
  std::array<char, 96> step{};

  void Publish(int finished, std::string_view text) {
    step_sequence.fetch_add(1, std::memory_order_acq_rel);
    const size_t length = std::min(text.size(), step.size() - 1);
    std::memcpy(step.data(), text.data(), length);
    step[length] = '\0';
    step_sequence.fetch_add(1, std::memory_order_acq_rel);
    done.store(finished, std::memory_order_release);
  }

  std::optional<std::string> ReadStep() const {
    const uint32_t before = step_sequence.load(std::memory_order_acquire);
    if (before % 2 != 0) return std::nullopt;
    std::string text(step.data(), strnlen(step.data(), step.size()));
    if (step_sequence.load(std::memory_order_acquire) != before) return std::nullopt;
    return text;
  }
};

// Registers the plugin and measures; runs in the child (or in sectl itself
// without isolation).
Expected<BenchReport> Measure(const BenchOptions& options, host::Journal& journal,
                              ProgressRegion& progress) {
  // Clock reads in every journal entry would sit inside the measured
  // intervals; the journal still records every call, untimed.
  journal.set_timed(false);
  auto library = loader::PluginLibrary::Open(options.plugin_path, {.lazy = options.lazy});
  if (!library) return tl::unexpected(library.error());
  auto platform = host::Platform::Create(*library, journal, {.generation = options.generation});
  if (!platform) return tl::unexpected(platform.error());
  auto count = (*platform)->DeviceCount();
  if (!count) return tl::unexpected(count.error());
  if (options.device_ordinal < 0 || options.device_ordinal >= *count) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("--device {}: the plugin has {} device{} (ordinals 0 to {})",
                            options.device_ordinal, *count, *count == 1 ? "" : "s", *count - 1));
  }
  auto device = (*platform)->CreateDevice(options.device_ordinal);
  if (!device) return tl::unexpected(device.error());

  BenchReport report;
  report.platform_name = (*platform)->name();
  report.device_ordinal = options.device_ordinal;
  report.device_name = (*device)->hardware_name();

  int finished = 0;
  auto on_step = [&](std::string_view step) { progress.Publish(finished++, step); };
  if (options.kind == BenchKind::kMemcpy) {
    report.kind = "memcpy";
    progress.total = CountMemcpySteps(options.memcpy, **device);
    auto measured = RunMemcpyBench(**device, options.memcpy, report, on_step);
    if (!measured) return tl::unexpected(measured.error());
  } else {
    report.kind = "latency";
    progress.total = static_cast<int>(LatencyOperationNames().size());
    RunLatencyBench(**device, options.latency_plan, report, on_step);
  }
  progress.Publish(finished, "done");
  return report;
}

// Supervises the measuring child: reports progress, and kills it when it
// stops making any (no plugin call returns and no measurement finishes).
Expected<isolation::ChildResult> Supervise(isolation::ChildProcess& child,
                                           const BenchOptions& options,
                                           const ProgressRegion& progress,
                                           const host::Journal& journal) {
  using Clock = std::chrono::steady_clock;
  auto last_change = Clock::now();
  uint64_t last_calls = journal.call_count();
  int last_done = -1;
  std::string last_step;
  while (!child.Poll()) {
    auto descriptors = child.PollDescriptors();
    ::poll(descriptors.data(), descriptors.size(), 100);

    const uint64_t calls = journal.call_count();
    const int done = progress.done.load(std::memory_order_acquire);
    const auto step = progress.ReadStep();
    if (calls != last_calls || done != last_done) {
      last_calls = calls;
      last_change = Clock::now();
    }
    if (options.on_progress && step && (done != last_done || *step != last_step)) {
      options.on_progress(done, progress.total.load(), *step);
      last_step = *step;
    }
    last_done = done;
    if (Clock::now() - last_change > options.stall_timeout) {
      return Fail(
          ErrorCode::kTimeout,
          fmt::format("{}: the plugin made no progress for {:.0f} s {}{}; it was killed",
                      options.plugin_path, static_cast<double>(options.stall_timeout.count()) / 1e3,
                      journal.WhereCallsStopped(),
                      last_step.empty() ? "" : fmt::format(" while measuring {}", last_step)));
    }
  }
  return child.TakeResult();
}

Expected<BenchReport> MeasureIsolated(const BenchOptions& options) {
  auto region = isolation::SharedObject<host::JournalRegion>::Create();
  if (!region) return tl::unexpected(region.error());
  auto progress = isolation::SharedObject<ProgressRegion>::Create();
  if (!progress) return tl::unexpected(progress.error());
  host::Journal journal(region->get());

  auto child = isolation::ChildProcess::Start(
      [&](int result_fd) {
        auto report = Measure(options, journal, *progress->get());
        if (!report) {
          isolation::WriteResult(result_fd, isolation::EncodeChildError(report.error()));
          return kChildFailed;
        }
        isolation::WriteResult(result_fd, BenchReportToJsonText(*report));
        return kChildReported;
      },
      // The stall timeout bounds a hang; this bounds a run that keeps
      // making progress for ever.
      {.timeout = std::chrono::hours(6), .confinement = options.confinement});
  if (!child) return tl::unexpected(child.error());
  auto ended = Supervise(*child, options, *progress->get(), journal);
  if (!ended) return tl::unexpected(ended.error());

  const std::string& plugin = options.plugin_path;
  switch (ended->end) {
    case isolation::ChildEnd::kTimedOut:
      return Fail(ErrorCode::kTimeout,
                  fmt::format("{}: the benchmark did not finish in time {}; it was killed", plugin,
                              journal.WhereCallsStopped()));
    case isolation::ChildEnd::kSignaled:
      if (auto exhaustion = isolation::DescribeExhaustion(*ended, options.confinement)) {
        return Fail(ErrorCode::kCrashed, fmt::format("{}: the plugin {} {}", plugin, *exhaustion,
                                                     journal.WhereCallsStopped()));
      }
      return Fail(ErrorCode::kCrashed,
                  fmt::format("{}: the plugin crashed with {} {}", plugin,
                              isolation::SignalName(ended->signal), journal.WhereCallsStopped()));
    case isolation::ChildEnd::kExited:
      break;
  }
  if (ended->exit_code == kChildFailed && !ended->result.empty())
    return tl::unexpected(isolation::DecodeChildError(ended->result, "the bench process"));
  if (ended->exit_code != kChildReported || ended->result.empty()) {
    return Fail(ErrorCode::kPluginError,
                fmt::format("{}: the plugin ended the process with exit status {} {}", plugin,
                            ended->exit_code, journal.WhereCallsStopped()));
  }
  auto report = ParseBenchReport(ended->result);
  if (!report) return tl::unexpected(report.error().WithContext("reading the benchmark's report"));
  return report;
}

}  // namespace

Expected<BenchReport> RunBench(const BenchOptions& options) {
  const auto started = std::chrono::system_clock::now();
  Expected<BenchReport> report;
  if (options.isolate) {
    report = MeasureIsolated(options);
  } else {
    host::Journal journal;
    ProgressRegion progress;
    report = Measure(options, journal, progress);
  }
  if (!report) return report;

  report->tool_version = options.tool_version;
  report->plugin_path = options.plugin_path;
  if (auto digest = Sha256OfFile(options.plugin_path)) report->plugin_sha256 = *digest;
  report->host = DescribeHost();
  report->command_line = options.command_line;
  report->started_at = IsoTimestamp(started);
  report->duration_s =
      std::chrono::duration<double>(std::chrono::system_clock::now() - started).count();
  report->threads = 1;
  return report;
}

}  // namespace sectl::bench
