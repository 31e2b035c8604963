#include "bench/run_bench.h"

#include <fmt/format.h>
#include <poll.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <nlohmann/json.hpp>

#include "base/timestamp.h"
#include "bench/bench_json.h"
#include "bench/bench_series.h"
#include "bench/latency_bench.h"
#include "bench/statistics.h"
#include "bench/step_deadline.h"
#include "host/device.h"
#include "host/journal.h"
#include "host/platform.h"
#include "isolation/child_error.h"
#include "isolation/child_outcome.h"
#include "isolation/child_process.h"
#include "isolation/interruption.h"
#include "isolation/shared_memory.h"
#include "loader/plugin_file_pin.h"
#include "loader/plugin_library.h"

namespace sectl::bench {
namespace {

using isolation::kChildFailed;
using isolation::kChildReported;

double Seconds(std::chrono::milliseconds duration) {
  return std::chrono::duration<double>(duration).count();
}

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
  // The run's setup counts towards its deadline.
  StepDeadline deadline(options.stall_timeout, RunDeadlineOf(options));
  // Clock reads in every journal entry would sit inside the measured
  // intervals; the journal still records every call, untimed.
  journal.set_timed(false);
  auto library = loader::PluginLibrary::Open(options.plugin_path, {.lazy = options.lazy});
  if (!library) return tl::unexpected(library.error());
  auto platform = host::Platform::Create(*library, journal, {.generation = options.generation});
  if (!platform) return tl::unexpected(platform.error());
  auto count = (*platform)->DeviceCount();
  if (!count) return tl::unexpected(count.error());
  if (*count < 1) {
    // A machine without the device, or a count no device list can have:
    // nothing to measure, and no ordinal the user could have chosen instead.
    return Fail(ErrorCode::kPluginError,
                fmt::format("the plugin reports no devices (get_device_count answered {}): "
                            "nothing to measure",
                            *count));
  }
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
    auto measured = RunMemcpyBench(**device, options.memcpy, report, on_step, &deadline);
    if (!measured) return tl::unexpected(measured.error());
  } else {
    report.kind = "latency";
    progress.total = static_cast<int>(LatencyOperationNames().size());
    RunLatencyBench(**device, options.latency_plan, report, on_step, &deadline);
  }
  report.stopped = deadline.stopped();
  progress.Publish(finished, "done");
  return report;
}

// The measuring child's deadline, on the parent's clock: the run's own
// deadline, which the child keeps between steps, and --timeout for the
// step under way when it passed. The progress counters in shared memory
// and the child's own clock are the plugin's to write, so they may end a
// run sooner (Supervise), never later.
std::chrono::milliseconds ChildDeadline(const BenchOptions& options) {
  // A year at most: ChildProcess compares it with the clock's nanoseconds.
  constexpr std::chrono::milliseconds kLongest = std::chrono::hours(24 * 365);
  const auto run = RunDeadlineOf(options);
  if (run >= kLongest || options.stall_timeout >= kLongest - run) return kLongest;
  return run + options.stall_timeout;
}

// Supervises the measuring child: reports progress, and kills it when it
// stops making any (no plugin call returns and no measurement finishes).
// Its deadline (ChildDeadline) is the child's own, kept by ChildProcess.
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
      // The stall timeout ends a hang early; this bounds a run whatever
      // the plugin writes into the progress counters.
      {.timeout = ChildDeadline(options), .confinement = options.confinement});
  if (!child) return tl::unexpected(child.error());
  auto ended = Supervise(*child, options, *progress->get(), journal);
  if (!ended) return tl::unexpected(ended.error());

  const std::string& plugin = options.plugin_path;
  const isolation::ChildOutcome judged = isolation::JudgeChild(*ended, options.confinement);
  switch (judged.blame) {
    case isolation::Blame::kSectl:
      return Fail(ErrorCode::kInternal, judged.description);
    case isolation::Blame::kLimit:
    case isolation::Blame::kPlugin: {
      if (ended->end == isolation::ChildEnd::kTimedOut) {
        return Fail(ErrorCode::kTimeout,
                    fmt::format("{}: the benchmark did not finish within {:g} s (its deadline "
                                "of {:g} s for the setup and its {} steps, and --timeout {:g} s "
                                "for the step under way) {}; it was killed",
                                plugin, Seconds(ended->timeout), Seconds(RunDeadlineOf(options)),
                                MostSteps(options), Seconds(options.stall_timeout),
                                journal.WhereCallsStopped()));
      }
      const ErrorCode code = ended->end == isolation::ChildEnd::kTimedOut ? ErrorCode::kTimeout
                             : ended->end == isolation::ChildEnd::kExited ? ErrorCode::kPluginError
                                                                          : ErrorCode::kCrashed;
      return Fail(code, fmt::format("{}: the plugin {} {}", plugin, judged.description,
                                    journal.WhereCallsStopped()));
    }
    case isolation::Blame::kNone:
      break;
  }
  if (ended->exit_code == kChildFailed) {
    return tl::unexpected(isolation::DecodeChildError(ended->result, "the bench process"));
  }
  auto report = ParseBenchReport(ended->result);
  if (!report) return tl::unexpected(report.error().WithContext("reading the benchmark's report"));
  return report;
}

