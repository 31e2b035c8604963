#include "base/text_layout.h"

#include <sys/ioctl.h>
#include <unistd.h>
#include <utf8proc.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <vector>

namespace sectl {
namespace {

constexpr size_t kMaxColumns = 10000;  // a $COLUMNS past this is a mistake

// The length of the ANSI escape sequence (CSI: ESC '[' ... final byte) at
// the start of `text`, or 0 when there is none.
size_t EscapeSequenceLength(std::string_view text) {
  if (text.size() < 2 || text[0] != '\033' || text[1] != '[') return 0;
  for (size_t i = 2; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x40 && byte <= 0x7e) return i + 1;
  }
  return text.size();
}

// The next piece of `text`: an escape sequence, or one UTF-8 character (an
// invalid byte alone), with the columns it takes.
struct Piece {
  size_t bytes;
  size_t columns;
};

Piece NextPiece(std::string_view text) {
  if (const size_t escape = EscapeSequenceLength(text); escape > 0) return {escape, 0};
  utf8proc_int32_t code_point = 0;
  const utf8proc_ssize_t length =
      utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                       static_cast<utf8proc_ssize_t>(text.size()), &code_point);
  if (length <= 0) return {1, 1};  // shown as one replacement character
  const int width = utf8proc_charwidth(code_point);
  return {static_cast<size_t>(length), static_cast<size_t>(std::max(width, 0))};
}

// Splits `word` into pieces of at most `columns` columns each, never
// inside a character or an escape sequence.
std::vector<std::string_view> BreakWord(std::string_view word, size_t columns) {
  std::vector<std::string_view> chunks;
  size_t start = 0;
  size_t used = 0;
  for (size_t i = 0; i < word.size();) {
    const Piece piece = NextPiece(word.substr(i));
    if (used + piece.columns > columns && used > 0) {
      chunks.push_back(word.substr(start, i - start));
      start = i;
      used = 0;
    }
    used += piece.columns;
    i += piece.bytes;
  }
  chunks.push_back(word.substr(start));
  return chunks;
}

// "byte 12 of 4096" and "byte 7 of 512" have the same shape: a number
// (decimal, or hexadecimal after "0x") stands for any number, and the word
// after a number loses a plural "s" ("1 byte", "3 bytes").
std::string ShapeOf(std::string_view part) {
  auto is_digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  auto is_hex_digit = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; };
  std::string shape;
  size_t i = 0;
  while (i < part.size()) {
    if (!is_digit(part[i])) {
      shape += part[i++];
      continue;
    }
    if (part.substr(i).starts_with("0x")) {
      i += 2;
      while (i < part.size() && is_hex_digit(part[i])) ++i;
    } else {
      while (i < part.size() && is_digit(part[i])) ++i;
    }
    shape += '#';
    if (i < part.size() && part[i] == ' ') {
      const size_t word_end = std::min(part.find_first_of(" ,;:()", i + 1), part.size());
      const std::string_view word = part.substr(i + 1, word_end - (i + 1));
      if (word.size() > 1 && word.ends_with('s')) {
        shape += ' ';
        shape += word.substr(0, word.size() - 1);
        i = word_end;
      }
    }
  }
  return shape;
}

std::vector<std::string_view> SplitParts(std::string_view text, std::string_view separator) {
  std::vector<std::string_view> parts;
  for (;;) {
    const size_t end = text.find(separator);
    parts.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + separator.size());
  }
  return parts;
}

}  // namespace

size_t StdoutColumns() {
  winsize size{};
  if (::isatty(STDOUT_FILENO) != 0 && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 &&
      size.ws_col > 0) {
    return size.ws_col;
  }
  const char* columns = std::getenv("COLUMNS");
  if (columns == nullptr) return 0;
  const std::string_view text(columns);
  size_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value > kMaxColumns) return 0;
  return value;
}

size_t DisplayWidth(std::string_view text) {
  size_t columns = 0;
  while (!text.empty()) {
    const Piece piece = NextPiece(text);
    columns += piece.columns;
    text.remove_prefix(piece.bytes);
  }
  return columns;
}

