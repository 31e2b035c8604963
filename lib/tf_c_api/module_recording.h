// What a plugin's modules registered through the TensorFlow C API that sectl
// exports (lib/tf_c_api), as plain data: kernels, ops, the API functions
// sectl could not provide, misuses, log messages. The plugin server records
// them in the plugin's process and hands them to the judge as JSON
// (RecordingToJson), which the judge reads as it reads anything from the
// plugin's process: bounded and checked (RecordingFromJson).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/error.h"

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
  // It takes a kernel's construction or context (TF_GetInput,
  // TF_OpKernelConstruction_GetAttrType): none exists while a plugin
  // registers, so TensorFlow would follow whatever pointer was passed.
  bool needs_running_kernel = false;
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

// Everything recorded, read at once.
struct ModuleRecording {
  std::vector<KernelRegistration> kernels;
  std::vector<OpRegistration> ops;
  std::vector<UnprovidedCall> unprovided_calls;
  std::vector<ApiMisuse> misuses;
  std::vector<LogMessage> log_messages;
  NotRecordedCounts not_recorded;
};

// The most of a recording's JSON the judge reads: entries past it are left
// out by the writer and counted as not recorded, so the text stays a whole
// document.
inline constexpr std::size_t kMaxRecordingJsonBytes = std::size_t{64} * 1024 * 1024;

// `recording` as one JSON document of at most `max_bytes` (roughly: entries
// are added while the text stays under it, and the rest is counted in
// not_recorded). Never throws but std::bad_alloc.
std::string RecordingToJson(const ModuleRecording& recording,
                            std::size_t max_bytes = kMaxRecordingJsonBytes);

// Reads RecordingToJson's text, written in a plugin's process: an error
// naming the first member that is missing or of the wrong type, never a
// throw; strings and lists over the caps above are refused.
Expected<ModuleRecording> RecordingFromJson(std::string_view text);

}  // namespace sectl::tf_c_api
