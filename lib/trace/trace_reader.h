// Reads a trace file written by libsectl_validate.so.
#pragma once

#include <string>

#include "base/error.h"
#include "trace/trace_record.h"

namespace sectl::trace {

// The whole trace in `path`. Errors: kNotFound (no such file), kIoError
// (unreadable), kFailedPrecondition (not a trace, or a newer format),
// kInvalidArgument (malformed, with the byte offset).
Expected<Trace> ReadTraceFile(const std::string& path);

}  // namespace sectl::trace
