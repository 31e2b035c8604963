#include "abi/tf_codes.h"

#include <fmt/format.h>

#include <array>
#include <string_view>

namespace sectl::abi {

std::string TfCodeName(int32_t code) {
  // TF_Code's values, in order (tensorflow/c/tf_status.h).
  static constexpr std::array<std::string_view, 17> kNames = {"OK",
                                                              "CANCELLED",
                                                              "UNKNOWN",
                                                              "INVALID_ARGUMENT",
                                                              "DEADLINE_EXCEEDED",
                                                              "NOT_FOUND",
                                                              "ALREADY_EXISTS",
                                                              "PERMISSION_DENIED",
                                                              "RESOURCE_EXHAUSTED",
                                                              "FAILED_PRECONDITION",
                                                              "ABORTED",
                                                              "OUT_OF_RANGE",
                                                              "UNIMPLEMENTED",
                                                              "INTERNAL",
                                                              "UNAVAILABLE",
                                                              "DATA_LOSS",
                                                              "UNAUTHENTICATED"};
  if (code >= 0 && static_cast<size_t>(code) < kNames.size()) return std::string(kNames[code]);
  return fmt::format("code {}", code);
}

}  // namespace sectl::abi
