#include "isolation/child_error.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "base/json_text.h"

namespace sectl::isolation {

std::string EncodeChildError(const Error& error) {
  return EncodeJson(
      nlohmann::json{{"code", static_cast<int>(error.code())}, {"message", error.message()}});
}

Error DecodeChildError(const std::string& text, std::string_view process) {
  try {
    const auto document = ParseUntrustedJson(text).value_or(nlohmann::json());
    const int code = document.at("code").get<int>();
    // Only codes that exist: the channel is written from the plugin's process.
    if (code >= static_cast<int>(ErrorCode::kInvalidArgument) &&
        code <= static_cast<int>(ErrorCode::kInternal)) {
      return Error(static_cast<ErrorCode>(code), document.at("message").get<std::string>());
    }
  } catch (const nlohmann::json::exception&) {
  }
  return Error(ErrorCode::kInternal, fmt::format("{} sent an unreadable error", process));
}

}  // namespace sectl::isolation
