// One call from the host into the plugin, as a wrapper sees it: its place
// in the sequence, its thread, its arguments (kept raw, formatted only when
// a finding needs them), its findings and its trace record.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "abi/plugin_functions.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"
#include "tensorflow/c/tf_status.h"
#include "trace/trace_record.h"
#include "validate/finding_catalog.h"

namespace sectl::validate {

class Layer;
struct ThreadSlot;  // call.cc

class Call {
 public:
  // Begins a call of `function` on `device` (null for platform calls).
  // kCallbackRan: not a call into the plugin but the plugin running a host
  // callback, traced and checked the same way, not counted as a call.
  Call(abi::PluginFunction function, const SP_Device* device,
       trace::RecordKind kind = trace::RecordKind::kCall);
  // Counts the call (as passed on to the plugin, or as withheld from it)
  // and appends its trace record.
  ~Call();
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

  // Remembers an argument for findings: shown as hex (addresses) or decimal.
  void Address(const char* name, const void* value) {
    Keep(name, reinterpret_cast<uintptr_t>(value), true);
  }
  void Number(const char* name, uint64_t value) { Keep(name, value, false); }

  // Raises a finding about this call.
  void Raise(FindingKind kind, std::string message);

  // The call is proven invalid (a destroyed or unknown handle, a range in
  // no live allocation): Forward does not pass it on to the plugin, which
  // would then crash, hang or corrupt memory (the layer's own included), and
  // answers it safely instead (forward.h). The first reason is kept.
  void Withhold(std::string reason) {
    if (withheld_.empty()) withheld_ = std::move(reason);
  }
  bool withheld() const { return !withheld_.empty(); }
  const std::string& withheld_reason() const { return withheld_; }

  // The host passed a null TF_Status: raises status.null_from_host and
  // returns a status of the layer's for the plugin to write to, kept until
  // the call ends, so the plugin survives and the layer still reads what
  // it answered.
  TF_Status* SubstituteForNullStatus();

  // The call reached the plugin (Forward, or SE_InitPlugin's own call).
  // The report counts only such calls as calls: a destroy or deallocate the
  // layer swallowed, or a call it withheld, is counted apart, so the
  // numbers say what the plugin was really asked to do.
  void MarkForwarded() { forwarded_ = true; }

  abi::PluginFunction function() const { return record_.function; }
  int32_t device() const { return record_.device; }
  uint64_t sequence() const { return record_.sequence; }
  trace::TraceRecord& record() { return record_; }
  Layer& layer() { return layer_; }
  // The calling thread's slot, looked up once per call.
  ThreadSlot* thread_slot() const { return thread_slot_; }

 private:
  // Filled only up to argument_count_: left uninitialised beyond it, as
  // zeroing the whole array on every call costs more than the checks.
  struct KeptArgument {
    const char* name;
    uint64_t value;
    bool hex;
  };
  void Keep(const char* name, uint64_t value, bool hex);

  Layer& layer_;
  ThreadSlot* thread_slot_;
  trace::TraceRecord record_;
  struct StatusDeleter {
    void operator()(TF_Status* status) const { TF_DeleteStatus(status); }
  };

  std::array<KeptArgument, 8> arguments_;  // NOLINT(cppcoreguidelines-pro-type-member-init)
  size_t argument_count_ = 0;
  std::string withheld_;
  std::unique_ptr<TF_Status, StatusDeleter> substitute_status_;
  bool forwarded_ = false;
};

// While the plugin runs a call on this thread: that call, so that a fatal
// signal on the thread names it (Layer::OnFatalSignal). Nested calls (a
// host callback that calls the plugin again) restore the outer one.
class InFlight {
 public:
  explicit InFlight(Call& call);
  ~InFlight();
  InFlight(const InFlight&) = delete;
  InFlight& operator=(const InFlight&) = delete;

 private:
  ThreadSlot* slot_;
  Call* outer_;
};

// The call in flight on this thread, or null.
Call* InFlightOnThisThread();

// The calling thread's number: 1, 2, ... in order of first call.
uint32_t ThisThreadNumber();

// Calls counted per function, by the thread that made them
// (Call::MarkForwarded says which count).
inline constexpr size_t kCountedFunctions = static_cast<size_t>(abi::PluginFunction::kCount);
struct CallCounts {
  std::array<uint64_t, kCountedFunctions> forwarded{};
  std::array<uint64_t, kCountedFunctions> withheld{};
};
// Every thread's counts added up. Takes no lock: safe in a signal handler.
CallCounts CountsOfEveryThread();

}  // namespace sectl::validate
