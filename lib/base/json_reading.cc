#include "base/json_reading.h"

#include <fmt/format.h>

#include "base/json_text.h"
#include "base/text.h"

namespace sectl {
namespace {

using Json = nlohmann::json;

const Json& EmptyObject() {
  static const Json empty = Json::object();
  return empty;
}

}  // namespace

std::string DescribeJsonValue(const Json& value) {
  if (value.is_number()) return fmt::format("number {}", EncodeJson(value));
  return value.type_name();
}

std::string QuoteJson(std::string_view text) { return EncodeJson(Json(std::string(text))); }

namespace {

// A string of the document, cut at kMaxReadStringBytes with a note.
std::string KeptString(const Json& value) {
  const auto& text = value.get_ref<const std::string&>();
  if (text.size() <= kMaxReadStringBytes) return text;
  return CutLongText(text, kMaxReadStringBytes);
}

// `value` with every string in it cut as KeptString cuts it.
void CutStrings(Json& value) {
  if (value.is_string()) {
    if (value.get_ref<const std::string&>().size() > kMaxReadStringBytes) value = KeptString(value);
    return;
  }
  if (value.is_structured()) {
    for (Json& member : value) CutStrings(member);
  }
}

}  // namespace

void JsonReader::String(std::string_view key, std::string& out) {
  if (const Json* value = Member(key, &Json::is_string, "a string")) out = KeptString(*value);
}

void JsonReader::Number(std::string_view key, double& out) {
  if (const Json* value = Member(key, &Json::is_number, "a number")) out = value->get<double>();
}

void JsonReader::NumberOrNull(std::string_view key, double& out) {
  const Json* value = Find(key);
  if (value == nullptr) return;
  if (value->is_null()) {
    out = std::numeric_limits<double>::quiet_NaN();
  } else if (value->is_number()) {
    out = value->get<double>();
  } else {
    Fail(key, fmt::format("expected a number or null, found {}", DescribeJsonValue(*value)));
  }
}

void JsonReader::Bool(std::string_view key, bool& out) {
  if (const Json* value = Member(key, &Json::is_boolean, "true or false")) {
    out = value->get<bool>();
  }
}

void JsonReader::NullableString(std::string_view key, std::optional<std::string>& out) {
  const Json* value = Find(key);
  if (value == nullptr) return;
  if (value->is_null()) {
    out.reset();
  } else if (value->is_string()) {
    out = KeptString(*value);
  } else {
    Fail(key, fmt::format("expected a string or null, found {}", DescribeJsonValue(*value)));
  }
}

void JsonReader::StringList(std::string_view key, std::vector<std::string>& out) {
  const Json* array = Member(key, &Json::is_array, "an array");
  if (array == nullptr) return;
  out.clear();
  for (size_t index = 0; index < array->size(); ++index) {
    const Json& item = (*array)[index];
    if (!item.is_string()) {
      Fail(fmt::format("{}[{}]", key, index),
           fmt::format("expected a string, found {}", DescribeJsonValue(item)));
      return;
    }
    out.push_back(KeptString(item));
  }
}

void JsonReader::NumberList(std::string_view key, std::vector<double>& out) {
  const Json* array = Member(key, &Json::is_array, "an array");
  if (array == nullptr) return;
  out.clear();
  for (size_t index = 0; index < array->size(); ++index) {
    const Json& item = (*array)[index];
    if (item.is_null()) {
      out.push_back(std::numeric_limits<double>::quiet_NaN());
    } else if (item.is_number()) {
      out.push_back(item.get<double>());
    } else {
      Fail(fmt::format("{}[{}]", key, index),
           fmt::format("expected a number or null, found {}", DescribeJsonValue(item)));
      return;
    }
  }
}

void JsonReader::AnyObject(std::string_view key, Json& out) {
  if (const Json* value = Member(key, &Json::is_object, "an object")) {
    out = *value;
    CutStrings(out);
  }
}

void JsonReader::Constant(std::string_view key, std::string_view expected) {
  std::string text;
  String(key, text);
  if (!error_ && text != expected) {
    Fail(key, fmt::format("expected {}, found {}", QuoteJson(expected), QuoteJson(text)));
  }
}

bool JsonReader::Has(std::string_view key) const { return !error_ && object_.contains(key); }

JsonReader JsonReader::Object(std::string_view key) {
  if (const Json* value = Member(key, &Json::is_object, "an object")) {
    return JsonReader(*value, PathOf(key), error_);
  }
  return JsonReader(EmptyObject(), PathOf(key), error_);
}

std::optional<JsonReader> JsonReader::NullableObject(std::string_view key) {
  const Json* value = Find(key);
  if (value == nullptr || value->is_null()) return std::nullopt;
  if (!value->is_object()) {
    Fail(key, fmt::format("expected an object or null, found {}", DescribeJsonValue(*value)));
    return std::nullopt;
  }
  return JsonReader(*value, PathOf(key), error_);
}

std::optional<JsonReader> JsonReader::OptionalObject(std::string_view key) {
  if (!Has(key)) return std::nullopt;
  return NullableObject(key);
}

std::vector<JsonReader> JsonReader::ObjectList(std::string_view key) {
  std::vector<JsonReader> readers;
  const Json* array = Member(key, &Json::is_array, "an array");
  if (array == nullptr) return readers;
  for (size_t index = 0; index < array->size(); ++index) {
    const Json& item = (*array)[index];
    const std::string item_key = fmt::format("{}[{}]", key, index);
    if (!item.is_object()) {
      Fail(item_key, fmt::format("expected an object, found {}", DescribeJsonValue(item)));
      return {};
    }
    readers.emplace_back(item, PathOf(item_key), error_);
  }
  return readers;
}

std::string JsonReader::PathOf(std::string_view key) const {
  return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
}

const Json* JsonReader::Find(std::string_view key) {
  if (error_) return nullptr;
  const auto found = object_.find(key);
  if (found == object_.end()) {
    Fail(key, "missing");
    return nullptr;
  }
  return &*found;
}

const Json* JsonReader::Member(std::string_view key, TypeTest has_type, std::string_view expected) {
  const Json* value = Find(key);
  if (value == nullptr) return nullptr;
  if (!(value->*has_type)()) {
    Fail(key, fmt::format("expected {}, found {}", expected, DescribeJsonValue(*value)));
    return nullptr;
  }
  return value;
}

std::optional<std::uint64_t> JsonReader::UnsignedMember(std::string_view key) {
  const Json* value = Member(key, &Json::is_number_unsigned, "a non-negative integer");
  if (value == nullptr) return std::nullopt;
  return value->get<std::uint64_t>();
}

void JsonReader::FailName(std::string_view key, const std::string& text, std::string_view what,
                          const std::vector<std::string_view>& names) {
  std::string quoted;
  for (std::string_view name : names) {
    quoted += quoted.empty() ? "" : ", ";
    quoted += QuoteJson(name);
  }
  Fail(key, fmt::format("{} is not {} ({})", QuoteJson(text), what, quoted));
}

void JsonReader::Fail(std::string_view key, std::string_view why) {
  if (!error_) error_ = fmt::format("{}: {}", PathOf(key), why);
}

}  // namespace sectl
