// The binary encoding of a trace (trace/trace_record.h): compact, versioned,
// and readable from any prefix, so that a process that died mid-run still
// leaves a trace up to its last whole record. docs/trace-format.md
// describes the bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "base/error.h"
#include "trace/trace_record.h"

namespace sectl::trace {

// The version this sectl writes. A reader accepts this version and older
// ones; a newer file is an error that names both versions.
inline constexpr uint32_t kTraceFormatVersion = 3;

// The bytes a trace file starts with: magic, version and header. The header
// carries the name table: the qualified name (abi::QualifiedName) of every
// function in abi::AllPluginFunctions(), whose positions are the function
// numbers records use, so a trace stays readable when the enum is reordered.
std::vector<std::byte> EncodeHeader(const TraceHeader& header);

// The most records a reader keeps from one trace. A record can take as
// little as 2 bytes in a file, and a real one about 19, but each takes
// sizeof(TraceRecord) (168 bytes) in memory: this bounds what a
// crafted file can make sectl allocate (672 MiB) while reading
// real traces of millions of calls.
inline constexpr size_t kMaxTraceRecords = size_t{1} << 22;

// The most bytes one record takes encoded.
inline constexpr size_t kMaxEncodedRecordBytes = 256;

// What a record is encoded against: `sequence` and `start_ns` are stored as
// differences from those of the record before it in the file (zero before
// the first record).
struct RecordContext {
  uint64_t sequence = 0;
  uint64_t start_ns = 0;
};

// Encodes `record` against `previous` into `out`, moves `previous` on to
// `record`, and returns the number of bytes used. Allocates nothing and
// takes no lock, for the trace writer. `record.function` must be one of
// abi::AllPluginFunctions() (TVM hooks are not traced); any other value is
// written as a function number no reader accepts.
size_t EncodeRecord(const TraceRecord& record, RecordContext& previous,
                    std::span<std::byte, kMaxEncodedRecordBytes> out);

// Appends one record's bytes to `out`, encoded against `previous` (which
// moves on to `record`).
void AppendEncodedRecord(const TraceRecord& record, RecordContext& previous,
                         std::vector<std::byte>& out);

// A whole trace from its bytes. A file cut off inside its last record reads
// as the records before it with `truncated` set; anything else malformed
// (not a trace, a newer version, a record that contradicts the format) is
// an error naming the byte offset.
//   kFailedPrecondition: not a trace ("not a sectl trace (...)"), a newer
//     format version, or a function this sectl does not know;
//   kInvalidArgument: malformed, cut off inside the header, or more than
//     `max_records` records.
Expected<Trace> DecodeTrace(std::span<const std::byte> bytes,
                            size_t max_records = kMaxTraceRecords);

}  // namespace sectl::trace
