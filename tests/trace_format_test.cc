// The trace format (lib/trace/trace_format.h): every field survives a round
// trip, defaults cost nothing, any prefix of a trace reads as a prefix of
// its records or as an error, and hostile bytes are refused by offset.
#include "trace/trace_format.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "abi/plugin_functions.h"
#include "sectl_process.h"
#include "trace/checksum.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"

namespace sectl::trace {
namespace {

using abi::PluginFunction;

TraceHeader SomeHeader() {
  TraceHeader header;
  header.format_version = kTraceFormatVersion;
  header.sectl_version = "0.1.0";
  header.plugin_path = "/opt/vendor/libvendor_plugin.so";
  header.plugin_sha256 = std::string(64, 'a');
  header.platform_name = "VENDOR_GPU";
  header.host_program = "/usr/bin/python3.11";
  header.started_unix_ms = 1'790'000'000'123;
  header.process_id = 4242;
  return header;
}

// A record with every field away from its default.
TraceRecord EveryFieldSet() {
  TraceRecord record;
  record.kind = RecordKind::kCall;
  record.sequence = 17;
  record.start_ns = 123'456'789;
  record.duration_ns = 4'321;
  record.thread = 3;
  record.function = PluginFunction::kMemcpyDtoD;
  record.device = 1;
  record.stream = 2;
  record.other_stream = 4;
  record.event = 5;
  record.timer = 6;
  record.host_allocation = 7;
  record.callback = 8;
  record.created = 9;
  record.destination = {.allocation = 10, .offset = 0x100, .size = 4096};
  record.source = {.allocation = 11, .offset = 0x200, .size = 2048};
  record.size = 4096;
  record.memory_space = -2;
  record.pattern = 0xdeadbeef;
  record.status = 3;
  record.result = -77;
  record.checksum = 0x0123456789abcdef;
  record.has_checksum = true;
  return record;
}

// The largest value of every field, to check the widest encodings.
TraceRecord EveryFieldAtItsLimit() {
  TraceRecord record = EveryFieldSet();
  constexpr auto kMax64 = std::numeric_limits<uint64_t>::max();
  constexpr auto kMax32 = std::numeric_limits<uint32_t>::max();
  record.kind = RecordKind::kCallbackRan;
  record.sequence = kMax64;
  record.start_ns = kMax64;
  record.duration_ns = kMax64;
  record.thread = kMax32;
  record.function = abi::AllPluginFunctions().back().function;
  record.device = std::numeric_limits<int32_t>::min();
  record.stream = record.other_stream = record.event = record.timer = kMax32;
  record.host_allocation = record.callback = record.created = kMax32;
  record.destination = {.allocation = kMax32, .offset = kMax64, .size = kMax64};
  record.source = record.destination;
  record.size = kMax64;
  record.memory_space = std::numeric_limits<int64_t>::min();
  record.pattern = kMax32;
  record.status = std::numeric_limits<int32_t>::max();
  record.result = std::numeric_limits<int64_t>::min();
  record.checksum = kMax64;
  return record;
}

std::vector<std::byte> EncodeTrace(const TraceHeader& header,
                                   const std::vector<TraceRecord>& records) {
  std::vector<std::byte> bytes = EncodeHeader(header);
  RecordContext previous;
  for (const auto& record : records) AppendEncodedRecord(record, previous, bytes);
  return bytes;
}

Trace DecodeOrFail(const std::vector<std::byte>& bytes) {
  auto trace = DecodeTrace(bytes);
  EXPECT_TRUE(trace.has_value()) << trace.error().message();
  return trace ? *trace : Trace{};
}

void AppendVarint(uint64_t value, std::vector<std::byte>& out) {
  while (value >= 0x80) {
    out.push_back(static_cast<std::byte>(value | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<std::byte>(value));
}

void AppendText(std::string_view text, std::vector<std::byte>& out) {
  for (const char c : text) out.push_back(static_cast<std::byte>(c));
}

void AppendString(std::string_view text, std::vector<std::byte>& out) {
  AppendVarint(text.size(), out);
  AppendText(text, out);
}

// A trace header written by hand, with the name table `names`, as a future
// sectl whose enum is in another order would write it.
std::vector<std::byte> HandWrittenHeader(const std::vector<std::string>& names,
                                         uint32_t version = kTraceFormatVersion) {
  std::vector<std::byte> bytes;
  AppendText("SECTLTRC", bytes);
  for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<std::byte>(version >> (8 * i)));
  for (int i = 0; i < 5; ++i) AppendString("", bytes);
  AppendVarint(0, bytes);  // started
  AppendVarint(0, bytes);  // pid
  AppendVarint(names.size(), bytes);
  for (const auto& name : names) AppendString(name, bytes);
  return bytes;
}

// A record calling function number `number` of the name table, nothing else.
void AppendCallOfNumber(uint64_t number, std::vector<std::byte>& bytes) {
  bytes.push_back(std::byte{0});          // kCall
  AppendVarint(uint64_t{1} << 4, bytes);  // the function field alone
  AppendVarint(number, bytes);
}

TEST(TraceFormat, RoundTripsTheHeaderAndEveryField) {
  const std::vector<TraceRecord> records = {EveryFieldSet(), EveryFieldAtItsLimit(),
                                            EveryFieldSet()};
  const Trace trace = DecodeOrFail(EncodeTrace(SomeHeader(), records));
  EXPECT_EQ(trace.header, SomeHeader());
  EXPECT_EQ(trace.records, records);
  EXPECT_FALSE(trace.truncated);
}

TEST(TraceFormat, DefaultFieldsCostNothing) {
  std::vector<std::byte> bytes = EncodeHeader(SomeHeader());
  const size_t header_size = bytes.size();
  const std::vector<TraceRecord> records = {TraceRecord{}, TraceRecord{}};
  RecordContext previous;
  for (const auto& record : records) AppendEncodedRecord(record, previous, bytes);
  // A kind byte and an empty field mask each.
  EXPECT_EQ(bytes.size(), header_size + 4);
  EXPECT_EQ(DecodeOrFail(bytes).records, records);

  TraceRecord end;
  end.kind = RecordKind::kEnd;
  std::vector<std::byte> alone;
  RecordContext first;
  AppendEncodedRecord(end, first, alone);
  EXPECT_EQ(alone.size(), 2u);
}

TEST(TraceFormat, EveryFunctionRoundTrips) {
  std::vector<TraceRecord> records;
  for (const auto& info : abi::AllPluginFunctions()) {
    TraceRecord record;
    record.function = info.function;
    record.sequence = records.size() + 1;
    records.push_back(record);
  }
  EXPECT_EQ(DecodeOrFail(EncodeTrace(SomeHeader(), records)).records, records);
}

TEST(TraceFormat, DeltaEncodingTakesAnyOrder) {
  constexpr auto kMax = std::numeric_limits<uint64_t>::max();
  const std::vector<std::pair<uint64_t, uint64_t>> sequence_and_start = {
      {5, 1000}, {3, 900}, {kMax, 0}, {0, kMax}, {1, 1}, {kMax / 2 + 1, kMax / 2}, {2, 7}};
  std::vector<TraceRecord> records;
  for (const auto& [sequence, start] : sequence_and_start) {
    TraceRecord record;
    record.sequence = sequence;
    record.start_ns = start;
    record.function = PluginFunction::kCreateStream;
    records.push_back(record);
  }
  EXPECT_EQ(DecodeOrFail(EncodeTrace(SomeHeader(), records)).records, records);

  // Calls in order cost one byte each for their sequence and start.
  std::vector<std::byte> bytes;
  RecordContext previous{.sequence = 41, .start_ns = 1'000'000};
  TraceRecord next;
  next.sequence = 42;
  next.start_ns = 1'000'050;
  AppendEncodedRecord(next, previous, bytes);
  EXPECT_EQ(bytes.size(), 4u);
  EXPECT_EQ(previous.sequence, 42u);
  EXPECT_EQ(previous.start_ns, 1'000'050u);
}

// Cut after every byte: the header alone is an error (or not a trace);
// past it, the records read are a prefix of those written, flagged
// truncated unless the cut falls between records.
TEST(TraceFormat, EveryPrefixReadsAsARecordPrefixOrAnError) {
  TraceRecord end;
  end.kind = RecordKind::kEnd;
  TraceRecord ran;
  ran.kind = RecordKind::kCallbackRan;
  ran.callback = 1;
  ran.status = 0;
  const std::vector<TraceRecord> records = {EveryFieldSet(), TraceRecord{}, EveryFieldAtItsLimit(),
                                            ran, end};
  const std::vector<std::byte> header = EncodeHeader(SomeHeader());
  const std::vector<std::byte> whole = EncodeTrace(SomeHeader(), records);
  std::vector<size_t> record_ends;
  {
    std::vector<std::byte> bytes = header;
    RecordContext previous;
    for (const auto& record : records) {
      AppendEncodedRecord(record, previous, bytes);
      record_ends.push_back(bytes.size());
    }
  }
  for (size_t cut = 0; cut <= whole.size(); ++cut) {
    const std::span<const std::byte> prefix(whole.data(), cut);
    const auto trace = DecodeTrace(prefix);
    if (cut < header.size()) {
      ASSERT_FALSE(trace.has_value()) << "cut at " << cut;
      const auto expected_code =
          cut < 8 ? ErrorCode::kFailedPrecondition : ErrorCode::kInvalidArgument;
      EXPECT_EQ(trace.error().code(), expected_code) << trace.error().message();
      continue;
    }
    ASSERT_TRUE(trace.has_value()) << "cut at " << cut << ": " << trace.error().message();
    size_t whole_records = 0;
    while (whole_records < record_ends.size() && record_ends[whole_records] <= cut) {
      ++whole_records;
    }
    ASSERT_EQ(trace->records.size(), whole_records) << "cut at " << cut;
    for (size_t i = 0; i < whole_records; ++i) EXPECT_EQ(trace->records[i], records[i]);
    const bool between_records =
        cut == header.size() || (whole_records > 0 && record_ends[whole_records - 1] == cut);
    EXPECT_EQ(trace->truncated, !between_records) << "cut at " << cut;
  }
}

TEST(TraceFormat, RefusesAFileThatIsNotATrace) {
  std::vector<std::byte> elf;
  AppendText(
      "\x7f"
      "ELF\x02\x01\x01\x00 and more",
      elf);
  const auto trace = DecodeTrace(elf);
  ASSERT_FALSE(trace.has_value());
  EXPECT_EQ(trace.error().code(), ErrorCode::kFailedPrecondition);
  EXPECT_EQ(trace.error().message().rfind("not a sectl trace (", 0), 0u) << trace.error().message();
  EXPECT_NE(trace.error().message().find("7f 45 4c 46"), std::string::npos);

  const auto empty = DecodeTrace({});
  ASSERT_FALSE(empty.has_value());
  EXPECT_EQ(empty.error().code(), ErrorCode::kFailedPrecondition);
  EXPECT_NE(empty.error().message().find("empty"), std::string::npos);
}

TEST(TraceFormat, RefusesANewerVersionNamingBoth) {
  auto bytes = EncodeTrace(SomeHeader(), {TraceRecord{}});
  bytes[8] = static_cast<std::byte>(kTraceFormatVersion + 6);
  const auto trace = DecodeTrace(bytes);
  ASSERT_FALSE(trace.has_value());
  EXPECT_EQ(trace.error().code(), ErrorCode::kFailedPrecondition);
  const std::string& message = trace.error().message();
  EXPECT_NE(message.find(std::to_string(kTraceFormatVersion + 6)), std::string::npos) << message;
  EXPECT_NE(message.find("version " + std::to_string(kTraceFormatVersion)), std::string::npos)
      << message;

  bytes[8] = std::byte{0};
  const auto zero = DecodeTrace(bytes);
  ASSERT_FALSE(zero.has_value());
  EXPECT_EQ(zero.error().code(), ErrorCode::kInvalidArgument);
}

// Function numbers are positions in the file's own name table, so a trace
// whose writer numbered functions differently reads the same.
TEST(TraceFormat, FunctionsAreNamedByTheFilesNameTable) {
  auto bytes = HandWrittenHeader(
      {"SP_StreamExecutor.memset", "SE_InitPlugin", "SP_StreamExecutor.create_stream"});
  AppendCallOfNumber(2, bytes);
  bytes.push_back(std::byte{0});  // no function field: number 0
  AppendVarint(0, bytes);
  AppendCallOfNumber(1, bytes);
  const Trace trace = DecodeOrFail(bytes);
  ASSERT_EQ(trace.records.size(), 3u);
  EXPECT_EQ(trace.records[0].function, PluginFunction::kCreateStream);
  EXPECT_EQ(trace.records[1].function, PluginFunction::kMemset);
  EXPECT_EQ(trace.records[2].function, PluginFunction::kInitPlugin);
}

TEST(TraceFormat, RefusesAFunctionThisSectlDoesNotKnow) {
  auto bytes = HandWrittenHeader({"SE_InitPlugin", "SP_StreamExecutor.launch_kernel"});
  AppendCallOfNumber(0, bytes);  // a known function: fine
  const size_t unknown_at = bytes.size();
  AppendCallOfNumber(1, bytes);
  const auto trace = DecodeTrace(bytes);
  ASSERT_FALSE(trace.has_value());
  EXPECT_EQ(trace.error().code(), ErrorCode::kFailedPrecondition);
  const std::string& message = trace.error().message();
  EXPECT_NE(message.find("SP_StreamExecutor.launch_kernel"), std::string::npos) << message;
  EXPECT_NE(message.find(fmt::format("byte {}", unknown_at + 2)), std::string::npos) << message;

  // Named in the table but never called: the trace reads.
  bytes.resize(unknown_at);
  EXPECT_EQ(DecodeOrFail(bytes).records.size(), 1u);

  // The name is the file's bytes: the error stays one printable line.
  auto odd = HandWrittenHeader({"SP_Odd.\nname\x1b[31m"});
  AppendCallOfNumber(0, odd);
  const auto odd_trace = DecodeTrace(odd);
  ASSERT_FALSE(odd_trace.has_value());
  EXPECT_NE(odd_trace.error().message().find("SP_Odd.\\x0aname\\x1b[31m"), std::string::npos)
      << odd_trace.error().message();
}

TEST(TraceFormat, RefusesMalformedRecordsByOffset) {
  const std::vector<std::byte> header = EncodeHeader(SomeHeader());
  const std::string at = fmt::format("byte {}:", header.size());
  auto expect_invalid = [&](std::vector<std::byte> record, std::string_view fragment) {
    std::vector<std::byte> bytes = header;
    bytes.insert(bytes.end(), record.begin(), record.end());
    const auto trace = DecodeTrace(bytes);
    ASSERT_FALSE(trace.has_value()) << fragment;
    EXPECT_EQ(trace.error().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(trace.error().message().find(fragment), std::string::npos) << trace.error().message();
  };
  expect_invalid({std::byte{9}, std::byte{0}}, at + " unknown record kind 9");
  // A field bit past the last field.
  std::vector<std::byte> unknown_field = {std::byte{0}};
  AppendVarint(uint64_t{1} << 40, unknown_field);
  expect_invalid(unknown_field, "unknown fields");
  // A number of eleven bytes.
  std::vector<std::byte> long_number = {std::byte{0}};
  for (int i = 0; i < 10; ++i) long_number.push_back(std::byte{0xff});
  long_number.push_back(std::byte{0x01});
  expect_invalid(long_number, "longer than 64 bits");
  // A thread number past 32 bits.
  std::vector<std::byte> wide_thread = {std::byte{0}};
  AppendVarint(uint64_t{1} << 3, wide_thread);
  AppendVarint(uint64_t{1} << 33, wide_thread);
  expect_invalid(wide_thread, "does not fit in 32 bits");
  // A function number past the name table.
  std::vector<std::byte> no_such_function;
  AppendCallOfNumber(5000, no_such_function);
  expect_invalid(no_such_function, "not in the trace's name table");
}

TEST(TraceFormat, RefusesOversizedHeaderStringsWithoutAllocating) {
  std::vector<std::byte> bytes;
  AppendText("SECTLTRC", bytes);
  bytes.push_back(std::byte{1});
  bytes.insert(bytes.end(), 3, std::byte{0});
  AppendVarint(uint64_t{1} << 62, bytes);  // the sectl version's length
  const auto trace = DecodeTrace(bytes);
  ASSERT_FALSE(trace.has_value());
  EXPECT_EQ(trace.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(trace.error().message().find("byte 12:"), std::string::npos) << trace.error().message();

  auto many_names = HandWrittenHeader({});
  many_names.pop_back();
  AppendVarint(uint64_t{1} << 40, many_names);
  const auto table = DecodeTrace(many_names);
  ASSERT_FALSE(table.has_value());
  EXPECT_NE(table.error().message().find("name table"), std::string::npos)
      << table.error().message();
}

TEST(TraceChecksum, IsXxh3) {
  // XXH3-64 of the empty input, as published by xxHash.
  EXPECT_EQ(ChecksumOf("", 0), 0x2d06800538d394c2u);
  EXPECT_NE(ChecksumOf("a", 1), ChecksumOf("b", 1));
}

std::vector<TraceRecord> ManyRecords(size_t count) {
  std::vector<TraceRecord> records;
  for (size_t i = 0; i < count; ++i) {
    TraceRecord record = i % 3 == 0 ? EveryFieldSet() : TraceRecord{};
    record.sequence = i + 1;
    record.start_ns = i * 1000;
    records.push_back(record);
  }
  return records;
}

TEST(TraceWriter, WritesWhatTheReaderReads) {
  const testing::TemporaryDirectory directory;
  const std::string path = (directory.path() / "run.sectltrace").string();
  // Enough records to fill the writer's buffer several times.
  const std::vector<TraceRecord> records = ManyRecords(10'000);
  {
    auto writer = TraceWriter::Create(path, SomeHeader());
    ASSERT_TRUE(writer.has_value()) << writer.error().message();
    for (const auto& record : records) (*writer)->Append(record);
    const auto closed = (*writer)->Close();
    EXPECT_TRUE(closed.has_value()) << closed.error().message();
  }
  const auto trace = ReadTraceFile(path);
  ASSERT_TRUE(trace.has_value()) << trace.error().message();
  EXPECT_EQ(trace->header, SomeHeader());
  EXPECT_EQ(trace->records, records);
  EXPECT_FALSE(trace->truncated);
}

TEST(TraceWriter, FlushWritesWholeRecordsAndAppendsGoOn) {
  const testing::TemporaryDirectory directory;
  const std::string path = (directory.path() / "flushed.sectltrace").string();
  auto writer = TraceWriter::Create(path, SomeHeader());
  ASSERT_TRUE(writer.has_value()) << writer.error().message();
  // The header is on disk at once: a process that dies now leaves a trace.
  auto empty = ReadTraceFile(path);
  ASSERT_TRUE(empty.has_value()) << empty.error().message();
  EXPECT_TRUE(empty->records.empty());

  const std::vector<TraceRecord> records = ManyRecords(5);
  (*writer)->Append(records[0]);
  (*writer)->Append(records[1]);
  (*writer)->Flush();
  auto flushed = ReadTraceFile(path);
  ASSERT_TRUE(flushed.has_value()) << flushed.error().message();
  EXPECT_EQ(flushed->records, std::vector<TraceRecord>(records.begin(), records.begin() + 2));
  (*writer)->Flush();  // nothing new: nothing written twice
  for (size_t i = 2; i < records.size(); ++i) (*writer)->Append(records[i]);
  ASSERT_TRUE((*writer)->Close().has_value());
  (*writer)->Append(records[0]);  // after Close: dropped
  (*writer)->Flush();
  auto closed = ReadTraceFile(path);
  ASSERT_TRUE(closed.has_value()) << closed.error().message();
  EXPECT_EQ(closed->records, records);
}

TEST(TraceWriter, SaysWhyItCannotCreateTheFile) {
  const auto writer = TraceWriter::Create("/nonexistent-directory/run.sectltrace", SomeHeader());
  ASSERT_FALSE(writer.has_value());
  EXPECT_NE(writer.error().message().find("/nonexistent-directory/run.sectltrace"),
            std::string::npos);
}

TEST(TraceWriter, ReportsADiskFullAtClose) {
  if (!std::ifstream("/dev/full")) GTEST_SKIP() << "no /dev/full";
  auto writer = TraceWriter::Create("/dev/full", SomeHeader());
  // Linux refuses the header already; either way the error is seen.
  if (!writer) {
    EXPECT_EQ(writer.error().code(), ErrorCode::kIoError);
    return;
  }
  (*writer)->Append(EveryFieldSet());
  const auto closed = (*writer)->Close();
  EXPECT_FALSE(closed.has_value());
}

TEST(TraceReader, NamesTheFileInErrors) {
  const auto missing = ReadTraceFile("/nonexistent/trace");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(missing.error().message().find("/nonexistent/trace"), std::string::npos);

  const testing::TemporaryDirectory directory;
  const std::string path = (directory.path() / "notes.txt").string();
  std::ofstream(path) << "hello\n";
  const auto not_trace = ReadTraceFile(path);
  ASSERT_FALSE(not_trace.has_value());
  EXPECT_EQ(not_trace.error().code(), ErrorCode::kFailedPrecondition);
  EXPECT_EQ(not_trace.error().message().rfind(path + ": not a sectl trace (", 0), 0u)
      << not_trace.error().message();

  const auto directory_read = ReadTraceFile(directory.path().string());
  ASSERT_FALSE(directory_read.has_value());
  // What the path is, not a failed read: only regular files are read.
  EXPECT_EQ(directory_read.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(directory_read.error().message().find("is a directory, not a regular file"),
            std::string::npos)
      << directory_read.error().message();
}

// Version 3 added the record of a call the validation layer withheld:
// read from a version 3 file, refused in a version 2 file, whose kinds end
// at 3.
TEST(TraceFormat, WithheldCallRecordsBelongToVersionThree) {
  TraceRecord withheld;
  withheld.kind = RecordKind::kCallWithheld;
  withheld.sequence = 9;
  withheld.function = abi::PluginFunction::kRecordEvent;
  const Trace trace = DecodeOrFail(EncodeTrace(SomeHeader(), {withheld}));
  ASSERT_EQ(trace.records.size(), 1U);
  EXPECT_EQ(trace.records[0].kind, RecordKind::kCallWithheld);

  std::vector<std::byte> version_two = HandWrittenHeader({"SE_InitPlugin"}, 2);
  version_two.push_back(std::byte{4});  // kCallWithheld
  AppendVarint(0, version_two);         // no fields
  const auto refused = DecodeTrace(version_two);
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().message().find("unknown record kind 4"), std::string::npos)
      << refused.error().message();
}

// Version 2 added the record of the call in flight at a crash: read from a
// version 2 file, refused in a version 1 file, whose kinds end at 2.
TEST(TraceFormat, CallInFlightRecordsBelongToVersionTwo) {
  TraceRecord in_flight;
  in_flight.kind = RecordKind::kCallInFlight;
  in_flight.sequence = 7;
  in_flight.function = abi::PluginFunction::kCreateStream;
  const Trace trace = DecodeOrFail(EncodeTrace(SomeHeader(), {in_flight}));
  ASSERT_EQ(trace.records.size(), 1U);
  EXPECT_EQ(trace.records[0].kind, RecordKind::kCallInFlight);

  std::vector<std::byte> version_one = HandWrittenHeader({"SE_InitPlugin"}, 1);
  version_one.push_back(std::byte{3});  // kCallInFlight
  AppendVarint(0, version_one);         // no fields
  const auto refused = DecodeTrace(version_one);
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().message().find("unknown record kind 3"), std::string::npos)
      << refused.error().message();
}

// A record can be 2 bytes (a kind and an empty field mask) but takes 168
// in memory: past max_records the reader refuses the trace, by the offset
// of the first record too many, instead of growing without bound.
TEST(TraceFormat, RefusesMoreRecordsThanItsCap) {
  std::vector<std::byte> bytes = EncodeHeader(SomeHeader());
  const size_t header_bytes = bytes.size();
  for (int i = 0; i < 4; ++i) bytes.insert(bytes.end(), 2, std::byte{0});
  auto at_the_cap = DecodeTrace(bytes, 4);
  ASSERT_TRUE(at_the_cap) << at_the_cap.error().message();
  EXPECT_EQ(at_the_cap->records.size(), 4u);
  EXPECT_EQ(at_the_cap->records.capacity(), 4u);  // counted first, reserved once
  bytes.insert(bytes.end(), 2, std::byte{0});
  auto over = DecodeTrace(bytes, 4);
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(over.error().message(),
            fmt::format("byte {}: more than 4 records, the most sectl reads from one trace (each "
                        "takes {} bytes in memory); record a shorter run",
                        header_bytes + 8, sizeof(TraceRecord)));
}

}  // namespace
}  // namespace sectl::trace
