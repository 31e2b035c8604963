// How a child process hands sectl's own error about the plugin (not a
// report) back to its parent over the result channel: code and message,
// as one line of JSON.
#pragma once

#include <string>
#include <string_view>

#include "base/error.h"

namespace sectl::isolation {

std::string EncodeChildError(const Error& error);

// The error `EncodeChildError` wrote; an internal error naming `process`
// ("the probe process") when the text cannot be read.
Error DecodeChildError(const std::string& text, std::string_view process);

}  // namespace sectl::isolation
