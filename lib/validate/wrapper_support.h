// The checks wrappers share: a handle argument, a device-memory argument,
// a host-memory argument, a handle a create function returned.
#pragma once

#include <cstdint>
#include <string>

#include "tensorflow/c/experimental/stream_executor/stream_executor.h"
#include "tensorflow/c/tf_status.h"
#include "trace/trace_record.h"
#include "validate/call.h"
#include "validate/object_tracker.h"

namespace sectl::validate {

// The TF_Code the plugin left, -1 for a null status.
int32_t CodeOf(TF_Status* status);

// Checks that `handle` (argument `name`) is a live object of `kind` on the
// call's device; returns its identity for the trace (0 when untracked).
uint32_t CheckHandleArgument(Call& call, HandleKind kind, const char* name, const void* handle);

// A stream-ordered call's handles, checked under one lock
// (ObjectTracker::BeginOrderedCall): `stream`, and `other` of `other_kind`
// (argument `other_name`) when given. The call is counted as enqueued on
// the stream; FinishOrderedCall undoes that if it does not go through.
// The identities are for the trace.
struct OrderedCallIds {
  uint32_t stream = 0;
  uint32_t other = 0;
};
OrderedCallIds CheckOrderedCall(Call& call, const void* stream,
                                HandleKind other_kind = HandleKind::kStream,
                                const char* other_name = nullptr, const void* other = nullptr);
// After a stream-ordered call: its status for the trace, and the enqueue
// taken back when the call was withheld or the plugin refused it.
void FinishOrderedCall(Call& call, const void* stream, TF_Status* status);

// Checks that [memory->opaque, + size) lies in a live device allocation.
trace::DeviceRange CheckDeviceArgument(Call& call, const char* name,
                                       const SP_DeviceMemoryBase* memory, uint64_t size);

// Checks a copy between host and device memory under one lock: the device
// range lies in a live device allocation, and the host range [host, +
// size) is not device memory. Returns the device range for the trace.
trace::DeviceRange CheckCopyArguments(Call& call, const char* device_name,
                                      const SP_DeviceMemoryBase* memory, const char* host_name,
                                      const void* host, uint64_t size);

// After a create function: the handle against the status, and its
// identity for the trace (0 for none).
uint32_t NoteCreatedHandle(Call& call, HandleKind kind, const void* handle, TF_Status* status);

// What a destroy or deallocate found: the object's identity for the trace,
// and whether to pass the call on. A value every creation of which was
// already destroyed is not: the plugin freed it, and a second free there is
// a double free that would take the process (and the report) down.
struct Release {
  uint32_t id = 0;
  bool forward = true;
};

// A destroy: double destroys, unknown handles, and (streams) pending work.
Release NoteDestroyedHandle(Call& call, HandleKind kind, const char* name, const void* handle);

// After a call that completes all work on `stream` (null: the device):
// host callbacks enqueued before it that have not run are the plugin's
// fault.
void CheckCallbacksRanBy(Call& call, const void* stream);

// "libtensorflow_framework.so.2+0x1a2b3c (symbol+0x40)" for a return
// address in the host's code, for leak reports.
std::string DescribeCallSite(uintptr_t address);

}  // namespace sectl::validate
