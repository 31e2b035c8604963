// Reading strings a plugin hands over (platform name, device strings).
#pragma once

#include <cstring>
#include <string>

namespace sectl::host {

// A missing terminator must not send sectl reading through the plugin's
// memory: strings are read up to this many bytes.
inline constexpr size_t kMaxPluginString = 256;

// The string at `text`, empty for null, at most kMaxPluginString bytes.
inline std::string ReadPluginString(const char* text) {
  if (text == nullptr) return {};
  return {text, ::strnlen(text, kMaxPluginString)};
}

}  // namespace sectl::host
