// JSON in and out of sectl, safe for text sectl does not control: what a
// plugin names, prints or reports, and reports a user hands back to sectl.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "base/error.h"

namespace sectl {

// `value` as JSON text (`indent` spaces per level, or one line for -1).
// Invalid UTF-8 in a string is written as U+FFFD instead of throwing, so a
// plugin's bytes can never stop sectl from writing its report.
std::string EncodeJson(const nlohmann::json& value, int indent = -1);
std::string EncodeJson(const nlohmann::ordered_json& value, int indent = -1);

// The deepest nesting of arrays and objects ParseUntrustedJson accepts; far
// more than any report sectl writes.
inline constexpr int kMaxJsonDepth = 64;

// Parses a document sectl did not write itself, refusing one nested deeper
// than kMaxJsonDepth before building it (a deep document would otherwise
// exhaust the stack of whatever walks it). The error is one line without
// nlohmann's exception id: "parse error at line 3, column 5: ..." or
// "nested deeper than 64 levels (at byte 65)".
Expected<nlohmann::json> ParseUntrustedJson(std::string_view text);

// An exception's message without the id nlohmann puts in front
// ("[json.exception.parse_error.101] ").
std::string WithoutExceptionId(std::string_view what);

}  // namespace sectl
