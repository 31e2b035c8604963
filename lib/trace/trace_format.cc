#include "trace/trace_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "abi/plugin_functions.h"

namespace sectl::trace {
namespace {

constexpr std::array<char, 8> kMagic = {'S', 'E', 'C', 'T', 'L', 'T', 'R', 'C'};
constexpr size_t kVersionOffset = kMagic.size();
constexpr size_t kHeaderFieldsOffset = kVersionOffset + sizeof(uint32_t);

// Hostile input must not make the reader allocate much: a header string is
// a path or a name, a function name is "Struct.member".
constexpr uint64_t kMaxHeaderStringBytes = uint64_t{64} * 1024;
constexpr uint64_t kMaxFunctionNameBytes = 256;
constexpr uint64_t kMaxFunctionNames = 4096;

// A record's fields, by the bit that says the field is present. The order
// is the order of the fields' bytes and is part of the format: new fields
// take new bits at the end (in a new format version).
enum Field : unsigned {
  kSequence,  // zigzag difference from the previous record's
  kStartNs,   // zigzag difference from the previous record's
  kDurationNs,
  kThread,
  kFunction,  // number in the header's name table; absent: number 0
  kDevice,    // zigzag; absent: -1
  kStream,
  kOtherStream,
  kEvent,
  kTimer,
  kHostAllocation,
  kCallback,
  kCreated,
  kDestinationAllocation,
  kDestinationOffset,
  kDestinationSize,
  kSourceAllocation,
  kSourceOffset,
  kSourceSize,
  kSize,
  kMemorySpace,  // zigzag
  kPattern,
  kStatus,    // zigzag; absent: -1
  kResult,    // zigzag
  kChecksum,  // 8 bytes little-endian; present exactly when has_checksum
  kFieldCount,
};
constexpr uint64_t kKnownFieldsMask = (uint64_t{1} << kFieldCount) - 1;

constexpr uint64_t ZigzagEncode(int64_t value) {
  return (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
}
constexpr int64_t ZigzagDecode(uint64_t value) {
  return static_cast<int64_t>((value >> 1) ^ (~(value & 1) + 1));
}
static_assert(ZigzagDecode(ZigzagEncode(-1)) == -1);
static_assert(ZigzagDecode(ZigzagEncode(std::numeric_limits<int64_t>::min())) ==
              std::numeric_limits<int64_t>::min());
static_assert(ZigzagEncode(-1) == 1 && ZigzagEncode(1) == 2);

// The difference b - a as a signed number, wrapping: any two uint64 values
// have one, and a + difference gives b back.
constexpr int64_t WrappingDifference(uint64_t from, uint64_t to) {
  return static_cast<int64_t>(to - from);
}

// `text` from the file for a one-line error: printable ASCII as it is,
// every other byte as \xNN.
std::string Printable(std::string_view text) {
  std::string printable;
  for (const char c : text) {
    if (c >= ' ' && c <= '~' && c != '\\') {
      printable += c;
    } else {
      printable += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    }
  }
  return printable;
}

// Writes into a buffer known to be large enough: no check, no allocation.
// A record takes at most 180 bytes: kind 1, mask 4, three 64-bit numbers
// and the result, size, memory space, offsets and sizes at 10 each, the
// checksum 8, and 32-bit numbers at 5 each.
class FixedByteSink {
 public:
  explicit FixedByteSink(std::span<std::byte, kMaxEncodedRecordBytes> out) : out_(out) {}
  void Byte(uint8_t value) { out_[size_++] = std::byte{value}; }
  void Varint(uint64_t value) {
    while (value >= 0x80) {
      Byte(static_cast<uint8_t>(value | 0x80));
      value >>= 7;
    }
    Byte(static_cast<uint8_t>(value));
  }
  void Fixed64(uint64_t value) {
    for (int i = 0; i < 8; ++i) Byte(static_cast<uint8_t>(value >> (8 * i)));
  }
  size_t size() const { return size_; }

 private:
  std::span<std::byte, kMaxEncodedRecordBytes> out_;
  size_t size_ = 0;
};

void AppendVarint(uint64_t value, std::vector<std::byte>& out) {
  while (value >= 0x80) {
    out.push_back(static_cast<std::byte>(value | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<std::byte>(value));
}

void AppendString(std::string_view text, std::vector<std::byte>& out) {
  AppendVarint(text.size(), out);
  for (const char c : text) out.push_back(static_cast<std::byte>(c));
}

// The function's number in the name table EncodeHeader writes: its
// position in abi::AllPluginFunctions(), which today is its enum value.
uint64_t FunctionNumber(abi::PluginFunction function) {
  const auto functions = abi::AllPluginFunctions();
  const auto guess = static_cast<size_t>(function);
  if (guess < functions.size() && functions[guess].function == function) return guess;
  for (size_t i = 0; i < functions.size(); ++i) {
    if (functions[i].function == function) return i;
  }
  return functions.size();  // in no table: the reader rejects it
}

// The value each field stores, or nullopt when it keeps its default.
struct FieldValues {
  std::array<uint64_t, kFieldCount> values{};
  uint64_t mask = 0;
  void Set(Field field, uint64_t value, bool present) {
    if (!present) return;
    values[field] = value;
    mask |= uint64_t{1} << field;
  }
  void SetUnlessZero(Field field, uint64_t value) { Set(field, value, value != 0); }
};

FieldValues FieldsOf(const TraceRecord& record, const RecordContext& previous) {
  FieldValues fields;
  const int64_t sequence_step = WrappingDifference(previous.sequence, record.sequence);
  fields.SetUnlessZero(kSequence, ZigzagEncode(sequence_step));
  const int64_t start_step = WrappingDifference(previous.start_ns, record.start_ns);
  fields.SetUnlessZero(kStartNs, ZigzagEncode(start_step));
  fields.SetUnlessZero(kDurationNs, record.duration_ns);
  fields.SetUnlessZero(kThread, record.thread);
  fields.SetUnlessZero(kFunction, FunctionNumber(record.function));
  fields.Set(kDevice, ZigzagEncode(record.device), record.device != -1);
  fields.SetUnlessZero(kStream, record.stream);
  fields.SetUnlessZero(kOtherStream, record.other_stream);
  fields.SetUnlessZero(kEvent, record.event);
  fields.SetUnlessZero(kTimer, record.timer);
  fields.SetUnlessZero(kHostAllocation, record.host_allocation);
  fields.SetUnlessZero(kCallback, record.callback);
  fields.SetUnlessZero(kCreated, record.created);
  fields.SetUnlessZero(kDestinationAllocation, record.destination.allocation);
  fields.SetUnlessZero(kDestinationOffset, record.destination.offset);
  fields.SetUnlessZero(kDestinationSize, record.destination.size);
  fields.SetUnlessZero(kSourceAllocation, record.source.allocation);
  fields.SetUnlessZero(kSourceOffset, record.source.offset);
  fields.SetUnlessZero(kSourceSize, record.source.size);
  fields.SetUnlessZero(kSize, record.size);
  fields.SetUnlessZero(kMemorySpace, ZigzagEncode(record.memory_space));
  fields.SetUnlessZero(kPattern, record.pattern);
  fields.Set(kStatus, ZigzagEncode(record.status), record.status != -1);
  fields.SetUnlessZero(kResult, ZigzagEncode(record.result));
  fields.Set(kChecksum, record.checksum, record.has_checksum);
  return fields;
}

// Reads a trace's bytes front to back. Each Read* answers kRead, or
// kCutOff when the bytes end first, or kMalformed with error_ set.
enum class Outcome { kRead, kCutOff, kMalformed };

class TraceDecoder {
 public:
  TraceDecoder(std::span<const std::byte> bytes, size_t max_records)
      : bytes_(bytes), max_records_(max_records) {}

  // The trace; with `reserve`, its records vector is reserved to hold that
  // many (a first pass counted them), else records are counted, not kept.
  Expected<Trace> Decode(std::optional<size_t> reserve) {
    Trace trace;
    if (auto checked = CheckMagicAndVersion(trace.header); !checked) {
      return tl::unexpected(checked.error());
    }
    switch (ReadHeaderFields(trace.header)) {
      case Outcome::kRead:
        break;
      case Outcome::kCutOff:
        return Fail(ErrorCode::kInvalidArgument,
                    fmt::format("the trace header is cut off at byte {}", bytes_.size()));
      case Outcome::kMalformed:
        return tl::unexpected(*error_);
    }
    if (reserve) trace.records.reserve(*reserve);
    RecordContext previous;
    while (position_ < bytes_.size()) {
      const size_t record_start = position_;
      TraceRecord record;
      const Outcome outcome = ReadRecord(previous, record);
      if (outcome == Outcome::kCutOff) {
        trace.truncated = true;
        break;
      }
      if (outcome == Outcome::kMalformed) return tl::unexpected(*error_);
      if (records_read_ == max_records_) {
        return Fail(ErrorCode::kInvalidArgument,
                    fmt::format("byte {}: more than {} records, the most sectl reads from one "
                                "trace (each takes {} bytes in memory); record a shorter run",
                                record_start, max_records_, sizeof(TraceRecord)));
      }
      ++records_read_;
      if (reserve) trace.records.push_back(record);
    }
    return trace;
  }

  size_t records_read() const { return records_read_; }

 private:
  Expected<void> CheckMagicAndVersion(TraceHeader& header) {
    const size_t magic_bytes = std::min(bytes_.size(), kMagic.size());
    const bool magic_matches = std::equal(
        bytes_.begin(), bytes_.begin() + static_cast<ptrdiff_t>(magic_bytes), kMagic.begin(),
        [](std::byte byte, char c) { return byte == static_cast<std::byte>(c); });
    if (bytes_.empty()) {
      return Fail(ErrorCode::kFailedPrecondition, "not a sectl trace (the file is empty)");
    }
    if (magic_matches && bytes_.size() < kMagic.size()) {
      return Fail(ErrorCode::kFailedPrecondition,
                  fmt::format("not a sectl trace (only {} bytes long)", bytes_.size()));
    }
    if (!magic_matches) {
      return Fail(ErrorCode::kFailedPrecondition,
                  fmt::format("not a sectl trace (it starts with {}, not \"SECTLTRC\")",
                              HexOfStart(magic_bytes)));
    }
    if (bytes_.size() < kHeaderFieldsOffset) {
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("the trace header is cut off at byte {}", bytes_.size()));
    }
    uint32_t version = 0;
    for (size_t i = 0; i < sizeof(uint32_t); ++i) {
      version |= std::to_integer<uint32_t>(bytes_[kVersionOffset + i]) << (8 * i);
    }
    if (version > kTraceFormatVersion) {
      return Fail(ErrorCode::kFailedPrecondition,
                  fmt::format("the trace is in format version {}, newer than the version {} this "
                              "sectl reads; read it with a newer sectl",
                              version, kTraceFormatVersion));
    }
    if (version == 0) {
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("byte {}: trace format version 0 does not exist", kVersionOffset));
    }
    header.format_version = version;
    version_ = version;
    position_ = kHeaderFieldsOffset;
    return {};
  }

  std::string HexOfStart(size_t count) const {
    std::string hex;
    for (size_t i = 0; i < count; ++i) {
      hex += fmt::format("{}{:02x}", i == 0 ? "" : " ", std::to_integer<unsigned>(bytes_[i]));
    }
    return hex;
  }

  Outcome Malformed(size_t offset, std::string what) {
    error_.emplace(ErrorCode::kInvalidArgument, fmt::format("byte {}: {}", offset, what));
    return Outcome::kMalformed;
  }

  Outcome ReadVarint(uint64_t& value) {
    const size_t start = position_;
    value = 0;
    for (unsigned shift = 0;; shift += 7) {
      if (position_ >= bytes_.size()) return Outcome::kCutOff;
      const auto byte = std::to_integer<uint64_t>(bytes_[position_++]);
      // The tenth byte holds bit 63 alone.
      if (shift == 63 && byte > 1) return Malformed(start, "a number longer than 64 bits");
      value |= (byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return Outcome::kRead;
    }
  }

  Outcome ReadString(uint64_t max_bytes, std::string_view what, std::string& text) {
    const size_t start = position_;
    uint64_t length = 0;
    if (const Outcome outcome = ReadVarint(length); outcome != Outcome::kRead) return outcome;
    if (length > max_bytes) {
      return Malformed(start, fmt::format("{} of {} bytes, longer than the {} allowed", what,
                                          length, max_bytes));
    }
    if (length > bytes_.size() - position_) return Outcome::kCutOff;
    const auto* first = reinterpret_cast<const char*>(bytes_.data() + position_);
    text.assign(first, static_cast<size_t>(length));
    position_ += static_cast<size_t>(length);
    return Outcome::kRead;
  }

  // A number that must fit `Narrow`, read from `value` read at `offset`.
  template <typename Narrow>
  Outcome Narrowed(uint64_t value, size_t offset, std::string_view what, Narrow& out) {
    if (value > std::numeric_limits<Narrow>::max()) {
      return Malformed(offset, fmt::format("{} {} does not fit in 32 bits", what, value));
    }
    out = static_cast<Narrow>(value);
    return Outcome::kRead;
  }
  Outcome SignedNarrowed(uint64_t zigzag, size_t offset, std::string_view what, int32_t& out) {
    const int64_t value = ZigzagDecode(zigzag);
    if (value < std::numeric_limits<int32_t>::min() ||
        value > std::numeric_limits<int32_t>::max()) {
      return Malformed(offset, fmt::format("{} {} does not fit in 32 bits", what, value));
    }
    out = static_cast<int32_t>(value);
    return Outcome::kRead;
  }

  Outcome ReadHeaderFields(TraceHeader& header) {
    for (auto [text, what] : {std::pair{&header.sectl_version, "the sectl version"},
                              std::pair{&header.plugin_path, "the plugin path"},
                              std::pair{&header.plugin_sha256, "the plugin's SHA-256"},
                              std::pair{&header.platform_name, "the platform name"},
                              std::pair{&header.host_program, "the host program"}}) {
      if (const Outcome outcome = ReadString(kMaxHeaderStringBytes, what, *text);
          outcome != Outcome::kRead) {
        return outcome;
      }
    }
    uint64_t value = 0;
    if (const Outcome outcome = ReadVarint(value); outcome != Outcome::kRead) return outcome;
    header.started_unix_ms = ZigzagDecode(value);
    size_t offset = position_;
    if (const Outcome outcome = ReadVarint(value); outcome != Outcome::kRead) return outcome;
    if (const Outcome outcome = Narrowed(value, offset, "process id", header.process_id);
        outcome != Outcome::kRead) {
      return outcome;
    }
    return ReadNameTable();
  }

  // The header's function names, each mapped to this sectl's enum, or to
  // nullopt when this sectl does not know it: that is an error only when
  // a record calls the function.
  Outcome ReadNameTable() {
    const size_t offset = position_;
    uint64_t count = 0;
    if (const Outcome outcome = ReadVarint(count); outcome != Outcome::kRead) return outcome;
    if (count > kMaxFunctionNames) {
      return Malformed(offset, fmt::format("a name table of {} functions, more than the {} allowed",
                                           count, kMaxFunctionNames));
    }
    std::map<std::string_view, abi::PluginFunction> known;
    for (const auto& info : abi::AllPluginFunctions()) {
      known.emplace(abi::QualifiedName(info.function), info.function);
    }
    for (uint64_t i = 0; i < count; ++i) {
      std::string name;
      if (const Outcome outcome = ReadString(kMaxFunctionNameBytes, "a function name", name);
          outcome != Outcome::kRead) {
        return outcome;
      }
      const auto found = known.find(name);
      functions_.push_back(found == known.end()
                               ? std::optional<abi::PluginFunction>()
                               : std::optional<abi::PluginFunction>(found->second));
      function_names_.push_back(std::move(name));
    }
    return Outcome::kRead;
  }

  Outcome ReadRecord(RecordContext& previous, TraceRecord& record) {
    const size_t record_start = position_;
    const auto kind = std::to_integer<uint8_t>(bytes_[position_++]);
    // Version 2 added the record of a call in flight at a crash, version 3
    // that of a call the validation layer withheld.
    const RecordKind last_kind = version_ >= 3   ? RecordKind::kCallWithheld
                                 : version_ >= 2 ? RecordKind::kCallInFlight
                                                 : RecordKind::kEnd;
    if (kind > static_cast<uint8_t>(last_kind)) {
      return Malformed(record_start, fmt::format("unknown record kind {}", kind));
    }
    record.kind = static_cast<RecordKind>(kind);
    const size_t mask_offset = position_;
    uint64_t mask = 0;
    if (const Outcome outcome = ReadVarint(mask); outcome != Outcome::kRead) return outcome;
    if ((mask & ~kKnownFieldsMask) != 0) {
      return Malformed(mask_offset, fmt::format("unknown fields (mask {:#x}) in a record", mask));
    }
    uint64_t function_number = 0;
    size_t function_offset = position_;
    for (unsigned field = 0; field < kFieldCount; ++field) {
      if ((mask & (uint64_t{1} << field)) == 0) continue;
      const size_t offset = position_;
      uint64_t value = 0;
      const Outcome outcome = field == kChecksum ? ReadFixed64(value) : ReadVarint(value);
      if (outcome != Outcome::kRead) return outcome;
      if (field == kFunction) {
        function_number = value;
        function_offset = offset;
      }
      if (const Outcome stored = Store(static_cast<Field>(field), value, offset, record);
          stored != Outcome::kRead) {
        return stored;
      }
    }
    record.sequence = previous.sequence + record.sequence;  // Store kept the step
    record.start_ns = previous.start_ns + record.start_ns;
    previous = {.sequence = record.sequence, .start_ns = record.start_ns};
    return ResolveFunction(function_number, function_offset, record);
  }

  Outcome ReadFixed64(uint64_t& value) {
    if (bytes_.size() - position_ < 8) return Outcome::kCutOff;
    value = 0;
    for (size_t i = 0; i < 8; ++i) {
      value |= std::to_integer<uint64_t>(bytes_[position_++]) << (8 * i);
    }
    return Outcome::kRead;
  }

  Outcome ResolveFunction(uint64_t number, size_t offset, TraceRecord& record) {
    if (number >= functions_.size()) {
      return Malformed(offset, fmt::format("function number {} is not in the trace's name table "
                                           "of {} functions",
                                           number, functions_.size()));
    }
    const auto& function = functions_[static_cast<size_t>(number)];
    if (!function) {
      error_.emplace(ErrorCode::kFailedPrecondition,
                     fmt::format("byte {}: the trace calls plugin function \"{}\", which this "
                                 "sectl does not know (was the trace written by a newer sectl?)",
                                 offset, Printable(function_names_[static_cast<size_t>(number)])));
      return Outcome::kMalformed;
    }
    record.function = *function;
    return Outcome::kRead;
  }

  // Sets the field of `record` from its stored value. sequence and start_ns
  // get the difference from the previous record; ReadRecord adds it.
  Outcome Store(Field field, uint64_t value, size_t offset, TraceRecord& record) {
    switch (field) {
      case kSequence:
        record.sequence = static_cast<uint64_t>(ZigzagDecode(value));
        return Outcome::kRead;
      case kStartNs:
        record.start_ns = static_cast<uint64_t>(ZigzagDecode(value));
        return Outcome::kRead;
      case kDurationNs:
        record.duration_ns = value;
        return Outcome::kRead;
      case kThread:
        return Narrowed(value, offset, "thread", record.thread);
      case kFunction:
        return Outcome::kRead;  // resolved once the record is read
      case kDevice:
        return SignedNarrowed(value, offset, "device", record.device);
      case kStream:
        return Narrowed(value, offset, "stream", record.stream);
      case kOtherStream:
        return Narrowed(value, offset, "stream", record.other_stream);
      case kEvent:
        return Narrowed(value, offset, "event", record.event);
      case kTimer:
        return Narrowed(value, offset, "timer", record.timer);
      case kHostAllocation:
        return Narrowed(value, offset, "host allocation", record.host_allocation);
      case kCallback:
        return Narrowed(value, offset, "callback", record.callback);
      case kCreated:
        return Narrowed(value, offset, "created object", record.created);
      case kDestinationAllocation:
        return Narrowed(value, offset, "allocation", record.destination.allocation);
      case kDestinationOffset:
        record.destination.offset = value;
        return Outcome::kRead;
      case kDestinationSize:
        record.destination.size = value;
        return Outcome::kRead;
      case kSourceAllocation:
        return Narrowed(value, offset, "allocation", record.source.allocation);
      case kSourceOffset:
        record.source.offset = value;
        return Outcome::kRead;
      case kSourceSize:
        record.source.size = value;
        return Outcome::kRead;
      case kSize:
        record.size = value;
        return Outcome::kRead;
      case kMemorySpace:
        record.memory_space = ZigzagDecode(value);
        return Outcome::kRead;
      case kPattern:
        return Narrowed(value, offset, "pattern", record.pattern);
      case kStatus:
        return SignedNarrowed(value, offset, "status", record.status);
      case kResult:
        record.result = ZigzagDecode(value);
        return Outcome::kRead;
      case kChecksum:
        record.checksum = value;
        record.has_checksum = true;
        return Outcome::kRead;
      case kFieldCount:
        break;
    }
    return Malformed(offset, "unknown field");
  }

  std::span<const std::byte> bytes_;
  size_t max_records_;
  size_t records_read_ = 0;
  size_t position_ = 0;
  uint32_t version_ = kTraceFormatVersion;  // the file's, once its header is read
  std::optional<Error> error_;
  std::vector<std::optional<abi::PluginFunction>> functions_;
  std::vector<std::string> function_names_;
};

}  // namespace

std::vector<std::byte> EncodeHeader(const TraceHeader& header) {
  std::vector<std::byte> out;
  out.reserve(kHeaderFieldsOffset);
  for (const char c : kMagic) out.push_back(static_cast<std::byte>(c));
  for (size_t i = 0; i < sizeof(uint32_t); ++i) {
    out.push_back(static_cast<std::byte>(kTraceFormatVersion >> (8 * i)));
  }
  AppendString(header.sectl_version, out);
  AppendString(header.plugin_path, out);
  AppendString(header.plugin_sha256, out);
  AppendString(header.platform_name, out);
  AppendString(header.host_program, out);
  AppendVarint(ZigzagEncode(header.started_unix_ms), out);
  AppendVarint(header.process_id, out);
  const auto functions = abi::AllPluginFunctions();
  AppendVarint(functions.size(), out);
  for (const auto& info : functions) AppendString(abi::QualifiedName(info.function), out);
  return out;
}

size_t EncodeRecord(const TraceRecord& record, RecordContext& previous,
                    std::span<std::byte, kMaxEncodedRecordBytes> out) {
  const FieldValues fields = FieldsOf(record, previous);
  FixedByteSink sink(out);
  sink.Byte(static_cast<uint8_t>(record.kind));
  sink.Varint(fields.mask);
  for (unsigned field = 0; field < kFieldCount; ++field) {
    if ((fields.mask & (uint64_t{1} << field)) == 0) continue;
    if (field == kChecksum) {
      sink.Fixed64(fields.values[field]);
    } else {
      sink.Varint(fields.values[field]);
    }
  }
  previous = {.sequence = record.sequence, .start_ns = record.start_ns};
  return sink.size();
}

void AppendEncodedRecord(const TraceRecord& record, RecordContext& previous,
                         std::vector<std::byte>& out) {
  std::array<std::byte, kMaxEncodedRecordBytes> encoded{};
  const size_t size = EncodeRecord(record, previous, encoded);
  out.insert(out.end(), encoded.begin(), encoded.begin() + static_cast<ptrdiff_t>(size));
}

Expected<Trace> DecodeTrace(std::span<const std::byte> bytes, size_t max_records) {
  // A record takes as little as 2 bytes in the file and 168 in
  // memory: a first pass counts the records (and refuses too many) so the
  // second keeps them in one allocation of exactly their size.
  TraceDecoder counter(bytes, max_records);
  if (auto counted = counter.Decode(std::nullopt); !counted) return counted;
  return TraceDecoder(bytes, max_records).Decode(counter.records_read());
}

}  // namespace sectl::trace