Expected<BenchReport> MeasureOnce(const BenchOptions& options) {
  if (options.isolate) return MeasureIsolated(options);
  host::Journal journal;
  ProgressRegion progress;
  return Measure(options, journal, progress);
}

// Whether most of `runs` settled.
template <typename Result>
bool MostlyStable(const std::vector<const Result*>& runs) {
  size_t stable = 0;
  for (const Result* run : runs) stable += run->stable ? 1 : 0;
  return 2 * stable > runs.size();
}

template <typename Result>
Distribution CombineDistributions(const std::vector<const Result*>& runs,
                                  Distribution Result::*member) {
  std::vector<Distribution> distributions;
  distributions.reserve(runs.size());
  for (const Result* run : runs) distributions.push_back(run->*member);
  return CombineRuns(distributions);
}

BandwidthResult CombineBandwidth(const std::vector<const BandwidthResult*>& runs) {
  // The verification of a run that found something wrong outweighs those
  // that did not; the result starts as that run's, with all it says.
  const BandwidthResult* told = runs.front();
  for (const BandwidthResult* run : runs) {
    if (run->verification.status == VerificationStatus::kFailed ||
        run->verification.status == VerificationStatus::kNotVerified) {
      told = run;
      break;
    }
  }
  BandwidthResult combined = *told;
  combined.gbps = CombineDistributions(runs, &BandwidthResult::gbps);
  combined.stable = MostlyStable(runs);
  std::vector<Distribution> timers;
  for (const BandwidthResult* run : runs) {
    if (run->plugin_timer_gbps) timers.push_back(*run->plugin_timer_gbps);
    if (!combined.error && run->error) combined.error = run->error;
    combined.enqueue_excluded = combined.enqueue_excluded && run->enqueue_excluded;
    for (const std::string& warning : run->warnings) {
      if (std::find(combined.warnings.begin(), combined.warnings.end(), warning) ==
          combined.warnings.end())
        combined.warnings.push_back(warning);
    }
  }
  combined.plugin_timer_gbps.reset();
  if (timers.size() == runs.size()) combined.plugin_timer_gbps = CombineRuns(timers);
  std::vector<double> ceilings;
  ceilings.reserve(runs.size());
  for (const BandwidthResult* run : runs) ceilings.push_back(run->ceiling_gbps);
  combined.ceiling_gbps = Describe(ceilings).median;
  combined.ratio_to_ceiling =
      combined.ceiling_gbps > 0 ? combined.gbps.median / combined.ceiling_gbps : 0;
  // A run whose numbers were no bandwidth makes the others' no more believable.
  for (const BandwidthResult* run : runs) {
    if (run->not_measurable) {
      MarkNotMeasurable(combined, *run->not_measurable);
      break;
    }
  }
  return combined;
}

LatencyResult CombineLatency(const std::vector<const LatencyResult*>& runs) {
  LatencyResult combined = *runs.front();
  combined.ns = CombineDistributions(runs, &LatencyResult::ns);
  combined.stable = MostlyStable(runs);
  for (const LatencyResult* run : runs) {
    if (!combined.error && run->error) combined.error = run->error;
  }
  for (const LatencyResult* run : runs) {
    if (run->not_measurable) {
      MarkNotMeasurable(combined, *run->not_measurable);
      break;
    }
  }
  return combined;
}

// The `index`th element of `member` in every run.
template <typename Result>
std::vector<const Result*> Column(const std::vector<BenchReport>& runs,
                                  std::vector<Result> BenchReport::*member, size_t index) {
  std::vector<const Result*> column;
  column.reserve(runs.size());
  for (const BenchReport& run : runs) column.push_back(&(run.*member)[index]);
  return column;
}

}  // namespace

