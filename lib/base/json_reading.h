// Reading a JSON document sectl did not write itself (a report handed back
// to `sectl report`, `bench --compare`, ...) into typed fields, with one
// error that names the first problem by its path:
// "results[3].median_gbps: expected a number or null, found string".
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sectl {

// What a JSON value is, for an error: its type, and the value too when it is
// a number, since "found number" does not say why -1 is not a count.
std::string DescribeJsonValue(const nlohmann::json& value);

// `text` as a JSON string literal, quotes and escapes included.
std::string QuoteJson(std::string_view text);

// The most of one string JsonReader keeps: a longer one is cut with a note
// saying how long it was (base/text.h's CutLongText). A report quotes a
// plugin's text, which can be any length; sectl itself writes none near it
// (a plugin's message and a check's log are kept to 4 KiB), so only a
// crafted or edited report is cut.
inline constexpr size_t kMaxReadStringBytes = size_t{64} * 1024;

// Reads the members of one JSON object, each checked for presence and type
// before it is converted, so nothing throws. The first problem is kept;
// reads after it do nothing, so a caller reads every member in a row and
// asks once, at the end, whether all went well. Members nobody asks for are
// ignored. The readers of nested objects share the error with their parent.
class JsonReader {
 public:
  JsonReader(const nlohmann::json& object, std::string path, std::optional<std::string>& error)
      : object_(object), path_(std::move(path)), error_(error) {}

  void String(std::string_view key, std::string& out);
  // A number; null is refused.
  void Number(std::string_view key, double& out);
  // A number, or null (NaN) for one that was not finite when written.
  void NumberOrNull(std::string_view key, double& out);
  void Bool(std::string_view key, bool& out);
  void NullableString(std::string_view key, std::optional<std::string>& out);
  void StringList(std::string_view key, std::vector<std::string>& out);
  // An array of numbers, null (NaN) for one that was not finite when written.
  void NumberList(std::string_view key, std::vector<double>& out);
  // Any JSON object, kept as it is.
  void AnyObject(std::string_view key, nlohmann::json& out);
  // Exactly `expected`, a constant of the format (a unit).
  void Constant(std::string_view key, std::string_view expected);

  // A non-negative integer that fits in `Integer`.
  template <typename Integer>
  void Count(std::string_view key, Integer& out) {
    const std::optional<std::uint64_t> count = UnsignedMember(key);
    if (!count) return;
    if (*count > static_cast<std::uint64_t>(std::numeric_limits<Integer>::max())) {
      Fail(key, std::to_string(*count) + " is too large");
      return;
    }
    out = static_cast<Integer>(*count);
  }

  // One of an enum's names; `what` says what the names are ("a status").
  template <typename Enum>
  void Name(std::string_view key, std::span<const Enum> values, std::string_view (*name)(Enum),
            std::string_view what, Enum& out) {
    std::string text;
    String(key, text);
    if (error_) return;
    std::vector<std::string_view> names;
    for (Enum value : values) {
      if (name(value) == text) {
        out = value;
        return;
      }
      names.push_back(name(value));
    }
    FailName(key, text, what, names);
  }

  // Members added in a later schema version: absent in older documents.
  bool Has(std::string_view key) const;

  // A reader for a nested object; after a problem, a reader of nothing.
  JsonReader Object(std::string_view key);
  // A reader for a nested object, or nullopt when the member is null.
  std::optional<JsonReader> NullableObject(std::string_view key);
  // Same, and nullopt also when the member is absent.
  std::optional<JsonReader> OptionalObject(std::string_view key);
  // Readers for an array of objects, one per element.
  std::vector<JsonReader> ObjectList(std::string_view key);

  bool failed() const { return error_.has_value(); }

 private:
  using TypeTest = bool (nlohmann::json::*)() const noexcept;

  std::string PathOf(std::string_view key) const;
  // The member `key`, or null (and the problem recorded) when it is missing.
  const nlohmann::json* Find(std::string_view key);
  // The member `key` if it is there and passes `has_type` (`expected` says
  // what that is, for the error).
  const nlohmann::json* Member(std::string_view key, TypeTest has_type, std::string_view expected);
  std::optional<std::uint64_t> UnsignedMember(std::string_view key);
  void FailName(std::string_view key, const std::string& text, std::string_view what,
                const std::vector<std::string_view>& names);
  void Fail(std::string_view key, std::string_view why);

  const nlohmann::json& object_;
  std::string path_;
  std::optional<std::string>& error_;
};

}  // namespace sectl
