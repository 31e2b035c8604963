// Fuzzes the trace decoder: a trace is a file a traced process wrote and
// may have died writing, or anything a user names. Any bytes must decode or
// give a one-line error; what decodes must summarise, render, and encode
// back to a trace that decodes to the same records.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "base/json_text.h"
#include "trace/trace_format.h"
#include "trace/trace_summary.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  const auto trace = sectl::trace::DecodeTrace(bytes);
  if (!trace) {
    const std::string& message = trace.error().message();
    if (message.empty() || message.find('\n') != std::string::npos) std::abort();
    return 0;
  }
  const auto summary = sectl::trace::SummarizeTrace(*trace, sectl::trace::kWholeTimeline);
  if (summary.records != trace->records.size()) std::abort();
  (void)sectl::trace::RenderTraceSummaryText(summary);
  // Header strings are the traced process's bytes, not always UTF-8.
  (void)sectl::EncodeJson(sectl::trace::TraceSummaryToJson(summary), 2);

  std::vector<std::byte> again = sectl::trace::EncodeHeader(trace->header);
  sectl::trace::RecordContext previous;
  for (const auto& record : trace->records) {
    sectl::trace::AppendEncodedRecord(record, previous, again);
  }
  const auto reread = sectl::trace::DecodeTrace(again);
  if (!reread || reread->records != trace->records || reread->truncated) std::abort();
  return 0;
}
