#include "tf_c_api/module_recording.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "base/json_reading.h"

namespace sectl::tf_c_api {
namespace {

using Json = nlohmann::json;

// Strings a plugin passed may hold any bytes; the text stays valid JSON.
std::string Dump(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// A serialized KernelDef is a binary proto: hex, so no byte is lost.
std::string Hex(std::string_view bytes) {
  std::string text;
  text.reserve(bytes.size() * 2);
  for (const char byte : bytes) text += fmt::format("{:02x}", static_cast<unsigned char>(byte));
  return text;
}

std::optional<std::string> FromHex(std::string_view text) {
  if (text.size() % 2 != 0) return std::nullopt;
  std::string bytes;
  bytes.reserve(text.size() / 2);
  const auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  for (size_t i = 0; i < text.size(); i += 2) {
    const int high = digit(text[i]);
    const int low = digit(text[i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    bytes += static_cast<char>(high * 16 + low);
  }
  return bytes;
}

Json KernelToJson(const KernelRegistration& kernel) {
  Json constraints = Json::array();
  for (const auto& [attr, type] : kernel.type_constraints) {
    constraints.push_back({{"attr", attr}, {"type", type}});
  }
  return {{"op", kernel.op},
          {"device_type", kernel.device_type},
          {"kernel_name", kernel.kernel_name},
          {"label", kernel.label},
          {"priority", kernel.priority},
          {"priority_set", kernel.priority_set},
          {"type_constraints", std::move(constraints)},
          {"host_memory_arguments", kernel.host_memory_arguments},
          {"has_create", kernel.has_create},
          {"has_compute", kernel.has_compute},
          {"has_delete", kernel.has_delete},
          {"async", kernel.async},
          {"has_serialized_kernel_def", kernel.has_serialized_kernel_def},
          {"serialized_kernel_def_hex", Hex(kernel.serialized_kernel_def)},
          {"registration_error", kernel.registration_error},
          {"truncated", kernel.truncated}};
}

Json OpToJson(const OpRegistration& op) {
  Json json = {{"name", op.name},
               {"inputs", op.inputs},
               {"outputs", op.outputs},
               {"attrs", op.attrs},
               {"is_commutative", op.is_commutative},
               {"is_aggregate", op.is_aggregate},
               {"is_stateful", op.is_stateful},
               {"allows_uninitialized_input", op.allows_uninitialized_input},
               {"has_shape_inference_function", op.has_shape_inference_function},
               {"deprecated_at_version", nullptr},
               {"deprecation_explanation", op.deprecation_explanation},
               {"registration_error", op.registration_error},
               {"truncated", op.truncated}};
  if (op.deprecated_at_version) json["deprecated_at_version"] = *op.deprecated_at_version;
  return json;
}

const char* LogKindName(LogMessage::Kind kind) {
  switch (kind) {
    case LogMessage::Kind::kLog:
      return "log";
    case LogMessage::Kind::kVLog:
      return "vlog";
    case LogMessage::Kind::kDVLog:
      return "dvlog";
  }
  return "log";
}

// Appends `entries` to `array` while the document stays under `budget`
// bytes, counting the rest in `left_out`.
template <typename Entry, typename ToJson>
void AppendWithin(Json& array, const std::vector<Entry>& entries, ToJson to_json, size_t& budget,
                  uint64_t& left_out) {
  for (const Entry& entry : entries) {
    Json json = to_json(entry);
    const size_t bytes = Dump(json).size() + 1;
    if (bytes > budget) {
      ++left_out;
      continue;
    }
    budget -= bytes;
    array.push_back(std::move(json));
  }
}

// Fails the reading when a list read from the plugin's process is longer
// than the writer's cap allows.
void RefuseLongerThan(size_t size, size_t cap, std::string_view what,
                      std::optional<std::string>& error) {
  if (!error && size > cap) {
    error = fmt::format("{}: {} entries, more than the {} sectl keeps", what, size, cap);
  }
}

void RefuseLongStrings(const std::vector<std::string>& texts, std::string_view what,
                       std::optional<std::string>& error) {
  RefuseLongerThan(texts.size(), kMaxRecordedListEntries, what, error);
  for (const auto& text : texts) {
    if (!error && text.size() > kMaxRecordedStringBytes) {
      error = fmt::format("{}: a string of {} bytes, longer than sectl keeps", what, text.size());
    }
  }
}

void RefuseLongString(const std::string& text, std::string_view what,
                      std::optional<std::string>& error) {
  if (!error && text.size() > kMaxRecordedStringBytes) {
    error = fmt::format("{}: a string of {} bytes, longer than sectl keeps", what, text.size());
  }
}

KernelRegistration ReadKernel(JsonReader& reader, std::optional<std::string>& error) {
  KernelRegistration kernel;
  reader.String("op", kernel.op);
  reader.String("device_type", kernel.device_type);
  reader.String("kernel_name", kernel.kernel_name);
  reader.String("label", kernel.label);
  double priority = 0;
  reader.Number("priority", priority);
  kernel.priority = static_cast<int32_t>(priority);
  reader.Bool("priority_set", kernel.priority_set);
  for (auto& constraint : reader.ObjectList("type_constraints")) {
    std::string attr;
    double type = 0;
    constraint.String("attr", attr);
    constraint.Number("type", type);
    RefuseLongString(attr, "a type constraint's attr", error);
    kernel.type_constraints.emplace_back(std::move(attr), static_cast<int>(type));
  }
  RefuseLongerThan(kernel.type_constraints.size(), kMaxRecordedListEntries, "type_constraints",
                   error);
  reader.StringList("host_memory_arguments", kernel.host_memory_arguments);
  RefuseLongStrings(kernel.host_memory_arguments, "host_memory_arguments", error);
  reader.Bool("has_create", kernel.has_create);
  reader.Bool("has_compute", kernel.has_compute);
  reader.Bool("has_delete", kernel.has_delete);
  reader.Bool("async", kernel.async);
  reader.Bool("has_serialized_kernel_def", kernel.has_serialized_kernel_def);
  std::string hex;
  reader.String("serialized_kernel_def_hex", hex);
  if (!error) {
    if (auto bytes = FromHex(hex)) {
      kernel.serialized_kernel_def = std::move(*bytes);
    } else {
      error = "serialized_kernel_def_hex: not hexadecimal";
    }
  }
  reader.String("registration_error", kernel.registration_error);
  reader.Bool("truncated", kernel.truncated);
  for (const auto* text : {&kernel.op, &kernel.device_type, &kernel.kernel_name, &kernel.label,
                           &kernel.serialized_kernel_def, &kernel.registration_error}) {
    RefuseLongString(*text, "a kernel registration", error);
  }
  return kernel;
}

OpRegistration ReadOp(JsonReader& reader, std::optional<std::string>& error) {
  OpRegistration op;
  reader.String("name", op.name);
  reader.StringList("inputs", op.inputs);
  reader.StringList("outputs", op.outputs);
  reader.StringList("attrs", op.attrs);
  reader.Bool("is_commutative", op.is_commutative);
  reader.Bool("is_aggregate", op.is_aggregate);
  reader.Bool("is_stateful", op.is_stateful);
  reader.Bool("allows_uninitialized_input", op.allows_uninitialized_input);
  reader.Bool("has_shape_inference_function", op.has_shape_inference_function);
  double deprecated = -1;
  reader.NumberOrNull("deprecated_at_version", deprecated);
  if (!std::isnan(deprecated)) op.deprecated_at_version = static_cast<int>(deprecated);
  reader.String("deprecation_explanation", op.deprecation_explanation);
  reader.String("registration_error", op.registration_error);
  reader.Bool("truncated", op.truncated);
  RefuseLongStrings(op.inputs, "an op's inputs", error);
  RefuseLongStrings(op.outputs, "an op's outputs", error);
  RefuseLongStrings(op.attrs, "an op's attrs", error);
  for (const auto* text : {&op.name, &op.deprecation_explanation, &op.registration_error}) {
    RefuseLongString(*text, "an op registration", error);
  }
  return op;
}

}  // namespace

std::string RecordingToJson(const ModuleRecording& recording, size_t max_bytes) {
  // What the counts and brackets need, whatever the entries.
  constexpr size_t kFrame = 1024;
  size_t budget = max_bytes > kFrame ? max_bytes - kFrame : 0;
  NotRecordedCounts left_out = recording.not_recorded;

  // One short entry per function sectl exports at most: always whole.
  Json unprovided = Json::array();
  for (const UnprovidedCall& call : recording.unprovided_calls) {
    unprovided.push_back({{"function", call.function},
                          {"calls", call.calls},
                          {"needs_running_kernel", call.needs_running_kernel}});
  }
  Json misuses = Json::array();
  AppendWithin(
      misuses, recording.misuses,
      [](const ApiMisuse& misuse) {
        return Json{{"function", misuse.function}, {"problem", misuse.problem}};
      },
      budget, left_out.misuses);
  Json kernels = Json::array();
  AppendWithin(kernels, recording.kernels, KernelToJson, budget, left_out.kernels);
  Json ops = Json::array();
  AppendWithin(ops, recording.ops, OpToJson, budget, left_out.ops);
  Json log_messages = Json::array();
  AppendWithin(
      log_messages, recording.log_messages,
      [](const LogMessage& message) {
        return Json{{"kind", LogKindName(message.kind)},
                    {"level", message.level},
                    {"text", message.text},
                    {"truncated", message.truncated}};
      },
      budget, left_out.log_messages);

  const Json document = {{"kernels", std::move(kernels)},
                         {"ops", std::move(ops)},
                         {"unprovided_calls", std::move(unprovided)},
                         {"misuses", std::move(misuses)},
                         {"log_messages", std::move(log_messages)},
                         {"not_recorded",
                          {{"kernels", left_out.kernels},
                           {"ops", left_out.ops},
                           {"misuses", left_out.misuses},
                           {"log_messages", left_out.log_messages}}}};
  return Dump(document);
}

Expected<ModuleRecording> RecordingFromJson(std::string_view text) {
  if (text.size() > kMaxRecordingJsonBytes) {
    return tl::unexpected(Error(ErrorCode::kPluginError,
                                fmt::format("the recording is {} bytes, more than the {} read",
                                            text.size(), kMaxRecordingJsonBytes)));
  }
  const Json document = Json::parse(text, nullptr, false);
  if (document.is_discarded() || !document.is_object()) {
    return tl::unexpected(Error(ErrorCode::kPluginError, "the recording is not a JSON object"));
  }
  std::optional<std::string> error;
  JsonReader reader(document, "", error);
  ModuleRecording recording;
  for (auto& kernel : reader.ObjectList("kernels")) {
    recording.kernels.push_back(ReadKernel(kernel, error));
  }
  for (auto& op : reader.ObjectList("ops")) recording.ops.push_back(ReadOp(op, error));
  for (auto& call : reader.ObjectList("unprovided_calls")) {
    UnprovidedCall& read = recording.unprovided_calls.emplace_back();
    call.String("function", read.function);
    call.Count("calls", read.calls);
    call.Bool("needs_running_kernel", read.needs_running_kernel);
    RefuseLongString(read.function, "an unprovided call", error);
  }
  for (auto& misuse : reader.ObjectList("misuses")) {
    ApiMisuse& read = recording.misuses.emplace_back();
    misuse.String("function", read.function);
    misuse.String("problem", read.problem);
    RefuseLongString(read.function, "a misuse", error);
    RefuseLongString(read.problem, "a misuse", error);
  }
  for (auto& message : reader.ObjectList("log_messages")) {
    LogMessage& read = recording.log_messages.emplace_back();
    std::string kind;
    double level = 0;
    message.String("kind", kind);
    message.Number("level", level);
    message.String("text", read.text);
    message.Bool("truncated", read.truncated);
    read.level = static_cast<int>(level);
    read.kind = kind == "vlog"    ? LogMessage::Kind::kVLog
                : kind == "dvlog" ? LogMessage::Kind::kDVLog
                                  : LogMessage::Kind::kLog;
    RefuseLongString(read.text, "a log message", error);
  }
  JsonReader counts = reader.Object("not_recorded");
  counts.Count("kernels", recording.not_recorded.kernels);
  counts.Count("ops", recording.not_recorded.ops);
  counts.Count("misuses", recording.not_recorded.misuses);
  counts.Count("log_messages", recording.not_recorded.log_messages);
  RefuseLongerThan(recording.kernels.size(), kMaxRecordedKernels, "kernels", error);
  RefuseLongerThan(recording.ops.size(), kMaxRecordedOps, "ops", error);
  RefuseLongerThan(recording.misuses.size(), kMaxRecordedMisuses, "misuses", error);
  RefuseLongerThan(recording.log_messages.size(), kMaxRecordedLogMessages, "log_messages", error);
  // One entry per function sectl exports at most.
  RefuseLongerThan(recording.unprovided_calls.size(), kMaxRecordedListEntries, "unprovided_calls",
                   error);
  if (error) {
    return tl::unexpected(Error(ErrorCode::kPluginError, "the recording is malformed: " + *error));
  }
  return recording;
}

}  // namespace sectl::tf_c_api
