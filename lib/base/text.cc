#include "base/text.h"

#include <fmt/format.h>
#include <utf8proc.h>

namespace sectl {
namespace {

constexpr std::string_view kReplacementCharacter = "\uFFFD";

bool IsControl(utf8proc_int32_t value) { return value < 0x20 || (value >= 0x7F && value <= 0x9F); }

// Characters that change how the text around them is shown: the
// bidirectional embeddings, overrides and isolates (U+202A-U+202E,
// U+2066-U+2069; "Trojan Source"), the marks U+200E/U+200F and U+061C, and
// the line and paragraph separators U+2028/U+2029, which end a line in
// some terminals, editors and JavaScript but in nothing that counts lines.
bool ChangesLayout(utf8proc_int32_t value) {
  return (value >= 0x202A && value <= 0x202E) || (value >= 0x2066 && value <= 0x2069) ||
         value == 0x200E || value == 0x200F || value == 0x061C || value == 0x2028 ||
         value == 0x2029;
}

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
    } else if (ChangesLayout(value)) {
      clean += fmt::format("\\u{{{:04x}}}", value);
    } else if (value == 0xFFFE || value == 0xFFFF) {
      clean += kReplacementCharacter;  // noncharacters, which XML 1.0 forbids
    } else {
      clean += text.substr(0, static_cast<size_t>(length));
    }
    text.remove_prefix(static_cast<size_t>(length));
  }
  return clean;
}

std::string CutLongText(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  size_t cut = max_bytes;
  // Back off UTF-8 continuation bytes (10xxxxxx) so no character is split.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return NoteCutText(text.substr(0, cut), text.size(), max_bytes);
}

std::string NoteCutText(std::string_view kept, size_t total_bytes, size_t max_bytes) {
  return fmt::format("{}... ({} bytes in all; cut at {})", kept, total_bytes, max_bytes);
}

}  // namespace sectl
