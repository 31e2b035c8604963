// What a plugin's kernel and op modules registered through the TensorFlow C
// API that sectl exports (kernels.h, ops.h), which of the API's other
// functions it called, how it misused the API, and what it logged.
//
// sectl runs no TensorFlow: TF_RegisterKernelBuilder and
// TF_RegisterOpDefinition only record their arguments here, and every
// function sectl cannot provide (TF_GetInput, TF_AllocateOutput, ...) records
// that it was called and fails. sectl reads the result after a plugin's
// TF_InitKernel has run, to report what the plugin registered.
//
// A plugin is untrusted: every string it passes is copied with a bound, and
// the number of entries kept is capped, so a plugin that registers in a loop
// cannot exhaust sectl's memory. What did not fit is counted (NotRecorded).

#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tensorflow/c/tf_status.h"

namespace sectl::tf_c_api {

// The caps on what is kept.
inline constexpr std::size_t kMaxRecordedKernels = 100'000;
inline constexpr std::size_t kMaxRecordedOps = 100'000;
// Longer strings are cut to this many bytes, and the entry says so.
inline constexpr std::size_t kMaxRecordedStringBytes = 4096;
// Per registration: type constraints, host-memory arguments, op inputs, ...
inline constexpr std::size_t kMaxRecordedListEntries = 1024;
inline constexpr std::size_t kMaxRecordedMisuses = 1000;
inline constexpr std::size_t kMaxRecordedLogMessages = 10'000;

// One TF_RegisterKernelBuilder or TF_RegisterKernelBuilderWithKernelDef call,
// with what the builder had collected by then.
struct KernelRegistration {
  std::string op;
  std::string device_type;
  std::string kernel_name;  // the name passed to TF_RegisterKernelBuilder
  std::string label;
  int32_t priority = 0;
  bool priority_set = false;
  // (attr name, TF_DataType value), in call order. The value is kept as an
  // int because a plugin may pass a number that names no TF_DataType.
  std::vector<std::pair<std::string, int>> type_constraints;
  std::vector<std::string> host_memory_arguments;
  bool has_create = false;
  bool has_compute = false;  // compute_func, or compute_async_func when async
  bool has_delete = false;
  bool async = false;  // built by TF_NewAsyncKernelBuilder
  // Registered through TF_RegisterKernelBuilderWithKernelDef with a non-null
  // serialized KernelDef. TensorFlow then takes op, device and constraints from
  // that proto, not from the builder; sectl keeps its bytes (up to the first
  // NUL, as TensorFlow reads them) without parsing them.
  bool has_serialized_kernel_def = false;
  std::string serialized_kernel_def;
  // Why TensorFlow would have crashed or aborted while registering this
  // (a NULL op name, a label set twice, ...), "; "-separated; empty when
  // registering went through. Defects TensorFlow only meets later, such as
  // a NULL compute_func, show in the fields above instead.
  std::string registration_error;
  // A string or a list was cut to the caps above.
  bool truncated = false;
};

// One TF_RegisterOpDefinition call: the op's spec strings, unparsed, in call
// order (e.g. inputs {"x: T"}, attrs {"T: {float, half}"}).
struct OpRegistration {
  std::string name;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<std::string> attrs;
  bool is_commutative = false;
  bool is_aggregate = false;
  bool is_stateful = false;
  bool allows_uninitialized_input = false;
  bool has_shape_inference_function = false;
  // From TF_OpDefinitionBuilderDeprecated: the GraphDef version and the why.
  std::optional<int> deprecated_at_version;
  std::string deprecation_explanation;
  std::string registration_error;  // as in KernelRegistration
  bool truncated = false;
};

// A function sectl exports but cannot provide, and how often it was called.
struct UnprovidedCall {
  std::string function;  // e.g. "TF_GetInput"
  uint64_t calls = 0;
};

// A call that broke the API's rules without belonging to a registration that
// was recorded: deleting a builder after registering it, passing a builder
// sectl never handed out, registering a null builder.
struct ApiMisuse {
  std::string function;
  std::string problem;
};

// A message from TF_Log, TF_VLog or TF_DVLog.
struct LogMessage {
  enum class Kind { kLog, kVLog, kDVLog };
  Kind kind = Kind::kLog;
  int level = 0;  // a TF_LogLevel for kLog, the verbosity level otherwise
  std::string text;
  bool truncated = false;
};

// How many entries did not fit under the caps.
struct NotRecordedCounts {
  uint64_t kernels = 0;
  uint64_t ops = 0;
  uint64_t misuses = 0;
  uint64_t log_messages = 0;
};

// Copies of what has been recorded so far, in call order.
std::vector<KernelRegistration> RecordedKernels();
std::vector<OpRegistration> RecordedOps();
// Each function once, in the order of its first call.
std::vector<UnprovidedCall> UnprovidedCalls();
std::vector<ApiMisuse> RecordedMisuses();
std::vector<LogMessage> RecordedLogMessages();
NotRecordedCounts NotRecorded();

// Forgets everything recorded; for tests. Builders a plugin still holds stay
// valid.
void ClearRecordings();

// For the exported C functions in lib/tf_c_api only. Those marked noexcept
// never throw, because their callers are C code; when memory runs out, the
// entry is dropped.

// Records a registration, or counts it as not recorded past the cap.
void RecordKernel(KernelRegistration registration) noexcept;
void RecordOp(OpRegistration registration) noexcept;
void RecordMisuse(const char* function, std::string problem) noexcept;
void RecordLogMessage(LogMessage message) noexcept;

// Counts a call to `function` and, when status is not null, sets it to
// TF_UNIMPLEMENTED with a message that names the function. Pass the exported
// function's __func__: the count keeps the pointer, so the text must live as
// long as the program.
void NoteUnprovided(const char* function, TF_Status* status) noexcept;

// Clears an out-parameter the plugin passed, when it passed one: what a
// stand-in leaves there is a zero, never what was there before.
template <typename Value>
void ClearOutParameter(Value* out) noexcept {
  if (out != nullptr) *out = Value{};
}

// Sets status (when not null) to `code` with the message
// "<function>: <problem>", or just the problem when function is null. Formats
// into a fixed buffer, so it works when memory has run out.
void SetStatusFor(TF_Status* status, TF_Code code, const char* function,
                  std::string_view problem) noexcept;

// A copy of a string a plugin passed, at most kMaxRecordedStringBytes long;
// sets *truncated when it was cut. Null reads as empty. Never reads past the
// first NUL or past kMaxRecordedStringBytes + 1 bytes. May throw
// std::bad_alloc.
std::string BoundedCopy(const char* text, bool* truncated);

// Appends to a "; "-separated error text, keeping it under the string cap.
// May throw std::bad_alloc.
void AppendError(std::string& errors, std::string_view error, bool* truncated);

// The builders handed to a plugin (TF_KernelBuilder, TF_OpDefinitionBuilder),
// owned here rather than through the pointer the plugin holds. Every call
// looks its builder up instead of dereferencing what the plugin passed, so a
// null, stale or invented pointer is reported, never followed. A registered
// builder stays here, as TensorFlow's registry keeps it; Builder has a
// `bool registered` member that says so.
template <typename Builder>
class BuilderRegistry {
 public:
  // What a lookup found.
  enum class Found { kUsable, kNull, kUnknown, kRegistered };

