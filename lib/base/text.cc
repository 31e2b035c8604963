#include "base/text.h"

#include <fmt/format.h>
#include <utf8proc.h>

namespace sectl {
namespace {

constexpr std::string_view kReplacementCharacter = "\uFFFD";

bool IsControl(utf8proc_int32_t value) { return value < 0x20 || (value >= 0x7F && value <= 0x9F); }

}  // namespace

std::string EscapeControlCharacters(std::string_view text) {
  std::string clean;
  clean.reserve(text.size());
  while (!text.empty()) {
    utf8proc_int32_t value = 0;
    const auto length = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                                         static_cast<utf8proc_ssize_t>(text.size()), &value);
    if (length <= 0) {
      clean += kReplacementCharacter;  // not UTF-8: one replacement per bad byte
      text.remove_prefix(1);
      continue;
    }
    if (value == '\r' && text.size() > 1 && text[1] == '\n') {
      // A CRLF line ending: the newline is enough.
    } else if (value == '\n' || value == '\t') {
      clean += static_cast<char>(value);
    } else if (IsControl(value)) {
      clean += fmt::format("\\x{:02x}", value);
    } else if (value == 0xFFFE || value == 0xFFFF) {
      clean += kReplacementCharacter;  // noncharacters, which XML 1.0 forbids
    } else {
      clean += text.substr(0, static_cast<size_t>(length));
    }
    text.remove_prefix(static_cast<size_t>(length));
  }
  return clean;
}

}  // namespace sectl