Expected<BenchReport> CombineBenchRuns(std::vector<BenchReport> runs) {
  if (runs.empty()) return Fail(ErrorCode::kInternal, "no runs to combine");
  if (runs.size() == 1) return std::move(runs.front());
  const BenchReport& first = runs.front();
  for (const BenchReport& run : runs) {
    // The ceilings may differ: a run skips the ceiling of a size none of
    // whose paths it could measure.
    bool same = run.kind == first.kind && run.results.size() == first.results.size() &&
                run.latency.size() == first.latency.size();
    for (size_t i = 0; same && i < run.results.size(); ++i) {
      same = SeriesKeyOf(run.results[i]) == SeriesKeyOf(first.results[i]) &&
             run.results[i].bytes == first.results[i].bytes;
    }
    for (size_t i = 0; same && i < run.latency.size(); ++i) {
      same = run.latency[i].operation == first.latency[i].operation;
    }
    if (!same) {
      return Fail(ErrorCode::kInternal, "the repeated runs did not measure the same results");
    }
  }
  BenchReport combined = first;
  combined.runs = static_cast<int>(runs.size());
  combined.stopped.reset();
  for (size_t i = 0; i < runs.size() && !combined.stopped; ++i) {
    if (runs[i].stopped) {
      combined.stopped = fmt::format("run {} of {}: {}", i + 1, runs.size(), *runs[i].stopped);
    }
  }
  for (size_t i = 0; i < first.results.size(); ++i) {
    combined.results[i] = CombineBandwidth(Column(runs, &BenchReport::results, i));
  }
  // Each size's ceiling from every run that measured it, the sizes in the
  // order the runs first measured them.
  combined.ceiling.clear();
  for (const BenchReport& run : runs) {
    for (const CeilingResult& ceiling : run.ceiling) {
      const bool combined_already =
          std::any_of(combined.ceiling.begin(), combined.ceiling.end(),
                      [&](const CeilingResult& done) { return done.bytes == ceiling.bytes; });
      if (combined_already) continue;
      std::vector<Distribution> ceilings;
      for (const BenchReport& other : runs) {
        for (const CeilingResult& same : other.ceiling) {
          if (same.bytes == ceiling.bytes) ceilings.push_back(same.gbps);
        }
      }
      combined.ceiling.push_back({.bytes = ceiling.bytes, .gbps = CombineRuns(ceilings)});
    }
  }
  for (size_t i = 0; i < first.latency.size(); ++i) {
    combined.latency[i] = CombineLatency(Column(runs, &BenchReport::latency, i));
  }
  return combined;
}

int MostSteps(const BenchOptions& options) {
  if (options.kind == BenchKind::kLatency) {
    return static_cast<int>(LatencyOperationNames().size());
  }
  // The host memory kinds default to one.
  const MemcpyBenchOptions& memcpy = options.memcpy;
  const size_t host_memories = std::max<size_t>(1, memcpy.host_memories.size());
  size_t paths = 0;
  for (const Direction direction : memcpy.directions) {
    paths += memcpy.modes.size() * (direction == Direction::kDeviceToDevice ? 1 : host_memories);
  }
  return static_cast<int>(memcpy.sizes.size() * (paths + 1));
}

std::chrono::milliseconds RunDeadlineOf(const BenchOptions& options) {
  if (options.deadline.count() > 0) return options.deadline;
  const SamplingPlan& plan =
      options.kind == BenchKind::kLatency ? options.latency_plan : options.memcpy.plan;
  return DefaultRunDeadline(MostSteps(options), plan.budget, options.stall_timeout);
}

Expected<BenchReport> RunBench(const BenchOptions& options) {
  const auto started = std::chrono::system_clock::now();
  // Hashed before it is measured; every load verifies it is the file hashed.
  const auto pinned = loader::PinPluginFile(options.plugin_path);
  const int run_count = std::max(options.runs, 1);
  std::vector<BenchReport> runs;
  for (int run = 0; run < run_count; ++run) {
    BenchOptions this_run = options;
    if (run_count > 1 && options.on_progress) {
      // One bar over every run: run r's step d of t is step r * t + d.
      this_run.on_progress = [&options, run, run_count](int done, int total,
                                                        std::string_view step) {
        options.on_progress(run * total + done, run_count * total,
                            fmt::format("run {}/{}: {}", run + 1, run_count, step));
      };
    }
    auto measured = MeasureOnce(this_run);
    if (!measured) return measured;
    const bool stopped = measured->stopped.has_value();
    runs.push_back(std::move(*measured));
    // Ctrl-C ends the runs; the caller reports the interruption. A run that
    // stopped (step_deadline.h) ends them too: the plugin stalls, and the
    // next run would only wait for it again.
    if (isolation::InterruptedBy() != 0 || stopped) break;
  }
  auto report = CombineBenchRuns(std::move(runs));
  if (!report) return report;

  report->tool_version = options.tool_version;
  report->plugin_path = options.plugin_path;
  if (pinned) report->plugin_sha256 = pinned->sha256();
  report->host = DescribeHost();
  report->command_line = options.command_line;
  report->started_at = IsoTimestamp(started);
  report->duration_s =
      std::chrono::duration<double>(std::chrono::system_clock::now() - started).count();
  report->threads = 1;
  return report;
}

}  // namespace sectl::bench