  // Keeps the builder and returns its handle, or null when `capacity`
  // builders are already kept. May throw std::bad_alloc.
  Builder* Add(std::unique_ptr<Builder> builder, std::size_t capacity) {
    std::lock_guard lock(mutex_);
    if (builders_.size() >= capacity) {
      return nullptr;
    }
    Builder* handle = builder.get();
    builders_.emplace(handle, std::move(builder));
    return handle;
  }

  // Calls use(builder) under the lock when the handle is a builder handed out
  // here and not registered yet.
  template <typename Use>
  Found WithUsable(const Builder* handle, Use&& use) {
    std::lock_guard lock(mutex_);
    Builder* builder = nullptr;
    const Found found = Look(handle, &builder);
    if (found == Found::kUsable) {
      use(*builder);
    }
    return found;
  }

  // Forgets a builder that was never registered, destroying it after the
  // lock is released.
  Found Delete(const Builder* handle) {
    std::unique_ptr<Builder> doomed;
    std::lock_guard lock(mutex_);
    Builder* builder = nullptr;
    const Found found = Look(handle, &builder);
    if (found == Found::kUsable) {
      auto entry = builders_.find(handle);
      doomed = std::move(entry->second);
      builders_.erase(entry);
    }
    return found;
  }

  // Why a lookup that did not find a usable builder failed, for messages.
  static const char* Describe(Found found) {
    switch (found) {
      case Found::kUsable:
        return "the builder is usable";
      case Found::kNull:
        return "the builder is NULL";
      case Found::kUnknown:
        return "the builder is not one sectl handed out, or it was deleted";
      case Found::kRegistered:
        return "the builder was registered already, and TensorFlow owns it from then on";
    }
    return "";
  }

 private:
  Found Look(const Builder* handle, Builder** builder) {
    if (handle == nullptr) {
      return Found::kNull;
    }
    const auto entry = builders_.find(handle);
    if (entry == builders_.end()) {
      return Found::kUnknown;
    }
    *builder = entry->second.get();
    return (*builder)->registered ? Found::kRegistered : Found::kUsable;
  }

  std::mutex mutex_;
  std::unordered_map<const Builder*, std::unique_ptr<Builder>> builders_;
};

}  // namespace sectl::tf_c_api