std::string WrapLine(std::string_view line, size_t width, size_t indent, LongWords long_words) {
  if (width == 0 || DisplayWidth(line) <= width) return std::string(line);
  indent = std::min(indent, width / 2);
  const std::string hanging(indent, ' ');

  // The leading spaces stay: they are the row's own indent.
  const size_t first_word = std::min(line.find_first_not_of(' '), line.size());
  std::string out(line.substr(0, first_word));
  size_t used = first_word;  // columns on the line being written
  line.remove_prefix(first_word);
  bool line_has_words = false;
  std::string_view gap;  // the spaces after the last word written

  auto new_line = [&] {
    out += '\n';
    out += hanging;
    used = indent;
    line_has_words = false;
  };
  while (!line.empty()) {
    const size_t word_end = std::min(line.find(' '), line.size());
    const std::string_view word = line.substr(0, word_end);
    line.remove_prefix(word_end);
    const size_t gap_end = std::min(line.find_first_not_of(' '), line.size());
    const std::string_view next_gap = line.substr(0, gap_end);
    line.remove_prefix(gap_end);

    const size_t columns = DisplayWidth(word);
    // A word that fits on no line is broken anyway: it starts right here.
    // Left whole, it starts a line of its own instead.
    const bool breaks_here = columns > width - indent && long_words == LongWords::kBreak;
    if (line_has_words) {
      // The gap goes out only when the word fits after it; at a break it
      // is dropped.
      if (used + gap.size() + columns <= width || (breaks_here && used + gap.size() < width)) {
        out.append(gap);
        used += gap.size();
      } else {
        new_line();
      }
    }
    if (!line_has_words && used > indent && used + columns > width && indent + columns <= width) {
      // Leading spaces that leave no room for the first word shrink to
      // the indent rather than break it.
      out.resize(out.size() - (used - indent));
      used = indent;
    }
    if (used + columns <= width || !breaks_here) {
      out.append(word);
      used += columns;
    } else {
      // Longer than a line: broken where it must be.
      std::string_view rest = word;
      while (!rest.empty()) {
        if (rest.size() < word.size()) new_line();
        std::string_view chunk = BreakWord(rest, width - used).front();
        // A path breaks after a slash where one is at hand.
        const size_t slash = chunk.rfind('/');
        if (chunk.size() < rest.size() && slash != std::string_view::npos && slash > 0) {
          chunk = chunk.substr(0, slash + 1);
        }
        out.append(chunk);
        used += DisplayWidth(chunk);
        rest.remove_prefix(chunk.size());
      }
    }
    line_has_words = true;
    gap = next_gap;
  }
  return out;
}

std::string Abbreviate(std::string_view text, size_t columns) {
  if (DisplayWidth(text) <= columns) return std::string(text);
  if (columns == 0) return "";
  // The longest start that leaves a column for the ellipsis.
  size_t end = 0;
  size_t used = 0;
  while (end < text.size()) {
    const Piece piece = NextPiece(text.substr(end));
    if (used + piece.columns > columns - 1) break;
    used += piece.columns;
    end += piece.bytes;
  }
  std::string_view kept = text.substr(0, end);
  // At a word's end when the cut falls inside a word.
  if (end < text.size() && text[end] != ' ') {
    const size_t space = kept.rfind(' ');
    if (space != std::string_view::npos && space > 0) kept = kept.substr(0, space);
  }
  while (kept.ends_with(' ') || kept.ends_with(',') || kept.ends_with(';')) {
    kept.remove_suffix(1);
  }
  return std::string(kept) + "…";
}

std::string LayOutRow(std::string_view cells, std::string_view text, size_t width, size_t below) {
  if (text.empty()) {
    const size_t end = cells.find_last_not_of(' ');
    return WrapLine(cells.substr(0, end == std::string_view::npos ? 0 : end + 1), width, below);
  }
  const size_t column = DisplayWidth(cells);
  if (width == 0) return std::string(cells) + std::string(text);
  if (column + kNarrowestTextColumn <= width) {
    // Wrapped alone at the column's width, so that no cap on the indent
    // moves its continuation lines out of the column.
    const std::string wrapped = WrapLine(text, width - column, 0);
    std::string row(cells);
    const std::string indent = "\n" + std::string(column, ' ');
    for (const char c : wrapped) {
      if (c == '\n') {
        row += indent;
      } else {
        row += c;
      }
    }
    return row;
  }
  constexpr size_t kHangingIndent = 2;
  return LayOutRow(cells, "", width, below) + "\n" +
         WrapLine(std::string(below, ' ') + std::string(text), width, below + kHangingIndent);
}

std::string WrapText(std::string_view text, size_t width, size_t indent, LongWords long_words) {
  std::string out;
  for (;;) {
    const size_t end = text.find('\n');
    out += WrapLine(text.substr(0, end), width, indent, long_words);
    if (end == std::string_view::npos) break;
    out += '\n';
    text.remove_prefix(end + 1);
  }
  return out;
}

std::string FoldRepeatedFindings(std::string_view text) {
  constexpr std::string_view kSeparator = "; ";
  const std::vector<std::string_view> parts = SplitParts(text, kSeparator);
  if (parts.size() < 3) return std::string(text);
  std::vector<std::string> shapes;
  shapes.reserve(parts.size());
  for (std::string_view part : parts) shapes.push_back(ShapeOf(part));

  std::string out;
  bool folded = false;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (std::find(shapes.begin(), shapes.begin() + static_cast<ptrdiff_t>(i), shapes[i]) !=
        shapes.begin() + static_cast<ptrdiff_t>(i)) {
      continue;  // counted with the first of its shape
    }
    const auto alike =
        std::count(shapes.begin() + static_cast<ptrdiff_t>(i) + 1, shapes.end(), shapes[i]);
    if (!out.empty()) out += kSeparator;
    out.append(parts[i]);
    if (alike > 0) {
      out += alike == 1 ? " (and 1 more like this)"
                        : " (and " + std::to_string(alike) + " more like this)";
      folded = true;
    }
  }
  return folded ? out : std::string(text);
}

}  // namespace sectl
