// Making text that came from a plugin safe to show.
#pragma once

#include <string>
#include <string_view>

namespace sectl {

// `text` with every control character except newline and tab written out as
// "\xNN" (a CR before a newline is dropped), and invalid UTF-8 and the
// noncharacters U+FFFE/U+FFFF replaced by U+FFFD. Plugins print and report
// anything; this keeps their text from driving a terminal and keeps it
// legal in XML 1.0 (the JUnit report).
std::string EscapeControlCharacters(std::string_view text);

}  // namespace sectl
