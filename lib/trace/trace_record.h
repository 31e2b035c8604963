// What a trace holds: the sequence of calls between a host (TensorFlow, or
// any program) and a StreamExecutor plugin, as libsectl_validate.so saw
// them, in a form that names no address and carries none of the user's
// data. `sectl replay` re-issues the calls against any build of a plugin;
// `sectl trace show` summarises them.
//
// Objects are named by identity, not by value: the n-th stream the plugin
// created is stream n (numbered from 1 per kind, 0 meaning none), so a
// replay maps them onto the handles its own plugin returns. Device memory
// is named by allocation and offset, since TensorFlow's BFC allocator hands
// out sub-ranges of large allocations: a range the layer could not place in
// any live allocation has allocation 0 and keeps only its size.
//
// The binary encoding of these records is in trace/trace_format.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "abi/plugin_functions.h"

namespace sectl::trace {

// A range of device memory: bytes [offset, offset + size) of allocation
// number `allocation` (the n-th allocate, unified_memory_allocate counted
// alike), 0 when the range was in no live allocation.
struct DeviceRange {
  uint32_t allocation = 0;
  uint64_t offset = 0;
  uint64_t size = 0;

  bool operator==(const DeviceRange&) const = default;
};

enum class RecordKind : uint8_t {
  kCall,         // the host called a plugin function; it returned
  kCallbackRan,  // the plugin ran a host callback (host_callback's)
  kEnd,          // the traced process ended its use of the plugin cleanly
  // The host called a plugin function and the process died of a fatal
  // signal on that thread before it returned: its results are unknown.
  kCallInFlight,
  // The host called a plugin function and the validation layer did not
  // pass it on (a handle already destroyed or never created, a range in no
  // live allocation, a second destroy): the plugin never saw it, so a
  // replay does not issue it either. Since format version 3.
  kCallWithheld,
};

// One event of the trace. Which fields mean something depends on the
// function; an unused field keeps its default, and the encoding stores
// only fields that differ from it.
struct TraceRecord {
  RecordKind kind = RecordKind::kCall;
  // Order in which calls began, across all threads (1, 2, ...). A replay
  // issues calls in this order.
  uint64_t sequence = 0;
  // Nanoseconds since the trace began, when the call began, and how long
  // it took to return.
  uint64_t start_ns = 0;
  uint64_t duration_ns = 0;
  // The calling thread, numbered 1, 2, ... in order of first call.
  uint32_t thread = 0;

  abi::PluginFunction function = abi::PluginFunction::kInitPlugin;
  // The device's ordinal (SP_Device.ordinal) for calls made on a device;
  // -1 for platform-level calls.
  int32_t device = -1;

  // Objects the call names, by identity (0: none).
  uint32_t stream = 0;        // the stream operated on
  uint32_t other_stream = 0;  // create_stream_dependency's source stream
  uint32_t event = 0;
  uint32_t timer = 0;
  uint32_t host_allocation = 0;  // host_memory_allocate's n-th block
  uint32_t callback = 0;         // host_callback's n-th callback
  // The object the call created: the identity of the new stream, event,
  // timer, allocation or host allocation (by function), 0 when it created
  // none or failed.
  uint32_t created = 0;

  // Device memory written and read (copies, fills, deallocate).
  DeviceRange destination;
  DeviceRange source;
  // Bytes copied, filled or allocated; the memory space of an allocation.
  uint64_t size = 0;
  int64_t memory_space = 0;
  // memset's byte or memset32's word.
  uint32_t pattern = 0;

  // The TF_Code the plugin left in the call's TF_Status, or -1 when the
  // function takes none. For kCallbackRan: the code the plugin passed to
  // the callback.
  int32_t status = -1;
  // The value the function returned, where it returns one that matters:
  // TF_Bool, an SE_EventStatus, a device count, nanoseconds. 0 otherwise.
  // For kCallbackRan: the code the host's callback left in the status.
  int64_t result = 0;

  // XXH3-64 of the host bytes a copy moved: a host-to-device copy's source
  // when it was called, a device-to-host copy's destination when the copy
  // was known to be complete (sync copies at return). 0 when not taken.
  uint64_t checksum = 0;
  bool has_checksum = false;

  bool operator==(const TraceRecord&) const = default;
};

// What a trace says about where it came from.
struct TraceHeader {
  // The format version the file was written in (trace/trace_format.h).
  uint32_t format_version = 0;
  std::string sectl_version;
  std::string plugin_path;    // as SECTL_VALIDATE_PLUGIN named it
  std::string plugin_sha256;  // of the plugin file when it was loaded
  std::string platform_name;  // SP_Platform.name, once registered ("" before)
  std::string host_program;   // /proc/self/exe of the traced process
  int64_t started_unix_ms = 0;
  uint32_t process_id = 0;

  bool operator==(const TraceHeader&) const = default;
};

// A whole trace as read back.
struct Trace {
  TraceHeader header;
  std::vector<TraceRecord> records;
  // Whether the file ended mid-record (the traced process died while
  // writing): `records` holds what came before.
  bool truncated = false;
};

}  // namespace sectl::trace
