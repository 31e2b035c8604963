#include "trace/trace_summary.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <iterator>
#include <map>
#include <string_view>

#include "abi/tf_codes.h"
#include "base/byte_sizes.h"
#include "base/text.h"
#include "base/timestamp.h"

namespace sectl::trace {
namespace {

using abi::PluginFunction;

enum class Direction { kNone, kHostToDevice, kDeviceToHost, kDeviceToDevice, kFill };

Direction DirectionOf(PluginFunction function) {
  switch (function) {
    case PluginFunction::kMemcpyHtoD:
    case PluginFunction::kSyncMemcpyHtoD:
      return Direction::kHostToDevice;
    case PluginFunction::kMemcpyDtoH:
    case PluginFunction::kSyncMemcpyDtoH:
      return Direction::kDeviceToHost;
    case PluginFunction::kMemcpyDtoD:
    case PluginFunction::kSyncMemcpyDtoD:
      return Direction::kDeviceToDevice;
    case PluginFunction::kMemZero:
    case PluginFunction::kMemset:
    case PluginFunction::kMemset32:
      return Direction::kFill;
    default:
      return Direction::kNone;
  }
}

// The bytes a copy or fill moved: its size, or its destination's (or
// source's) size when the layer recorded only the range.
uint64_t BytesOf(const TraceRecord& record) {
  if (DirectionOf(record.function) == Direction::kNone) return 0;
  if (record.size != 0) return record.size;
  return record.destination.size != 0 ? record.destination.size : record.source.size;
}

// The kind of object a function creates, and the lifecycle it counts in.
struct ObjectKind {
  std::string_view name;  // "stream"; "" for a function that creates nothing
  Lifecycle TraceSummary::*lifecycle = nullptr;
  bool creates = false;
};

ObjectKind ObjectKindOf(PluginFunction function) {
  switch (function) {
    case PluginFunction::kCreateStream:
      return {"stream", &TraceSummary::streams_lifecycle, true};
    case PluginFunction::kDestroyStream:
      return {"stream", &TraceSummary::streams_lifecycle, false};
    case PluginFunction::kCreateEvent:
      return {"event", &TraceSummary::events, true};
    case PluginFunction::kDestroyEvent:
      return {"event", &TraceSummary::events, false};
    case PluginFunction::kCreateTimer:
      return {"timer", &TraceSummary::timers, true};
    case PluginFunction::kDestroyTimer:
      return {"timer", &TraceSummary::timers, false};
    case PluginFunction::kAllocate:
    case PluginFunction::kUnifiedMemoryAllocate:
      return {"alloc", &TraceSummary::allocations, true};
    case PluginFunction::kDeallocate:
    case PluginFunction::kUnifiedMemoryDeallocate:
      return {"alloc", &TraceSummary::allocations, false};
    case PluginFunction::kHostMemoryAllocate:
      return {"host alloc", &TraceSummary::host_allocations, true};
    case PluginFunction::kHostMemoryDeallocate:
      return {"host alloc", &TraceSummary::host_allocations, false};
    default:
      return {};
  }
}

// The identity of the object a destroy or deallocate record names; 0 when
// it named none the layer knew (null, or never created).
uint32_t DestroyedObjectOf(const TraceRecord& record) {
  switch (record.function) {
    case PluginFunction::kDestroyStream:
      return record.stream;
    case PluginFunction::kDestroyEvent:
      return record.event;
    case PluginFunction::kDestroyTimer:
      return record.timer;
    case PluginFunction::kDeallocate:
    case PluginFunction::kUnifiedMemoryDeallocate:
      return record.destination.allocation;
    case PluginFunction::kHostMemoryDeallocate:
      return record.host_allocation;
    default:
      return 0;
  }
}

// The stream a record is about: the one it operates on, or the one it
// created.
uint32_t StreamOf(const TraceRecord& record) {
  if (record.stream != 0) return record.stream;
  return record.function == PluginFunction::kCreateStream ? record.created : 0;
}

uint64_t Median(std::vector<uint64_t>& values) {
  if (values.empty()) return 0;
  const auto middle = values.begin() + static_cast<ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

std::string RangeText(const DeviceRange& range) {
  const std::string size = FormatByteSize(range.size);
  if (range.allocation == 0) return fmt::format("outside any allocation ({})", size);
  return fmt::format("alloc {}+{:#x} ({})", range.allocation, range.offset, size);
}

bool IsEmpty(const DeviceRange& range) { return range == DeviceRange{}; }

// "1.234 ms": nanoseconds for people, to the microsecond.
std::string Milliseconds(uint64_t nanoseconds) {
  return fmt::format("{:.3f} ms", static_cast<double>(nanoseconds) / 1e6);
}

// "812 ns", "45.3 us", "12.5 ms", "3.2 s": a duration for people, as the
// call journal writes them (host/journal.cc).
std::string Duration(uint64_t nanoseconds) {
  if (nanoseconds < 10'000) return fmt::format("{} ns", nanoseconds);
  if (nanoseconds < 10'000'000) {
    return fmt::format("{:.1f} us", static_cast<double>(nanoseconds) / 1e3);
  }
  if (nanoseconds < 10'000'000'000) {
    return fmt::format("{:.1f} ms", static_cast<double>(nanoseconds) / 1e6);
  }
  return fmt::format("{:.1f} s", static_cast<double>(nanoseconds) / 1e9);
}

std::string FunctionText(const TraceRecord& record) {
  switch (record.kind) {
    case RecordKind::kCallbackRan:
      return "(host callback ran)";
    case RecordKind::kEnd:
      return "(end of use)";
    case RecordKind::kCall:
    case RecordKind::kCallInFlight:
    case RecordKind::kCallWithheld:
      break;
  }
  return std::string(abi::QualifiedName(record.function));
}

std::string_view KindText(RecordKind kind) {
  switch (kind) {
    case RecordKind::kCall:
      return "call";
    case RecordKind::kCallbackRan:
      return "callback_ran";
    case RecordKind::kEnd:
      return "end";
    case RecordKind::kCallInFlight:
      return "call_in_flight";
    case RecordKind::kCallWithheld:
      return "call_withheld";
  }
  return "unknown";
}

std::string StartedText(int64_t unix_ms) {
  // About the year 2255: system_clock counts nanoseconds in 64 bits, which
  // overflow in 2262.
  constexpr int64_t kLatestUnixMs = 9'000'000'000'000;
  if (unix_ms == 0) return "unknown";
  if (unix_ms < 0 || unix_ms > kLatestUnixMs) return fmt::format("{} ms after 1970", unix_ms);
  return IsoTimestamp(std::chrono::system_clock::time_point(std::chrono::milliseconds(unix_ms)));
}

// Text from the traced process (paths, names) made safe for a terminal.
std::string Shown(const std::string& text) {
  return text.empty() ? "(none)" : EscapeControlCharacters(text);
}

void AddHeaderText(const TraceHeader& header, std::string& out) {
  fmt::format_to(std::back_inserter(out), "plugin:          {}\n", Shown(header.plugin_path));
  fmt::format_to(std::back_inserter(out), "plugin sha256:   {}\n", Shown(header.plugin_sha256));
  fmt::format_to(std::back_inserter(out), "platform:        {}\n", Shown(header.platform_name));
  fmt::format_to(std::back_inserter(out), "host program:    {} (pid {})\n",
                 Shown(header.host_program), header.process_id);
  fmt::format_to(std::back_inserter(out), "started:         {}\n",
                 StartedText(header.started_unix_ms));
  fmt::format_to(std::back_inserter(out), "written by:      sectl {} (trace format {})\n",
                 Shown(header.sectl_version), header.format_version);
}

void AddFunctionsText(const TraceSummary& summary, std::string& out) {
  if (summary.functions.empty()) return;
  fmt::format_to(std::back_inserter(out), "\n{:<46} {:>8} {:>7} {:>14} {:>12}\n", "function",
                 "calls", "errors", "total", "median");
  for (const auto& function : summary.functions) {
    fmt::format_to(std::back_inserter(out), "{:<46} {:>8} {:>7} {:>14} {:>12}\n",
                   abi::QualifiedName(function.function), function.calls, function.errors,
                   Duration(function.total_ns), Duration(function.median_ns));
  }
}

void AddStreamsText(const TraceSummary& summary, std::string& out) {
  if (summary.streams.empty()) return;
  fmt::format_to(std::back_inserter(out), "\n{:<8} {:>8} {:>12} {:>14} {:>14}\n", "stream", "calls",
                 "bytes", "first", "last");
  for (const auto& stream : summary.streams) {
    fmt::format_to(std::back_inserter(out), "{:<8} {:>8} {:>12} {:>14} {:>14}\n", stream.stream,
                   stream.calls, FormatByteSize(stream.bytes), Milliseconds(stream.first_ns),
                   Milliseconds(stream.last_ns));
  }
}

std::string TimelineLine(const TraceRecord& record) {
  std::string line = fmt::format("{:>12}  thread {:<3} {:<46}", Milliseconds(record.start_ns),
                                 record.thread, FunctionText(record));
  const std::string objects = DescribeRecordObjects(record);
  if (!objects.empty()) line += " " + objects;
  const std::string status = StatusText(record.status);
  if (!status.empty()) line += "  " + status;
  if (record.kind == RecordKind::kCall && record.duration_ns != 0) {
    line += fmt::format("  ({})", Duration(record.duration_ns));
  }
  return line;
}

// "destroyed or freed nothing (null, or never created): deallocate 2":
// only where some call did.
void AddOfNothingText(const TraceSummary& summary, std::string& out) {
  const std::array<std::pair<std::string_view, uint64_t>, 5> kinds{{
      {"destroy_stream", summary.streams_lifecycle.of_nothing},
      {"destroy_event", summary.events.of_nothing},
      {"destroy_timer", summary.timers.of_nothing},
      {"deallocate", summary.allocations.of_nothing},
      {"host_memory_deallocate", summary.host_allocations.of_nothing},
  }};
  std::vector<std::string> parts;
  for (const auto& [kind, count] : kinds) {
    if (count > 0) parts.push_back(fmt::format("{} {}", kind, count));
  }
  if (parts.empty()) return;
  fmt::format_to(std::back_inserter(out),
                 "destroyed or freed nothing (null, or never created): {}\n",
                 fmt::join(parts, ", "));
}

nlohmann::ordered_json LifecycleJson(const Lifecycle& lifecycle) {
  return {{"created", lifecycle.created},
          {"destroyed", lifecycle.destroyed},
          {"of_nothing", lifecycle.of_nothing}};
}

}  // namespace

std::string StatusText(int32_t status) {
  return status < 0 ? std::string() : abi::TfCodeName(status);
}

std::string DescribeRecordObjects(const TraceRecord& record) {
  std::vector<std::string> parts;
  if (record.kind == RecordKind::kCall && record.device >= 0) {
    parts.push_back(fmt::format("device {}", record.device));
  }
  if (record.stream != 0) parts.push_back(fmt::format("stream {}", record.stream));
  if (record.other_stream != 0) {
    parts.push_back(fmt::format("after stream {}", record.other_stream));
  }
  if (record.event != 0) parts.push_back(fmt::format("event {}", record.event));
  if (record.timer != 0) parts.push_back(fmt::format("timer {}", record.timer));
  if (record.host_allocation != 0) {
    parts.push_back(fmt::format("host alloc {}", record.host_allocation));
  }
  if (record.callback != 0) parts.push_back(fmt::format("callback {}", record.callback));
  if (!IsEmpty(record.destination)) parts.push_back(RangeText(record.destination));
  if (!IsEmpty(record.source)) parts.push_back("from " + RangeText(record.source));
  const bool size_shown =
      (record.size == record.destination.size && !IsEmpty(record.destination)) ||
      (record.size == record.source.size && !IsEmpty(record.source));
  if (record.size != 0 && !size_shown) parts.push_back(FormatByteSize(record.size));
  if (record.memory_space != 0) {
    parts.push_back(fmt::format("memory space {}", record.memory_space));
  }
  if (record.pattern != 0) parts.push_back(fmt::format("pattern {:#x}", record.pattern));
  if (record.created != 0) {
    const std::string_view kind = ObjectKindOf(record.function).name;
    parts.push_back(fmt::format("-> {} {}", kind.empty() ? "object" : kind, record.created));
  }
  if (record.result != 0) parts.push_back(fmt::format("returned {}", record.result));
  if (record.has_checksum) parts.push_back(fmt::format("checksum {:016x}", record.checksum));
  return fmt::format("{}", fmt::join(parts, "  "));
}

TraceSummary SummarizeTrace(const Trace& trace, size_t timeline_length) {
  TraceSummary summary;
  summary.header = trace.header;
  summary.records = trace.records.size();
  summary.truncated = trace.truncated;

  std::map<PluginFunction, std::vector<uint64_t>> durations;
  std::map<PluginFunction, FunctionSummary> functions;
  std::map<uint32_t, StreamSummary> streams;
  std::map<uint32_t, uint64_t> thread_calls;
  uint64_t first_start = std::numeric_limits<uint64_t>::max();
  uint64_t last_end = 0;
  for (const auto& record : trace.records) {
    if (record.kind == RecordKind::kEnd) {
      summary.ended = true;
      continue;
    }
    const uint64_t end = record.start_ns + record.duration_ns;
    first_start = std::min(first_start, record.start_ns);
    last_end = std::max(last_end, end);
    if (record.kind == RecordKind::kCallbackRan) {
      ++summary.callbacks_ran;
      continue;
    }
    if (record.kind == RecordKind::kCallWithheld) {
      // Not a call the plugin saw: counted apart, in no statistics.
      ++summary.withheld;
      continue;
    }
    if (record.kind == RecordKind::kCallInFlight) summary.crashed_in = record;
    ++summary.calls;
    ++thread_calls[record.thread];
    auto& function = functions[record.function];
    function.function = record.function;
    ++function.calls;
    if (record.status > 0) ++function.errors;
    function.total_ns += record.duration_ns;
    durations[record.function].push_back(record.duration_ns);

    const uint64_t bytes = BytesOf(record);
    switch (DirectionOf(record.function)) {
      case Direction::kHostToDevice:
        summary.bytes.host_to_device += bytes;
        break;
      case Direction::kDeviceToHost:
        summary.bytes.device_to_host += bytes;
        break;
      case Direction::kDeviceToDevice:
        summary.bytes.device_to_device += bytes;
        break;
      case Direction::kFill:
        summary.bytes.filled += bytes;
        break;
      case Direction::kNone:
        break;
    }
    if (const uint32_t stream_id = StreamOf(record); stream_id != 0) {
      auto [entry, is_new] = streams.try_emplace(stream_id);
      StreamSummary& stream = entry->second;
      if (is_new) {
        stream.stream = stream_id;
        stream.first_ns = record.start_ns;
      }
      ++stream.calls;
      stream.bytes += bytes;
      stream.first_ns = std::min(stream.first_ns, record.start_ns);
      stream.last_ns = std::max(stream.last_ns, end);
    }
    if (const ObjectKind kind = ObjectKindOf(record.function); kind.lifecycle != nullptr) {
      Lifecycle& lifecycle = summary.*kind.lifecycle;
      if (kind.creates) {
        if (record.created != 0) ++lifecycle.created;
      } else if (DestroyedObjectOf(record) != 0) {
        ++lifecycle.destroyed;
      } else {
        ++lifecycle.of_nothing;
      }
    }
    if (record.function == PluginFunction::kHostCallback) ++summary.callbacks_enqueued;
  }
  if (last_end >= first_start && first_start != std::numeric_limits<uint64_t>::max()) {
    summary.span_ns = last_end - first_start;
  }
  for (auto& [function, entry] : functions) {
    entry.median_ns = Median(durations[function]);
    summary.functions.push_back(entry);
  }
  std::stable_sort(
      summary.functions.begin(), summary.functions.end(),
      [](const FunctionSummary& a, const FunctionSummary& b) { return a.calls > b.calls; });
  for (const auto& [id, stream] : streams) summary.streams.push_back(stream);
  for (const auto& [thread, calls] : thread_calls) summary.threads.push_back({thread, calls});
  const size_t shown = std::min(timeline_length, trace.records.size());
  summary.timeline.assign(trace.records.begin(),
                          trace.records.begin() + static_cast<ptrdiff_t>(shown));
  return summary;
}

std::string RenderTraceSummaryText(const TraceSummary& summary) {
  std::string out;
  AddHeaderText(summary.header, out);
  fmt::format_to(std::back_inserter(out),
                 "\n{} records: {} calls on {} thread{}, {} host callbacks ran; span {}\n",
                 summary.records, summary.calls, summary.threads.size(),
                 summary.threads.size() == 1 ? "" : "s", summary.callbacks_ran,
                 Duration(summary.span_ns));
  if (summary.withheld > 0) {
    fmt::format_to(std::back_inserter(out),
                   "withheld: {} call{} the validation layer did not pass on to the plugin "
                   "(its report says why)\n",
                   summary.withheld, summary.withheld == 1 ? "" : "s");
  }
  if (summary.crashed_in) {
    fmt::format_to(
        std::back_inserter(out),
        "crashed: the traced process died of a fatal signal in {} (call {}, thread {})\n",
        abi::QualifiedName(summary.crashed_in->function), summary.crashed_in->sequence,
        summary.crashed_in->thread);
  }
  if (summary.truncated) {
    out += "truncated: the trace ends inside a record (the traced process died while writing)\n";
  } else if (!summary.ended) {
    out += "no end record: the traced process did not finish with the plugin cleanly\n";
  }
  AddFunctionsText(summary, out);
  const BytesMoved& bytes = summary.bytes;
  fmt::format_to(std::back_inserter(out),
                 "\nbytes moved: host to device {}, device to host {}, device to device {}, "
                 "filled {}\n",
                 FormatByteSize(bytes.host_to_device), FormatByteSize(bytes.device_to_host),
                 FormatByteSize(bytes.device_to_device), FormatByteSize(bytes.filled));
  fmt::format_to(std::back_inserter(out),
                 "created/destroyed: streams {}/{}, events {}/{}, timers {}/{}, allocations {}/{}, "
                 "host allocations {}/{}\n",
                 summary.streams_lifecycle.created, summary.streams_lifecycle.destroyed,
                 summary.events.created, summary.events.destroyed, summary.timers.created,
                 summary.timers.destroyed, summary.allocations.created,
                 summary.allocations.destroyed, summary.host_allocations.created,
                 summary.host_allocations.destroyed);
  AddOfNothingText(summary, out);
  fmt::format_to(std::back_inserter(out), "host callbacks: {} enqueued, {} ran\n",
                 summary.callbacks_enqueued, summary.callbacks_ran);
  if (!summary.threads.empty()) {
    std::vector<std::string> threads;
    for (const auto& thread : summary.threads) {
      threads.push_back(fmt::format("{} ({} calls)", thread.thread, thread.calls));
    }
    fmt::format_to(std::back_inserter(out), "threads: {}\n", fmt::join(threads, ", "));
  }
  AddStreamsText(summary, out);
  if (!summary.timeline.empty()) {
    fmt::format_to(std::back_inserter(out), "\ntimeline (first {} of {} records):\n",
                   summary.timeline.size(), summary.records);
    for (const auto& record : summary.timeline) out += TimelineLine(record) + "\n";
  }
  return out;
}

nlohmann::ordered_json TraceSummaryToJson(const TraceSummary& summary) {
  using nlohmann::ordered_json;
  const TraceHeader& header = summary.header;
  ordered_json json;
  json["header"] = {{"format_version", header.format_version},
                    {"sectl_version", header.sectl_version},
                    {"plugin", {{"path", header.plugin_path}, {"sha256", header.plugin_sha256}}},
                    {"platform", header.platform_name},
                    {"host_program", header.host_program},
                    {"process_id", header.process_id},
                    {"started_unix_ms", header.started_unix_ms}};
  json["records"] = summary.records;
  json["calls"] = summary.calls;
  json["withheld"] = summary.withheld;
  json["truncated"] = summary.truncated;
  json["ended"] = summary.ended;
  if (summary.crashed_in) {
    json["crashed_in"] = {{"function", abi::QualifiedName(summary.crashed_in->function)},
                          {"sequence", summary.crashed_in->sequence},
                          {"thread", summary.crashed_in->thread}};
  } else {
    json["crashed_in"] = nullptr;
  }
  json["span_ns"] = summary.span_ns;
  json["functions"] = ordered_json::array();
  for (const auto& function : summary.functions) {
    json["functions"].push_back({{"function", abi::QualifiedName(function.function)},
                                 {"calls", function.calls},
                                 {"errors", function.errors},
                                 {"total_ns", function.total_ns},
                                 {"median_ns", function.median_ns}});
  }
  json["bytes"] = {{"host_to_device", summary.bytes.host_to_device},
                   {"device_to_host", summary.bytes.device_to_host},
                   {"device_to_device", summary.bytes.device_to_device},
                   {"filled", summary.bytes.filled}};
  json["streams"] = ordered_json::array();
  for (const auto& stream : summary.streams) {
    json["streams"].push_back({{"stream", stream.stream},
                               {"calls", stream.calls},
                               {"bytes", stream.bytes},
                               {"first_ns", stream.first_ns},
                               {"last_ns", stream.last_ns}});
  }
  json["objects"] = {{"streams", LifecycleJson(summary.streams_lifecycle)},
                     {"events", LifecycleJson(summary.events)},
                     {"timers", LifecycleJson(summary.timers)},
                     {"allocations", LifecycleJson(summary.allocations)},
                     {"host_allocations", LifecycleJson(summary.host_allocations)}};
  json["callbacks"] = {{"enqueued", summary.callbacks_enqueued}, {"ran", summary.callbacks_ran}};
  json["threads"] = ordered_json::array();
  for (const auto& thread : summary.threads) {
    json["threads"].push_back({{"thread", thread.thread}, {"calls", thread.calls}});
  }
  json["timeline"] = ordered_json::array();
  for (const auto& record : summary.timeline) {
    ordered_json entry = {{"kind", KindText(record.kind)},
                          {"sequence", record.sequence},
                          {"start_ns", record.start_ns},
                          {"duration_ns", record.duration_ns},
                          {"thread", record.thread}};
    if (record.kind == RecordKind::kCall) {
      entry["function"] = abi::QualifiedName(record.function);
    }
    entry["names"] = DescribeRecordObjects(record);
    if (record.status >= 0) {
      entry["status"] = StatusText(record.status);
    } else {
      entry["status"] = nullptr;
    }
    json["timeline"].push_back(std::move(entry));
  }
  return json;
}

}  // namespace sectl::trace
