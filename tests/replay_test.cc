// sectl replay: the sparse shadow of device memory, and replays of traces
// built in memory against the bundled cpu plugin (clean) and faulty plugins
// (each must diverge where its fault shows, or crash at the right record).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "host/journal.h"
#include "replay/replay_report.h"
#include "replay/run_replay.h"
#include "replay/shadow_memory.h"
#include "sectl_process.h"
#include "trace/trace_record.h"
#include "trace/trace_writer.h"

namespace sectl::replay {
namespace {

using abi::PluginFunction;
using trace::DeviceRange;
using trace::RecordKind;
using trace::TraceRecord;

std::string CpuPlugin() { return std::string(SECTL_PLUGIN_DIR) + "/sectl_cpu.so"; }
std::string FaultyPlugin(const std::string& fault) {
  return std::string(SECTL_FAULTY_PLUGIN_DIR) + "/faulty_" + fault + ".so";
}

// ---- the shadow --------------------------------------------------------------

TEST(ShadowMemory, GeneratedBytesCanBeRecomputedFromAnyOffset) {
  std::vector<uint8_t> whole(100);
  GenerateBytes(7, 0, whole);
  std::vector<uint8_t> tail(37);
  GenerateBytes(7, 63, tail);
  EXPECT_TRUE(std::equal(tail.begin(), tail.end(), whole.begin() + 63));
  std::vector<uint8_t> other(100);
  GenerateBytes(8, 0, other);
  EXPECT_NE(whole, other);
}

TEST(ShadowMemory, WritesSplitOlderSegmentsAndCopiesMoveContent) {
  ShadowMemory shadow;
  shadow.Write(1, 0, 100, {Content::Kind::kFill, 0xAAAAAAAA, 0}, 1);
  shadow.Write(1, 40, 20, {Content::Kind::kGenerated, 9, 40}, 2);
  const auto segments = shadow.Snapshot(1, 0, 100);
  ASSERT_EQ(segments.size(), 3u);
  EXPECT_EQ(segments[0].end, 40u);
  EXPECT_EQ(segments[1].writer, 2u);
  EXPECT_EQ(segments[2].begin, 60u);
  EXPECT_EQ(shadow.segment_count(), 3u);

  // Copy bytes [30, 70) of allocation 1 to offset 5 of allocation 2.
  shadow.Copy(2, 5, 1, 30, 40, 3);
  std::vector<uint8_t> expected_source(40);
  std::vector<uint8_t> copied(40);
  const auto source = shadow.Snapshot(1, 30, 40);
  const auto destination = shadow.Snapshot(2, 5, 40);
  ASSERT_EQ(source.size(), destination.size());
  for (size_t i = 0; i < source.size(); ++i) {
    ExpectedBytes(
        source[i], source[i].begin,
        std::span(expected_source).subspan(source[i].begin - 30, source[i].end - source[i].begin));
    ExpectedBytes(destination[i], destination[i].begin,
                  std::span(copied).subspan(destination[i].begin - 5,
                                            destination[i].end - destination[i].begin));
  }
  EXPECT_EQ(copied, expected_source);
  EXPECT_EQ(destination.front().writer, 1u);
  EXPECT_EQ(destination.front().copier, 3u);
}

TEST(ShadowMemory, UnknownBytesAreNotComparedAndMismatchesNameTheWriter) {
  ShadowMemory shadow;
  shadow.Write(1, 10, 10, {Content::Kind::kFill, 0x01010101, 10}, 4);
  std::vector<uint8_t> actual(30, 0xEE);  // bytes [0, 30): only [10, 20) known
  for (size_t i = 10; i < 20; ++i) actual[i] = 1;
  EXPECT_FALSE(FindMismatch(shadow.Snapshot(1, 0, 30), 0, actual));
  actual[15] = 2;
  const auto mismatch = FindMismatch(shadow.Snapshot(1, 0, 30), 0, actual);
  ASSERT_TRUE(mismatch);
  EXPECT_EQ(mismatch->offset, 15u);
  EXPECT_EQ(mismatch->actual, 2);
  EXPECT_EQ(mismatch->expected, 1);
  EXPECT_EQ(mismatch->writer, 4u);
  shadow.Forget(1, 12, 6);
  EXPECT_EQ(shadow.Snapshot(1, 0, 30).size(), 2u);
  shadow.Drop(1);
  EXPECT_TRUE(shadow.Snapshot(1, 0, 30).empty());
  EXPECT_EQ(shadow.segment_count(), 0u);
}

TEST(ShadowMemory, StopsTrackingAtItsCap) {
  ShadowMemory shadow(4);
  for (uint64_t i = 0; i < 10; ++i) {
    shadow.Write(1, i * 10, 5, {Content::Kind::kFill, 0, 0}, 1);
  }
  EXPECT_TRUE(shadow.overflowed());
  EXPECT_TRUE(shadow.Snapshot(1, 0, 100).empty());
}

// ---- traces built in memory ----------------------------------------------------

// Appends records in sequence order, on thread 1.
class TraceBuilder {
 public:
  TraceRecord& Add(PluginFunction function, int32_t device = -1) {
    TraceRecord& record = trace_.records.emplace_back();
    record.sequence = ++sequence_;
    record.thread = 1;
    record.start_ns = sequence_ * 1000;
    record.function = function;
    record.device = device;
    return record;
  }
  // A call on device 0 that took a TF_Status and returned OK.
  TraceRecord& Ok(PluginFunction function) {
    TraceRecord& record = Add(function, 0);
    record.status = 0;
    return record;
  }
  size_t Last() const { return trace_.records.size() - 1; }

