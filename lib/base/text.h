// Making text that came from a plugin safe to show.
#pragma once

#include <string>
#include <string_view>

namespace sectl {

// `text` with every control character except newline and tab written out as
// "\xNN" (a CR before a newline is dropped), every character that changes
// the layout of the text around it (bidirectional overrides and isolates,
// U+2028/U+2029) written out as "\u{NNNN}", and invalid UTF-8 and the
// noncharacters U+FFFE/U+FFFF replaced by U+FFFD. Plugins print and report
// anything; this keeps their text from driving a terminal and keeps it
// legal in XML 1.0 (the JUnit report).
std::string EscapeControlCharacters(std::string_view text);

// `text` whole when it has at most `max_bytes` bytes; else its first bytes,
// cut at a character boundary, and "... (N bytes in all; cut at M)". A
// plugin's message can be any length: reports quote it, and one 10 MB
// message would otherwise make a report of tens of megabytes.
std::string CutLongText(std::string_view text, size_t max_bytes);

// What CutLongText writes for a text of `total_bytes` of which only the
// first bytes, `kept`, are at hand (a plugin server sends at most a
// message's worth): `kept` and "... (N bytes in all; cut at M)".
std::string NoteCutText(std::string_view kept, size_t total_bytes, size_t max_bytes);

}  // namespace sectl
