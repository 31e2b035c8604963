// `sectl trace show` end to end, on traces the test writes with TraceWriter
// as libsectl_validate.so would, and the summary it is built on.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sectl_process.h"
#include "trace/trace_format.h"
#include "trace/trace_summary.h"
#include "trace/trace_writer.h"

namespace sectl::trace {
namespace {

using abi::PluginFunction;
using nlohmann::json;
using testing::CommandResult;
using testing::RunSectl;
using testing::TemporaryDirectory;

constexpr int kOk = 0;
constexpr int kInvalidArgument = 3;

TraceRecord Call(uint64_t sequence, PluginFunction function, uint64_t start_ns,
                 uint64_t duration_ns) {
  TraceRecord record;
  record.sequence = sequence;
  record.function = function;
  record.start_ns = start_ns;
  record.duration_ns = duration_ns;
  record.thread = 1;
  record.device = 0;
  return record;
}

// A small session: a stream, an allocation, copies both ways and on the
// device, a fill, an event, a callback, a failed call, a second thread.
std::vector<TraceRecord> SomeSession() {
  std::vector<TraceRecord> records;
  uint64_t sequence = 0;
  auto add = [&](PluginFunction function, uint64_t start_ns, uint64_t duration_ns) -> auto& {
    records.push_back(Call(++sequence, function, start_ns, duration_ns));
    return records.back();
  };
  add(PluginFunction::kCreateStream, 1'000, 100).created = 1;
  auto& allocate = add(PluginFunction::kAllocate, 2'000, 300);
  allocate.size = 8192;
  allocate.created = 1;
  auto& htod = add(PluginFunction::kMemcpyHtoD, 3'000, 500);
  htod.stream = 1;
  htod.destination = {.allocation = 1, .offset = 0x100, .size = 4096};
  htod.size = 4096;
  htod.status = kOk;
  htod.checksum = 0xfeed;
  htod.has_checksum = true;
  auto& dtod = add(PluginFunction::kMemcpyDtoD, 4'000, 200);
  dtod.stream = 1;
  dtod.destination = {.allocation = 1, .offset = 0x1000, .size = 1024};
  dtod.source = {.allocation = 1, .offset = 0, .size = 1024};
  dtod.size = 1024;
  dtod.status = kOk;
  auto& fill = add(PluginFunction::kMemset, 5'000, 100);
  fill.stream = 1;
  fill.destination = {.allocation = 1, .offset = 0, .size = 512};
  fill.size = 512;
  fill.pattern = 0xab;
  fill.status = kOk;
  auto& dtoh = add(PluginFunction::kSyncMemcpyDtoH, 6'000, 700);
  dtoh.source = {.allocation = 1, .offset = 0, .size = 2048};
  dtoh.size = 2048;
  dtoh.status = kOk;
  auto& failed = add(PluginFunction::kSyncMemcpyDtoH, 6'800, 300);
  failed.source = {.allocation = 1, .offset = 0, .size = 2048};
  failed.size = 2048;
  failed.status = kInvalidArgument;
  add(PluginFunction::kCreateEvent, 7'000, 50).created = 1;
  auto& record_event = add(PluginFunction::kRecordEvent, 7'100, 40);
  record_event.stream = 1;
  record_event.event = 1;
  record_event.status = kOk;
  auto& callback = add(PluginFunction::kHostCallback, 7'200, 30);
  callback.stream = 1;
  callback.callback = 1;
  callback.result = 1;
  TraceRecord ran;
  ran.kind = RecordKind::kCallbackRan;
  ran.sequence = sequence;
  ran.start_ns = 7'300;
  ran.thread = 2;
  ran.callback = 1;
  ran.status = kOk;
  records.push_back(ran);
  auto& destroy_event = add(PluginFunction::kDestroyEvent, 8'000, 20);
  destroy_event.event = 1;
  destroy_event.thread = 2;
  add(PluginFunction::kDeallocate, 9'000, 60).destination = {.allocation = 1, .size = 8192};
  add(PluginFunction::kDestroyStream, 9'500, 40).stream = 1;
  TraceRecord end;
  end.kind = RecordKind::kEnd;
  end.sequence = sequence;
  end.start_ns = 10'000;
  records.push_back(end);
  return records;
}

TraceHeader SomeHeader() {
  TraceHeader header;
  header.sectl_version = "0.1.0";
  header.plugin_path = "/opt/vendor/libvendor_plugin.so";
  header.plugin_sha256 = std::string(64, 'c');
  header.platform_name = "VENDOR_GPU";
  header.host_program = "/usr/bin/python3";
  header.started_unix_ms = 1'790'000'000'000;
  header.process_id = 777;
  return header;
}

std::string WriteTrace(const TemporaryDirectory& directory,
                       const std::vector<TraceRecord>& records) {
  std::string path = (directory.path() / "session.sectltrace").string();
  auto writer = TraceWriter::Create(path, SomeHeader());
  EXPECT_TRUE(writer.has_value()) << writer.error().message();
  if (!writer) return path;
  for (const auto& record : records) (*writer)->Append(record);
  EXPECT_TRUE((*writer)->Close().has_value());
  return path;
}

// One line on stderr, nothing on stdout, exit status 2.
void ExpectOneLineError(const CommandResult& result, const std::string& fragment) {
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_TRUE(result.out.empty()) << result.out;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  EXPECT_EQ(result.err.rfind("sectl: error: ", 0), 0u) << result.err;
  EXPECT_NE(result.err.find(fragment), std::string::npos) << result.err;
}

const json& FunctionEntry(const json& summary, const std::string& name) {
  for (const json& entry : summary["functions"]) {
    if (entry["function"] == name) return entry;
  }
  ADD_FAILURE() << "no entry for " << name << " in " << summary["functions"].dump(2);
  static const json kNone;
  return kNone;
}

TEST(TraceSummary, CountsCallsBytesObjectsAndCallbacks) {
  Trace trace;
  trace.header = SomeHeader();
  trace.records = SomeSession();
  const TraceSummary summary = SummarizeTrace(trace, 3);
  EXPECT_EQ(summary.records, trace.records.size());
  EXPECT_EQ(summary.calls, trace.records.size() - 2);
  EXPECT_TRUE(summary.ended);
  EXPECT_EQ(summary.span_ns, 9'540u - 1'000u);
  EXPECT_EQ(summary.bytes.host_to_device, 4096u);
  EXPECT_EQ(summary.bytes.device_to_host, 4096u);
  EXPECT_EQ(summary.bytes.device_to_device, 1024u);
  EXPECT_EQ(summary.bytes.filled, 512u);
  EXPECT_EQ(summary.streams_lifecycle.created, 1u);
  EXPECT_EQ(summary.streams_lifecycle.destroyed, 1u);
  EXPECT_EQ(summary.events.created, 1u);
  EXPECT_EQ(summary.events.destroyed, 1u);
  EXPECT_EQ(summary.allocations.created, 1u);
  EXPECT_EQ(summary.allocations.destroyed, 1u);
  EXPECT_EQ(summary.callbacks_enqueued, 1u);
  EXPECT_EQ(summary.callbacks_ran, 1u);
  ASSERT_EQ(summary.threads.size(), 2u);
  EXPECT_EQ(summary.threads[1].calls, 1u);
  ASSERT_EQ(summary.streams.size(), 1u);
  EXPECT_EQ(summary.streams[0].calls, 7u);  // created, 3 copies/fills, record, callback, destroyed
  EXPECT_EQ(summary.streams[0].bytes, 4096u + 1024u + 512u);
  EXPECT_EQ(summary.streams[0].first_ns, 1'000u);
  EXPECT_EQ(summary.streams[0].last_ns, 9'540u);
  ASSERT_FALSE(summary.functions.empty());
  EXPECT_EQ(summary.functions[0].function, PluginFunction::kSyncMemcpyDtoH);  // most called
  EXPECT_EQ(summary.functions[0].calls, 2u);
  EXPECT_EQ(summary.functions[0].errors, 1u);
  EXPECT_EQ(summary.functions[0].total_ns, 1'000u);
  EXPECT_EQ(summary.timeline.size(), 3u);

  EXPECT_EQ(SummarizeTrace(trace, 0).timeline.size(), 0u);
  EXPECT_EQ(SummarizeTrace(trace, kWholeTimeline).timeline.size(), trace.records.size());
}

TEST(TraceSummary, ShowsAnyStartTime) {
  Trace trace;
  for (const int64_t started : {std::numeric_limits<int64_t>::max(), int64_t{-5}}) {
    trace.header.started_unix_ms = started;
    const std::string text = RenderTraceSummaryText(SummarizeTrace(trace));
    EXPECT_NE(text.find(std::to_string(started) + " ms after 1970"), std::string::npos) << text;
  }
}

TEST(TraceSummary, DescribesWhatARecordNames) {
  const auto records = SomeSession();
  EXPECT_EQ(DescribeRecordObjects(records[2]),
            "device 0  stream 1  alloc 1+0x100 (4 KiB)  checksum 000000000000feed");
  EXPECT_EQ(DescribeRecordObjects(records[3]),
            "device 0  stream 1  alloc 1+0x1000 (1 KiB)  from alloc 1+0x0 (1 KiB)");
  EXPECT_EQ(DescribeRecordObjects(records[1]), "device 0  8 KiB  -> alloc 1");
  EXPECT_EQ(StatusText(-1), "");
  EXPECT_EQ(StatusText(3), "INVALID_ARGUMENT");
  EXPECT_EQ(StatusText(99), "code 99");
}

TEST(TraceCommand, ShowsATraceAsText) {
  const TemporaryDirectory directory;
  const std::string path = WriteTrace(directory, SomeSession());
  const CommandResult result = RunSectl({"trace", "show", path});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(result.err.empty()) << result.err;
  const std::string& text = result.out;
  for (const std::string& expected : std::vector<std::string>{
           "/opt/vendor/libvendor_plugin.so", "VENDOR_GPU", "/usr/bin/python3 (pid 777)",
           "2026-09-21", "trace format " + std::to_string(kTraceFormatVersion),
           "15 records: 13 calls on 2 threads",
           "host to device 4 KiB, device to host 4 KiB, device to device 1 KiB, filled 512 B",
           "streams 1/1, events 1/1", "host callbacks: 1 enqueued, 1 ran",
           "timeline (first 15 of 15 records):", "stream 1  alloc 1+0x100 (4 KiB)",
           "INVALID_ARGUMENT", "(host callback ran)", "(end of use)"}) {
    EXPECT_NE(text.find(expected), std::string::npos) << "no \"" << expected << "\" in\n" << text;
  }
  EXPECT_EQ(text.find("truncated"), std::string::npos) << text;
}

TEST(TraceCommand, ShowsATraceAsJson) {
  const TemporaryDirectory directory;
  const std::string path = WriteTrace(directory, SomeSession());
  const CommandResult result =
      RunSectl({"trace", "show", path, "--format", "json", "--timeline", "all"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json summary = json::parse(result.out);
  EXPECT_EQ(summary["header"]["plugin"]["path"], "/opt/vendor/libvendor_plugin.so");
  EXPECT_EQ(summary["header"]["process_id"], 777);
  EXPECT_EQ(summary["header"]["format_version"], kTraceFormatVersion);
  EXPECT_EQ(summary["records"], 15);
  EXPECT_EQ(summary["calls"], 13);
  EXPECT_EQ(summary["truncated"], false);
  EXPECT_EQ(summary["bytes"]["host_to_device"], 4096);
  EXPECT_EQ(summary["bytes"]["device_to_host"], 4096);
  EXPECT_EQ(summary["objects"]["allocations"]["created"], 1);
  EXPECT_EQ(summary["callbacks"]["ran"], 1);
  const json& dtoh = FunctionEntry(summary, "SP_StreamExecutor.sync_memcpy_dtoh");
  EXPECT_EQ(dtoh["calls"], 2);
  EXPECT_EQ(dtoh["errors"], 1);
  EXPECT_EQ(summary["streams"][0]["stream"], 1);
  ASSERT_EQ(summary["timeline"].size(), 15u);
  EXPECT_EQ(summary["timeline"][2]["function"], "SP_StreamExecutor.memcpy_htod");
  EXPECT_EQ(summary["timeline"][2]["status"], "OK");

  const CommandResult none =
      RunSectl({"trace", "show", path, "--format", "json", "--timeline", "0"});
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_TRUE(json::parse(none.out)["timeline"].empty());
}

// Issue 28: a deallocate(NULL) (allocation 0 in the trace: it freed
// nothing) was counted as a destroyed allocation, so a trace showed more
// allocations destroyed than created.
TEST(TraceSummary, ADeallocateOfNothingDestroysNoAllocation) {
  std::vector<TraceRecord> records = SomeSession();
  const TraceRecord end = records.back();
  records.pop_back();
  const uint64_t sequence = end.sequence;
  records.push_back(Call(sequence + 1, PluginFunction::kDeallocate, 9'600, 10));  // NULL
  records.push_back(Call(sequence + 2, PluginFunction::kHostMemoryDeallocate, 9'700, 10));
  records.push_back(Call(sequence + 3, PluginFunction::kDestroyEvent, 9'800, 10));  // no event
  records.push_back(end);
  const TraceSummary summary = SummarizeTrace(Trace{SomeHeader(), records, false});
  EXPECT_EQ(summary.allocations.created, 1u);
  EXPECT_EQ(summary.allocations.destroyed, 1u);
  EXPECT_EQ(summary.allocations.of_nothing, 1u);
  EXPECT_EQ(summary.host_allocations.destroyed, 0u);
  EXPECT_EQ(summary.host_allocations.of_nothing, 1u);
  EXPECT_EQ(summary.events.destroyed, 1u);
  EXPECT_EQ(summary.events.of_nothing, 1u);
  // Every call is still a call of its function.
  EXPECT_EQ(summary.calls, 16u);

  const TemporaryDirectory directory;
  const std::string path = WriteTrace(directory, records);
  const CommandResult text = RunSectl({"trace", "show", path});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (const std::string expected :
       {"events 1/1, timers 0/0, allocations 1/1, host allocations 0/0",
        "destroyed or freed nothing (null, or never created): destroy_event 1, deallocate 1, "
        "host_memory_deallocate 1"}) {
    EXPECT_NE(text.out.find(expected), std::string::npos) << "no \"" << expected << "\" in\n"
                                                          << text.out;
  }
  const CommandResult shown = RunSectl({"trace", "show", path, "--format", "json"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  const json allocations = json::parse(shown.out)["objects"]["allocations"];
  EXPECT_EQ(allocations, json({{"created", 1}, {"destroyed", 1}, {"of_nothing", 1}}));
}

// A trace of calls that all named their objects says nothing of the kind.
TEST(TraceCommand, SaysNothingOfNothingFreedWhenEveryDestroyNamedItsObject) {
  const TemporaryDirectory directory;
  const CommandResult text = RunSectl({"trace", "show", WriteTrace(directory, SomeSession())});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out.find("freed nothing"), std::string::npos) << text.out;
}

TEST(TraceCommand, SaysATruncatedTraceIsTruncated) {
  const TemporaryDirectory directory;
  const std::string path = WriteTrace(directory, SomeSession());
  const auto size = std::filesystem::file_size(path);
  std::filesystem::resize_file(path, size - 3);
  const CommandResult result = RunSectl({"trace", "show", path, "--timeline", "2"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("truncated: the trace ends inside a record"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("timeline (first 2 of 14 records)"), std::string::npos) << result.out;
}

TEST(TraceCommand, FailsInOneLineOnAMissingFileOrNotATrace) {
  ExpectOneLineError(RunSectl({"trace", "show", "/nonexistent/session.sectltrace"}),
                     "/nonexistent/session.sectltrace");
  const TemporaryDirectory directory;
  const std::string path = (directory.path() / "notes.txt").string();
  std::ofstream(path) << "not a trace\n";
  ExpectOneLineError(RunSectl({"trace", "show", path}), "not a sectl trace");
  ExpectOneLineError(RunSectl({"trace", "show", path, "--timeline", "some"}), "--timeline");
}

// A crafted trace of 2-byte records (kind 0, no fields) one past the cap:
// without the cap, 8 MiB of file became 700 MiB of records (a 10 MB trace
// took 1.39 GB, a 60 MB one ended in std::bad_alloc). Under a 256 MiB data
// limit sectl must still answer with one line.
TEST(TraceCommand, RefusesATraceOfMoreRecordsThanTheCapWithinLittleMemory) {
#if defined(SECTL_SANITIZED)
  GTEST_SKIP() << "a memory limit leaves no room for the sanitizer's shadow memory";
#endif
  const TemporaryDirectory directory;
  const std::string path = (directory.path() / "many.sectltrace").string();
  {
    const std::vector<std::byte> header = EncodeHeader(TraceHeader{});
    std::ofstream file(path, std::ios::binary);
    file.write(reinterpret_cast<const char*>(header.data()),
               static_cast<std::streamsize>(header.size()));
    const std::string records((kMaxTraceRecords + 1) * 2, '\0');
    file.write(records.data(), static_cast<std::streamsize>(records.size()));
  }
  testing::RunOptions options;
  options.deadline = std::chrono::seconds(60);
  options.before_exec = [] {
    const rlimit data{.rlim_cur = rlim_t{256} << 20, .rlim_max = rlim_t{256} << 20};
    if (::setrlimit(RLIMIT_DATA, &data) != 0) ::_exit(120);
  };
  for (const char* command : {"trace", "replay"}) {
    SCOPED_TRACE(command);
    const std::vector<std::string> arguments = std::string_view(command) == "trace"
                                                   ? std::vector<std::string>{"trace", "show", path}
                                                   : std::vector<std::string>{"replay", path};
    ExpectOneLineError(
        RunSectl(arguments, options),
        fmt::format("more than {} records, the most sectl reads from one trace", kMaxTraceRecords));
  }
}

}  // namespace
}  // namespace sectl::trace