  void Registration() {
    Add(PluginFunction::kInitPlugin).status = 0;
    Add(PluginFunction::kCreateDeviceFns).status = 0;
    Add(PluginFunction::kCreateStreamExecutor).status = 0;
    Add(PluginFunction::kCreateTimerFns).status = 0;
    Add(PluginFunction::kGetDeviceCount).result = 1;
    Ok(PluginFunction::kCreateDevice);
  }
  void Teardown() {
    Add(PluginFunction::kDestroyDevice, 0);
    Add(PluginFunction::kDestroyTimerFns);
    Add(PluginFunction::kDestroyStreamExecutor);
    Add(PluginFunction::kDestroyDeviceFns);
    Add(PluginFunction::kDestroyPlatform);
    Add(PluginFunction::kDestroyPlatformFns);
    Add(PluginFunction::kInitPlugin).kind = RecordKind::kEnd;
  }
  trace::Trace Build() {
    trace_.header.format_version = 1;
    trace_.header.plugin_path = "/opt/vendor/libvendor_plugin.so";
    trace_.header.plugin_sha256 = std::string(64, 'a');
    return trace_;
  }

 private:
  trace::Trace trace_;
  uint64_t sequence_ = 0;
};

// Where the interesting records of the workload trace are.
struct Workload {
  trace::Trace trace;
  size_t interior_htod = 0;
  size_t memset = 0;
  size_t first_dtoh = 0;
  size_t callback = 0;
  size_t sync_htod = 0;
};

DeviceRange Range(uint32_t allocation, uint64_t offset, uint64_t size) {
  return {allocation, offset, size};
}

// A few dozen records as TensorFlow would make them: two streams, two
// allocations, copies in every direction, fills, events, a dependency, a
// host callback, a timer, pinned host memory, then teardown.
Workload BuildWorkload() {
  TraceBuilder builder;
  Workload workload;
  builder.Registration();
  builder.Ok(PluginFunction::kCreateStream).created = 1;
  builder.Ok(PluginFunction::kCreateStream).created = 2;
  for (uint32_t id = 1; id <= 2; ++id) {
    TraceRecord& allocate = builder.Add(PluginFunction::kAllocate, 0);
    allocate.size = 8192;
    allocate.created = id;
  }
  auto on_stream = [&](PluginFunction function, uint32_t stream) -> TraceRecord& {
    TraceRecord& record = builder.Ok(function);
    record.stream = stream;
    return record;
  };
  TraceRecord& htod = on_stream(PluginFunction::kMemcpyHtoD, 1);
  htod.destination = Range(1, 0, 1024);
  htod.size = 1024;
  TraceRecord& interior = on_stream(PluginFunction::kMemcpyHtoD, 1);
  interior.destination = Range(1, 1124, 500);
  interior.size = 500;
  workload.interior_htod = builder.Last();
  TraceRecord& memset = on_stream(PluginFunction::kMemset, 1);
  memset.destination = Range(1, 2048, 256);
  memset.size = 256;
  memset.pattern = 0xAB;
  workload.memset = builder.Last();
  TraceRecord& memset32 = on_stream(PluginFunction::kMemset32, 1);
  memset32.destination = Range(1, 2304, 256);
  memset32.size = 256;
  memset32.pattern = 0x11223344;
  TraceRecord& zero = on_stream(PluginFunction::kMemZero, 1);
  zero.destination = Range(1, 2560, 128);
  zero.size = 128;
  TraceRecord& dtod = on_stream(PluginFunction::kMemcpyDtoD, 1);
  dtod.destination = Range(2, 0, 3000);
  dtod.source = Range(1, 0, 3000);
  dtod.size = 3000;
  builder.Ok(PluginFunction::kCreateEvent).created = 1;
  on_stream(PluginFunction::kRecordEvent, 1).event = 1;
  on_stream(PluginFunction::kWaitForEvent, 2).event = 1;
  TraceRecord& dtoh = on_stream(PluginFunction::kMemcpyDtoH, 2);
  dtoh.source = Range(2, 0, 3000);
  dtoh.size = 3000;
  workload.first_dtoh = builder.Last();
  TraceRecord& callback = builder.Add(PluginFunction::kHostCallback, 0);
  callback.stream = 2;
  callback.callback = 1;
  callback.result = 1;
  workload.callback = builder.Last();
  TraceRecord& ran = builder.Add(PluginFunction::kHostCallback);
  ran.kind = RecordKind::kCallbackRan;
  ran.callback = 1;
  ran.stream = 2;
  ran.status = 0;
  on_stream(PluginFunction::kBlockHostUntilDone, 2);
  TraceRecord& sync_htod = builder.Ok(PluginFunction::kSyncMemcpyHtoD);
  sync_htod.destination = Range(2, 3000, 1000);
  sync_htod.size = 1000;
  workload.sync_htod = builder.Last();
  TraceRecord& sync_dtoh = builder.Ok(PluginFunction::kSyncMemcpyDtoH);
  sync_dtoh.source = Range(2, 2990, 1006);
  sync_dtoh.size = 1006;
  TraceRecord& status = builder.Add(PluginFunction::kGetEventStatus, 0);
  status.event = 1;
  status.result = SE_EVENT_COMPLETE;
  builder.Ok(PluginFunction::kCreateEvent).created = 2;
  TraceRecord& whole = on_stream(PluginFunction::kMemcpyDtoH, 1);
  whole.source = Range(1, 0, 8192);
  whole.size = 8192;
  on_stream(PluginFunction::kRecordEvent, 1).event = 2;
  builder.Ok(PluginFunction::kBlockHostForEvent).event = 2;
  on_stream(PluginFunction::kCreateStreamDependency, 2).other_stream = 1;
  on_stream(PluginFunction::kGetStreamStatus, 1);
  builder.Ok(PluginFunction::kCreateTimer).created = 1;
  on_stream(PluginFunction::kStartTimer, 1).timer = 1;
  TraceRecord& sync_dtod = builder.Ok(PluginFunction::kSyncMemcpyDtoD);
  sync_dtod.destination = Range(1, 4096, 2000);
  sync_dtod.source = Range(2, 0, 2000);
  sync_dtod.size = 2000;
  on_stream(PluginFunction::kStopTimer, 1).timer = 1;
  on_stream(PluginFunction::kBlockHostUntilDone, 1);
  builder.Add(PluginFunction::kNanoseconds, 0).timer = 1;
  TraceRecord& host = builder.Add(PluginFunction::kHostMemoryAllocate, 0);
  host.size = 4096;
  host.created = 1;
  builder.Add(PluginFunction::kHostMemoryDeallocate, 0).host_allocation = 1;
  TraceRecord& sync_dtoh2 = builder.Ok(PluginFunction::kSyncMemcpyDtoH);
  sync_dtoh2.source = Range(1, 4000, 2096);
  sync_dtoh2.size = 2096;
  builder.Ok(PluginFunction::kSynchronizeAllActivity);
  builder.Add(PluginFunction::kDestroyEvent, 0).event = 1;
  builder.Add(PluginFunction::kDestroyEvent, 0).event = 2;
  builder.Add(PluginFunction::kDestroyTimer, 0).timer = 1;
  builder.Add(PluginFunction::kDeallocate, 0).destination = Range(1, 0, 0);
  builder.Add(PluginFunction::kDeallocate, 0).destination = Range(2, 0, 0);
  builder.Add(PluginFunction::kDestroyStream, 0).stream = 1;
  builder.Add(PluginFunction::kDestroyStream, 0).stream = 2;
  builder.Teardown();
  workload.trace = builder.Build();
  return workload;
}

ReplayReport Replay(const trace::Trace& trace, const std::string& plugin,
                    bool stop_at_first = false) {
  RunReplayOptions options;
  options.trace_path = "in-memory";
  options.replay.plugin_path = plugin;
  options.replay.stop_at_first = stop_at_first;
  options.timeout = std::chrono::seconds(30);
  auto report = RunReplay(trace, options);
  EXPECT_TRUE(report) << report.error().message();
  return report ? *report : ReplayReport{};
}

std::string Describe(const ReplayReport& report) { return RenderReplayText(report); }

TEST(Replay, WorkloadIsCleanOnTheCpuPlugin) {
  const Workload workload = BuildWorkload();
  const ReplayReport report = Replay(workload.trace, CpuPlugin());
  EXPECT_EQ(report.outcome, ReplayOutcome::kClean) << Describe(report);
  EXPECT_EQ(report.divergence_count, 0u) << Describe(report);
  EXPECT_EQ(report.records_skipped, 0u) << Describe(report);
  // Every call record, the kCallbackRan and kEnd records aside.
  EXPECT_EQ(report.calls_replayed, workload.trace.records.size() - 2);
  EXPECT_FALSE(report.plugin_sha256.empty());
  EXPECT_EQ(report.traced_plugin_path, "/opt/vendor/libvendor_plugin.so");
  EXPECT_NE(Describe(report).find("replayed"), std::string::npos);
  EXPECT_NE(Describe(report).find(": clean"), std::string::npos) << Describe(report);
}

TEST(Replay, CorruptDeviceToHostCopyDivergesAtTheCopy) {
  const Workload workload = BuildWorkload();
  const ReplayReport report = Replay(workload.trace, FaultyPlugin("corrupt_dtoh"));
  ASSERT_EQ(report.outcome, ReplayOutcome::kDiverged) << Describe(report);
  const Divergence& first = report.divergences.front();
  EXPECT_EQ(first.record_index, workload.first_dtoh) << Describe(report);
  EXPECT_EQ(first.function, "SP_StreamExecutor.memcpy_dtoh");
  EXPECT_NE(first.what.find("offset 0 (byte 0 of the copy)"), std::string::npos) << first.what;
  EXPECT_NE(first.what.find("SP_StreamExecutor.memcpy_htod), copied there by"), std::string::npos)
      << first.what;
  EXPECT_NE(first.objects.find("source allocation 2 [0, +3000)"), std::string::npos)
      << first.objects;
}

TEST(Replay, DroppedLastByteOfHostToDeviceCopyDiverges) {
  const Workload workload = BuildWorkload();
  const ReplayReport report = Replay(workload.trace, FaultyPlugin("htod_drops_last_byte"));
  ASSERT_EQ(report.outcome, ReplayOutcome::kDiverged) << Describe(report);
  // The first copy's last byte (offset 1023) travels to allocation 2 by
  // device-to-device copy, and the first read back finds it missing.
  EXPECT_EQ(report.divergences.front().record_index, workload.first_dtoh) << Describe(report);
  EXPECT_NE(report.divergences.front().what.find("offset 1023"), std::string::npos)
      << Describe(report);
}

TEST(Replay, WrongMemsetPatternDiverges) {
  const Workload workload = BuildWorkload();
  const ReplayReport report = Replay(workload.trace, FaultyPlugin("memset_wrong_pattern"));
  ASSERT_EQ(report.outcome, ReplayOutcome::kDiverged) << Describe(report);
  const std::string& what = report.divergences.front().what;
  EXPECT_NE(what.find("expected 0xab"), std::string::npos) << Describe(report);
  EXPECT_NE(what.find(fmt::format("written by record {} ", workload.memset)), std::string::npos)
      << Describe(report);
}

TEST(Replay, HostCallbackNeverRunDivergesAtItsStreamsSynchronisation) {
  const Workload workload = BuildWorkload();
  const ReplayReport report = Replay(workload.trace, FaultyPlugin("callback_never_called"));
  ASSERT_EQ(report.outcome, ReplayOutcome::kDiverged) << Describe(report);
  EXPECT_EQ(report.divergences.front().record_index, workload.callback) << Describe(report);
  EXPECT_NE(report.divergences.front().what.find("has not run"), std::string::npos);
}

TEST(Replay, StopAtFirstStopsAfterOneDivergence) {
  const Workload workload = BuildWorkload();
  const ReplayReport report =
      Replay(workload.trace, FaultyPlugin("memset_wrong_pattern"), /*stop_at_first=*/true);
  ASSERT_EQ(report.outcome, ReplayOutcome::kDiverged) << Describe(report);
  EXPECT_EQ(report.divergence_count, 1u);
  EXPECT_TRUE(report.stopped_at_first);
  EXPECT_LT(report.calls_replayed, workload.trace.records.size() - 2);
}

TEST(Replay, CrashNamesTheRecordInProgress) {
  const Workload workload = BuildWorkload();
  const ReplayReport report = Replay(workload.trace, FaultyPlugin("sync_htod_crash"));
  ASSERT_EQ(report.outcome, ReplayOutcome::kCrashed) << Describe(report);
  EXPECT_EQ(report.failure_record, static_cast<int64_t>(workload.sync_htod));
  EXPECT_NE(report.failure.find("crashed with SIGSEGV"), std::string::npos) << report.failure;
  EXPECT_NE(report.failure.find(fmt::format("at record {} ", workload.sync_htod)),
            std::string::npos)
      << report.failure;
  EXPECT_NE(report.failure.find("SP_StreamExecutor.sync_memcpy_htod"), std::string::npos);
  // Its interior memcpy_htod defect diverged before the crash.
  ASSERT_FALSE(report.notes.empty());
  EXPECT_NE(report.notes.front().find("divergence"), std::string::npos) << Describe(report);
}

TEST(Replay, HangNamesTheRecordInProgress) {
  const Workload workload = BuildWorkload();
  RunReplayOptions options;
  options.replay.plugin_path = testing::FixturePlugin("memcpy_hang");
  options.timeout = std::chrono::seconds(2);
  auto report = RunReplay(workload.trace, options);
  ASSERT_TRUE(report) << report.error().message();
  ASSERT_EQ(report->outcome, ReplayOutcome::kHung) << Describe(*report);
  EXPECT_EQ(report->failure_record, static_cast<int64_t>(workload.interior_htod - 1));
  EXPECT_NE(report->failure.find("did not return within 2 s"), std::string::npos)
      << report->failure;
  EXPECT_NE(report->failure.find("SP_StreamExecutor.memcpy_htod"), std::string::npos);
}

// How many calls of `function` the replay made, as its journal has them.
size_t CallsOf(const host::Journal& journal, PluginFunction function) {
  const auto entries = journal.Entries();
  return static_cast<size_t>(std::count_if(entries.begin(), entries.end(), [&](const auto& entry) {
    return entry.function == function;
  }));
}

// Issue 28: an unchanged build replaying allocations of 0 bytes (null from
// the cpu plugin, recorded as no allocation) was told that "an allocation
// of 0 bytes that failed in the recording succeeded now", and the replay
// freed each null it got: a deallocate(NULL) the trace does not hold. Now
// null is compared with null, the trace's deallocate(NULL) is replayed, and
// nothing else is freed.
TEST(Replay, ZeroByteAllocationsReplayExactlyTheTracedCalls) {
  TraceBuilder builder;
  builder.Registration();
  builder.Add(PluginFunction::kAllocate, 0).size = 0;  // null, freed below
  const size_t freed_null = builder.Last();
  builder.Add(PluginFunction::kDeallocate, 0);                   // deallocate(NULL): allocation 0
  builder.Add(PluginFunction::kAllocate, 0).size = 0;            // null, never freed
  builder.Add(PluginFunction::kHostMemoryAllocate, 0).size = 0;  // null, never freed
  builder.Add(PluginFunction::kUnifiedMemoryAllocate, 0).size = 0;
  builder.Teardown();
  trace::Trace trace = builder.Build();

  host::Journal journal;
  ReplayProgress progress;
  const auto report = ReplayTrace(trace, {.plugin_path = CpuPlugin()}, journal, progress);
  ASSERT_TRUE(report) << report.error().message();
  EXPECT_EQ(report->outcome, ReplayOutcome::kClean) << Describe(*report);
  // No note about memory (only, perhaps, that the machines' device counts
  // differ), and nothing skipped.
  for (const std::string& note : report->notes) {
    EXPECT_EQ(note.find("alloc"), std::string::npos) << Describe(*report);
  }
  EXPECT_EQ(report->records_skipped, 0u) << Describe(*report);
  EXPECT_EQ(report->calls_replayed, trace.records.size() - 1);  // all but the end
  EXPECT_EQ(CallsOf(journal, PluginFunction::kAllocate), 2u);
  EXPECT_EQ(CallsOf(journal, PluginFunction::kDeallocate), 1u);
  EXPECT_EQ(CallsOf(journal, PluginFunction::kHostMemoryDeallocate), 0u);
  EXPECT_EQ(CallsOf(journal, PluginFunction::kUnifiedMemoryDeallocate), 0u);

  // A build that differs where it matters: the recorded plugin returned a
  // block for 0 bytes, this one returns null.
  trace.records[freed_null].created = 1;
  const ReplayReport changed = Replay(trace, CpuPlugin());
  ASSERT_EQ(changed.outcome, ReplayOutcome::kDiverged) << Describe(changed);
  EXPECT_EQ(changed.divergences.front().record_index, freed_null) << Describe(changed);
  EXPECT_NE(changed.divergences.front().what.find(
                "an allocation of 0 bytes returned null now; in the recording it returned a block"),
            std::string::npos)
      << Describe(changed);
}

TEST(Replay, RangeInNoAllocationIsSkippedWithANote) {
  TraceBuilder builder;
  builder.Registration();
  builder.Ok(PluginFunction::kCreateStream).created = 1;
  TraceRecord& stray = builder.Ok(PluginFunction::kMemcpyHtoD);
  stray.stream = 1;
  stray.destination = Range(0, 0, 64);
  stray.size = 64;
  builder.Add(PluginFunction::kDestroyStream, 0).stream = 1;
  builder.Teardown();
  const ReplayReport report = Replay(builder.Build(), CpuPlugin());
  EXPECT_EQ(report.outcome, ReplayOutcome::kClean) << Describe(report);
  EXPECT_EQ(report.records_skipped, 1u);
  EXPECT_NE(Describe(report).find("record 7 (SP_StreamExecutor.memcpy_htod) skipped: a range "
                                  "lies in no live allocation"),
            std::string::npos)
      << Describe(report);
}

TEST(Replay, StatusThatChangedIsADivergence) {
  TraceBuilder builder;
  builder.Registration();
  // The recording's create_stream failed; the cpu plugin's succeeds.
  builder.Ok(PluginFunction::kCreateStream).status = 8;  // TF_RESOURCE_EXHAUSTED
  builder.Teardown();
  const ReplayReport report = Replay(builder.Build(), CpuPlugin());
  ASSERT_EQ(report.outcome, ReplayOutcome::kDiverged) << Describe(report);
  EXPECT_NE(report.divergences.front().what.find("succeeded now"), std::string::npos);
}

TEST(ReplayReport, JsonRoundTrips) {
  ReplayReport report;
  report.trace_path = "t.trace";
  report.outcome = ReplayOutcome::kDiverged;
  report.divergence_count = 3;
  report.divergences.push_back({4, 5, 1, "SP_StreamExecutor.memset", "stream 1", "differs"});
  report.failure_record = -1;
  report.notes = {"a note"};
  report.note_count = 1;
  const auto read = ReplayReportFromJson(ReplayReportToJson(report));
  ASSERT_TRUE(read) << read.error().message();
  EXPECT_EQ(read->divergences.front().what, "differs");
  EXPECT_EQ(read->divergence_count, 3u);
  EXPECT_EQ(read->failure_record, -1);
  EXPECT_EQ(read->outcome, ReplayOutcome::kDiverged);
  EXPECT_FALSE(ReplayReportFromJson("{\"outcome\": 3}"));
}

// ---- through the sectl binary ----------------------------------------------------

std::string WriteTrace(const trace::Trace& trace, const std::string& name) {
  std::string path =
      (std::filesystem::temp_directory_path() / (name + std::to_string(::getpid()) + ".trace"))
          .string();
  auto writer = trace::TraceWriter::Create(path, trace.header);
  if (!writer) {
    ADD_FAILURE() << writer.error().message();
    return path;
  }
  for (const TraceRecord& record : trace.records) (*writer)->Append(record);
  EXPECT_TRUE((*writer)->Close());
  return path;
}

TEST(ReplayCli, CleanDivergentAndBadInput) {
  const Workload workload = BuildWorkload();
  const std::string path = WriteTrace(workload.trace, "replay_cli_");
  auto clean = testing::RunSectl({"replay", path});
  EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
  EXPECT_NE(clean.out.find(": clean"), std::string::npos) << clean.out;
  EXPECT_NE(clean.out.find("/opt/vendor/libvendor_plugin.so"), std::string::npos) << clean.out;

  auto diverged =
      testing::RunSectl({"replay", path, FaultyPlugin("memset_wrong_pattern"), "--format", "json"});
  EXPECT_EQ(diverged.exit_code, 1) << diverged.out << diverged.err;
  EXPECT_NE(diverged.out.find("\"outcome\": \"diverged\""), std::string::npos) << diverged.out;

  auto crashed = testing::RunSectl({"replay", path, FaultyPlugin("sync_htod_crash")});
  EXPECT_EQ(crashed.exit_code, 1) << crashed.out << crashed.err;
  EXPECT_NE(crashed.out.find("replay crashed"), std::string::npos) << crashed.out;

  auto missing = testing::RunSectl({"replay", path + ".absent"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err.rfind("sectl: error: ", 0), 0u) << missing.err;

  auto no_plugin = testing::RunSectl({"replay", path, "/nonexistent/plugin.so"});
  EXPECT_EQ(no_plugin.exit_code, 2) << no_plugin.err;

  const std::string garbage = path + ".garbage";
  ASSERT_EQ(testing::RunCommand({"sh", "-c", "echo not a trace > " + garbage}).exit_code, 0);
  auto malformed = testing::RunSectl({"replay", garbage});
  EXPECT_EQ(malformed.exit_code, 2) << malformed.err;
  std::filesystem::remove(path);
  std::filesystem::remove(garbage);
}

// A trace of a dozen records can ask for any allocation: the replaying
// process has a memory limit by default, and an allocation past it is a
// divergence that names the limit, not gigabytes of the machine's memory.
TEST(ReplayCli, AHugeAllocationMeetsTheDefaultMemoryLimit) {
#if defined(SECTL_SANITIZED)
  GTEST_SKIP() << "a memory limit leaves no room for the sanitizer's shadow memory";
#endif
  TraceBuilder builder;
  builder.Registration();
  TraceRecord& allocate = builder.Add(PluginFunction::kAllocate, 0);
  allocate.size = uint64_t{6} << 30;
  allocate.created = 1;
  builder.Add(PluginFunction::kDeallocate, 0).destination = Range(1, 0, 0);
  builder.Teardown();
  const std::string path = WriteTrace(builder.Build(), "replay_huge_");
  auto replayed = testing::RunSectl({"replay", path});
  std::filesystem::remove(path);
  EXPECT_EQ(replayed.exit_code, 1) << replayed.out << replayed.err;
  EXPECT_NE(replayed.out.find("failed now"), std::string::npos) << replayed.out;
  EXPECT_NE(replayed.out.find("the replay's process may use at most --memory-limit 4GiB"),
            std::string::npos)
      << replayed.out;
}

// A plugin whose failure message is not UTF-8 (and carries escapes): the
// replay's report, which the child sends as JSON, must still say the run
// diverged at that call rather than that the replay crashed, in text and
// in JSON.
TEST(ReplayCli, ANonUtf8FailureMessageIsStillADivergence) {
  TraceBuilder builder;
  builder.Registration();
  builder.Ok(PluginFunction::kSynchronizeAllActivity);
  builder.Teardown();
  const std::string path = WriteTrace(builder.Build(), "replay_utf8_");
  const std::string plugin =
      std::string(SECTL_HOSTILE_PLUGIN_DIR) + "/hostile_input_invalid_utf8.so";
  auto text = testing::RunSectl({"replay", path, plugin});
  auto json = testing::RunSectl({"replay", path, plugin, "--format", "json"});
  std::filesystem::remove(path);
  EXPECT_EQ(text.exit_code, 1) << text.out << text.err;
  EXPECT_NE(text.out.find("1 divergence"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("synchronize_all_activity failed: \ufffd"), std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find('\x1b'), std::string::npos) << text.out;
  EXPECT_EQ(json.exit_code, 1) << json.out << json.err;
  EXPECT_NE(json.out.find("\"outcome\": \"diverged\""), std::string::npos) << json.out;
}

}  // namespace
}  // namespace sectl::replay
