#include "base/json_text.h"

#include <fmt/format.h>

namespace sectl {
namespace {

// Where the nesting of arrays and objects first goes deeper than
// `max_depth`, or npos. Brackets inside strings do not count; anything else
// malformed is left to the parser.
size_t FirstTooDeep(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (size_t at = 0; at < text.size(); ++at) {
    const char c = text[at];
    if (in_string) {
      if (c == '\\') {
        ++at;  // the escaped character cannot end the string
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return at;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::string_view::npos;
}

}  // namespace

std::string WithoutExceptionId(std::string_view what) {
  const size_t end = what.starts_with('[') ? what.find("] ") : std::string_view::npos;
  return std::string(end == std::string_view::npos ? what : what.substr(end + 2));
}

std::string EncodeJson(const nlohmann::json& value, int indent) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string EncodeJson(const nlohmann::ordered_json& value, int indent) {
  return value.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

Expected<nlohmann::json> ParseUntrustedJson(std::string_view text) {
  if (const size_t at = FirstTooDeep(text, kMaxJsonDepth); at != std::string_view::npos) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("nested deeper than {} levels (at byte {})", kMaxJsonDepth, at + 1));
  }
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& error) {
    return Fail(ErrorCode::kInvalidArgument, WithoutExceptionId(error.what()));
  }
}

}  // namespace sectl
