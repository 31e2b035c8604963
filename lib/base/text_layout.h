// Laying text out for a terminal: how wide stdout's terminal is, how many
// columns a string takes there, word wrap with a hanging indent, and the
// folding of a list that repeats one finding many times.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace sectl {

// The columns to lay a report out in: the width of stdout's terminal
// (TIOCGWINSZ), else $COLUMNS, else 0, which means "do not wrap". A pipe or
// a file gets whole lines, so that grep and diff see one line per result.
size_t StdoutColumns();

// The columns `text` takes on a terminal: UTF-8 decoded, each character as
// wide as utf8proc says ("—" and "≥" one, a CJK ideograph two, a combining
// mark none), ANSI escape sequences none.
size_t DisplayWidth(std::string_view text);

// What WrapLine does with a word longer than a line: break it (a report's
// path or message must stay on screen), or leave it whole past the width
// (help, where an option's name or a value list must read as one word).
enum class LongWords { kBreak, kOverflow };

// `line` (no newline in it) broken at spaces into lines at most `width`
// columns wide, joined by '\n' (no newline at the end). The lines after
// the first start with `indent` spaces: a hanging indent, so that the text
// of a wrapped row stays in its column. A word is broken only when it is
// longer than a line, and with LongWords::kOverflow never: it then starts
// a line of its own and runs past the width. The spaces at the start of
// `line` are kept, and the runs of spaces between words where the line is
// not broken (a table's alignment). `width` 0: `line` unchanged. An indent
// of more than half the width is cut to half, so that every line has room
// for words.
std::string WrapLine(std::string_view line, size_t width, size_t indent,
                     LongWords long_words = LongWords::kBreak);

// `text` cut to at most `columns` columns, at a space where there is one,
// and ended with "…" when anything was cut. For a line that should stay
// one line (a passing check's title) where the rest can be looked up.
std::string Abbreviate(std::string_view text, size_t columns);

// The narrowest a table's last column may be and still hold its text:
// narrower, and the text goes under the row instead (LayOutRow).
inline constexpr size_t kNarrowestTextColumn = 24;

// One row of a table whose last column holds free text (a description, a
// title, a verdict and its note): `cells`, the columns before it padded to
// where that column starts, then `text`. For `width` columns (0: one line,
// whatever its length):
//  - where the column is at least kNarrowestTextColumn wide, the text in
//    it, wrapped there: every continuation line starts under the text's
//    first character;
//  - else the cells alone (wrapped with a hanging indent of `below` where
//    they are wider than the line), and the text on the lines under them,
//    `below` columns in and its own continuation lines 2 further. Even text
//    that would fit goes there, so that every row of a table, its heading
//    too, puts its text in the same place.
// No newline at the end; no trailing spaces when `text` is empty.
std::string LayOutRow(std::string_view cells, std::string_view text, size_t width, size_t below);

// WrapLine on each line of `text`.
std::string WrapText(std::string_view text, size_t width, size_t indent,
                     LongWords long_words = LongWords::kBreak);

// A list of findings, "A; B; C", with each run of parts that differ only in
// their numbers (byte offsets, sizes, addresses) shown once and counted:
// "A; and 3 more like this; C". A plugin that corrupts every copy in the
// same way gets one line about it, not a screenful. Text without repeats
// comes back unchanged.
std::string FoldRepeatedFindings(std::string_view text);

}  // namespace sectl
