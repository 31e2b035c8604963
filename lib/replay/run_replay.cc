#include "replay/run_replay.h"

#include <fmt/format.h>
#include <poll.h>

#include "abi/plugin_functions.h"
#include "host/journal.h"
#include "isolation/child_error.h"
#include "isolation/child_outcome.h"
#include "isolation/child_process.h"
#include "isolation/shared_memory.h"
#include "loader/plugin_file_pin.h"

namespace sectl::replay {
namespace {

using isolation::kChildFailed;
using isolation::kChildReported;

// "record 12 (sequence 13, thread 1, SP_StreamExecutor.sync_memcpy_htod
// [device 0, destination allocation 1 [0, +64)])". The index comes from
// memory the plugin's process could write, so it is checked first.
std::string DescribeRecordAt(const trace::Trace& trace, int64_t index) {
  if (index < 0 || static_cast<uint64_t>(index) >= trace.records.size()) {
    return "outside the trace's records (while tearing down what the trace left)";
  }
  const trace::TraceRecord& record = trace.records[static_cast<size_t>(index)];
  const std::string objects = DescribeRecordObjects(record);
  return fmt::format("record {} (sequence {}, thread {}, {}{})", index, record.sequence,
                     record.thread, abi::QualifiedName(record.function),
                     objects.empty() ? "" : fmt::format(" [{}]", objects));
}

void FillProvenance(const trace::Trace& trace, const RunReplayOptions& options,
                    ReplayReport& report) {
  report.trace_path = options.trace_path;
  report.traced_plugin_path = trace.header.plugin_path;
  report.traced_plugin_sha256 = trace.header.plugin_sha256;
  report.traced_platform_name = trace.header.platform_name;
  report.plugin_path = options.replay.plugin_path;
  report.records = trace.records.size();
  report.trace_truncated = trace.truncated;
}

// The report of a replay whose process died or was killed before it could
// answer: what shared memory still says about how far it got.
ReplayReport ReportOfDeadChild(const trace::Trace& trace, const isolation::ChildResult& child,
                               const isolation::ChildOutcome& judged,
                               const ReplayProgress& progress, const host::Journal& journal) {
  ReplayReport report;
  report.outcome =
      child.end == isolation::ChildEnd::kTimedOut ? ReplayOutcome::kHung : ReplayOutcome::kCrashed;
  report.failure_record = progress.record_in_progress.load(std::memory_order_acquire);
  report.calls_replayed =
      static_cast<size_t>(progress.records_done.load(std::memory_order_acquire));
  report.failure =
      fmt::format("the plugin {} at {}, {}", judged.description,
                  DescribeRecordAt(trace, report.failure_record), journal.WhereCallsStopped());
  const uint64_t divergences = progress.divergences.load(std::memory_order_acquire);
  if (divergences > 0) {
    const int64_t first = progress.first_divergence.load(std::memory_order_acquire);
    report.note_count = 1;
    report.notes.push_back(
        fmt::format("before that, the replay had found {} divergence{}, the first at {}; run with "
                    "--isolation none to see them (at the risk of sectl itself crashing)",
                    divergences, divergences == 1 ? "" : "s", DescribeRecordAt(trace, first)));
  }
  for (size_t i = 0; i < child.backtrace.size() && i < 8; ++i) {
    ++report.note_count;
    report.notes.push_back("backtrace: " + child.backtrace[i]);
  }
  return report;
}

Expected<ReplayReport> ReplayIsolated(const trace::Trace& trace, const RunReplayOptions& options) {
  auto region = isolation::SharedObject<host::JournalRegion>::Create();
  if (!region) return tl::unexpected(region.error());
  auto progress = isolation::SharedObject<ReplayProgress>::Create();
  if (!progress) return tl::unexpected(progress.error());
  host::Journal journal(region->get());

  ReplayOptions replay = options.replay;
  replay.memory_limit = options.confinement.memory_limit_label;
  auto child = isolation::ChildProcess::Start(
      [&](int result_fd) {
        auto report = ReplayTrace(trace, replay, journal, *progress->get());
        if (!report) {
          isolation::WriteResult(result_fd, isolation::EncodeChildError(report.error()));
          return kChildFailed;
        }
        isolation::WriteResult(result_fd, ReplayReportToJson(*report));
        return kChildReported;
      },
      {.timeout = options.timeout, .confinement = options.confinement});
  if (!child) return tl::unexpected(child.error());
  uint64_t last_done = UINT64_MAX;
  while (!child->Poll()) {
    auto descriptors = child->PollDescriptors();
    ::poll(descriptors.data(), descriptors.size(), 100);
    const uint64_t done = progress->get()->records_done.load(std::memory_order_acquire);
    if (options.on_progress && done != last_done) {
      options.on_progress(std::min<uint64_t>(done, trace.records.size()), trace.records.size());
      last_done = done;
    }
  }
  const isolation::ChildResult ended = child->TakeResult();
  const isolation::ChildOutcome judged = isolation::JudgeChild(ended, options.confinement);
  switch (judged.blame) {
    case isolation::Blame::kSectl:
      return Fail(ErrorCode::kInternal, judged.description);
    case isolation::Blame::kLimit:
    case isolation::Blame::kPlugin:
      return ReportOfDeadChild(trace, ended, judged, *progress->get(), journal);
    case isolation::Blame::kNone:
      break;
  }
  if (ended.exit_code == kChildFailed) {
    return tl::unexpected(isolation::DecodeChildError(ended.result, "the replay process"));
  }
  auto report = ReplayReportFromJson(ended.result);
  if (!report) return tl::unexpected(report.error().WithContext("reading the replay's report"));
  return report;
}

}  // namespace

Expected<ReplayReport> RunReplay(const trace::Trace& trace, const RunReplayOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  // Hashed here, before any child exists: the child verifies it loads this
  // file, and the digest in the report is not one the plugin's process wrote.
  auto pinned = loader::PinPluginFile(options.replay.plugin_path);
  if (!pinned) return tl::unexpected(pinned.error());
  Expected<ReplayReport> report;
  if (options.isolate) {
    report = ReplayIsolated(trace, options);
  } else {
    host::Journal journal;
    ReplayProgress progress;
    report = ReplayTrace(trace, options.replay, journal, progress);
  }
  if (!report) return report;
  FillProvenance(trace, options, *report);
  report->plugin_sha256 = pinned->sha256();
  report->duration_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return report;
}

}  // namespace sectl::replay
