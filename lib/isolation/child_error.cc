#include "isolation/child_error.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace sectl::isolation {

std::string EncodeChildError(const Error& error) {
  return nlohmann::json{{"code", static_cast<int>(error.code())}, {"message", error.message()}}
      .dump();
}

Error DecodeChildError(const std::string& text, std::string_view process) {
  try {
    const auto document = nlohmann::json::parse(text);
    return Error(static_cast<ErrorCode>(document.at("code").get<int>()),
                 document.at("message").get<std::string>());
  } catch (const nlohmann::json::exception&) {
    return Error(ErrorCode::kInternal, fmt::format("{} sent an unreadable error", process));
  }
}

}  // namespace sectl::isolation
