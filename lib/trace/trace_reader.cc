#include "trace/trace_reader.h"

#include <span>

#include "base/regular_file.h"
#include "trace/trace_format.h"

namespace sectl::trace {

Expected<Trace> ReadTraceFile(const std::string& path) {
  auto bytes = ReadRegularFile(path, kMaxTraceFileBytes, "trace");
  if (!bytes) return tl::unexpected(bytes.error());
  auto trace = DecodeTrace(std::as_bytes(std::span(*bytes)));
  if (!trace) return tl::unexpected(trace.error().WithContext(path));
  return trace;
}

}  // namespace sectl::trace
