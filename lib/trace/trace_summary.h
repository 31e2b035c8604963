// What `sectl trace show` says about a trace: where it came from, what was
// called how often and for how long, what was moved, on which streams, and
// the first records one per line. Pure functions of the trace, so the
// summary is the same on every machine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "abi/plugin_functions.h"
#include "trace/trace_record.h"

namespace sectl::trace {

struct FunctionSummary {
  abi::PluginFunction function = abi::PluginFunction::kInitPlugin;
  uint64_t calls = 0;
  uint64_t errors = 0;  // calls that left a status other than OK
  uint64_t total_ns = 0;
  uint64_t median_ns = 0;
};

// Bytes moved, by direction: the `size` of each copy or fill call.
struct BytesMoved {
  uint64_t host_to_device = 0;
  uint64_t device_to_host = 0;
  uint64_t device_to_device = 0;
  uint64_t filled = 0;  // mem_zero, memset, memset32
};

struct StreamSummary {
  uint32_t stream = 0;
  uint64_t calls = 0;     // calls that name the stream, its creation included
  uint64_t bytes = 0;     // copied or filled on it
  uint64_t first_ns = 0;  // when the first call on it began
  uint64_t last_ns = 0;   // when the last call on it returned
};

// Objects of one kind: how many calls created one and how many destroyed one.
struct Lifecycle {
  uint64_t created = 0;
  uint64_t destroyed = 0;
  // Destroy or deallocate calls that named no object of the trace: a
  // deallocate(NULL), which frees nothing, or a pointer or handle no call
  // created. Not among `destroyed`, which would then exceed what was made.
  uint64_t of_nothing = 0;
};

struct ThreadSummary {
  uint32_t thread = 0;
  uint64_t calls = 0;
};

struct TraceSummary {
  TraceHeader header;
  uint64_t records = 0;
  uint64_t calls = 0;
  // Calls the validation layer did not pass on (kCallWithheld records).
  uint64_t withheld = 0;
  bool truncated = false;
  bool ended = false;  // an end record: the process finished with the plugin
  // The call in flight when the traced process crashed (a kCallInFlight
  // record), if it did.
  std::optional<TraceRecord> crashed_in;
  uint64_t span_ns = 0;                    // from the first call's start to the last return
  std::vector<FunctionSummary> functions;  // most called first
  BytesMoved bytes;
  std::vector<StreamSummary> streams;  // by stream identity
  Lifecycle streams_lifecycle;
  Lifecycle events;
  Lifecycle timers;
  Lifecycle allocations;  // device and unified memory
  Lifecycle host_allocations;
  uint64_t callbacks_enqueued = 0;
  uint64_t callbacks_ran = 0;
  std::vector<ThreadSummary> threads;  // by thread number
  // The first records of the trace, as many as asked for.
  std::vector<TraceRecord> timeline;
};

// Every record for the timeline.
inline constexpr size_t kWholeTimeline = std::numeric_limits<size_t>::max();

// The summary of `trace`, with its first `timeline_length` records.
TraceSummary SummarizeTrace(const Trace& trace, size_t timeline_length = 20);

// "stream 2  alloc 5+0x100 (4096 B)": the objects and memory a record names.
std::string DescribeRecordObjects(const TraceRecord& record);

// "OK", "INVALID_ARGUMENT", "code 42"; "" for a function without a status.
std::string StatusText(int32_t status);

// The summary as text for a terminal (plain, no colour) and as JSON.
std::string RenderTraceSummaryText(const TraceSummary& summary);
nlohmann::ordered_json TraceSummaryToJson(const TraceSummary& summary);

}  // namespace sectl::trace
