// lib/base/text_layout.h: display widths, word wrap with a hanging indent,
// the terminal's width, and the folding of repeated findings.
#include "base/text_layout.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace sectl {
namespace {

std::vector<std::string> LinesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  return lines;
}

// Every word of `text`, in order, whatever the spacing and line breaks.
std::vector<std::string> WordsOf(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream stream(text);
  for (std::string word; stream >> word;) words.push_back(word);
  return words;
}

TEST(DisplayWidth, CountsColumnsNotBytes) {
  EXPECT_EQ(DisplayWidth("abc"), 3u);
  EXPECT_EQ(DisplayWidth("a — b"), 5u) << "an em dash is one column (three bytes)";
  EXPECT_EQ(DisplayWidth("≥ 64 …"), 6u);
  EXPECT_EQ(DisplayWidth("日本"), 4u) << "CJK ideographs are two columns each";
  EXPECT_EQ(DisplayWidth("\033[1;31mFAIL\033[0m"), 4u) << "ANSI escapes take no columns";
  EXPECT_EQ(DisplayWidth(""), 0u);
}

TEST(WrapLine, WidthZeroOrAShortLineLeavesItAlone) {
  const std::string line(300, 'x');
  EXPECT_EQ(WrapLine(line, 0, 4), line);
  EXPECT_EQ(WrapLine("  PASS    short", 80, 10), "  PASS    short");
}

TEST(WrapLine, BreaksAtSpacesWithAHangingIndent) {
  const std::string line =
      "  FAIL    memcpy.dtoh  memcpy_dtoh copies exactly the bytes asked for from an interior "
      "range, current each time, and nothing else";
  const std::string wrapped = WrapLine(line, 60, 23);
  const std::vector<std::string> lines = LinesOf(wrapped);
  ASSERT_GE(lines.size(), 2u) << wrapped;
  EXPECT_EQ(lines[0].substr(0, 23), "  FAIL    memcpy.dtoh  ")
      << "the first line keeps its columns";
  for (size_t i = 0; i < lines.size(); ++i) {
    EXPECT_LE(DisplayWidth(lines[i]), 60u) << lines[i];
    EXPECT_NE(lines[i].back(), ' ') << "no trailing space: " << lines[i];
    if (i > 0) {
      EXPECT_EQ(lines[i].substr(0, 23), std::string(23, ' ')) << lines[i];
      EXPECT_NE(lines[i][23], ' ') << "text starts right at the indent: " << lines[i];
    }
  }
  EXPECT_EQ(WordsOf(wrapped), WordsOf(line)) << "no word is broken, lost or added";
}

TEST(WrapLine, NeverBreaksInsideAWordThatFitsOnALine) {
  const std::string line =
      "TensorFlow 2.10 to 2.15 would refuse this plugin: 'create_timer_fns' field in "
      "SP_PlatformFns must be set; 'create_timer' field in SP_StreamExecutor must be set";
  for (size_t width = 30; width <= 90; ++width) {
    const std::string wrapped = WrapLine(line, width, 4);
    EXPECT_EQ(WordsOf(wrapped), WordsOf(line)) << "at " << width << ":\n" << wrapped;
    for (const std::string& wrapped_line : LinesOf(wrapped)) {
      EXPECT_LE(DisplayWidth(wrapped_line), width) << wrapped_line;
    }
  }
}

TEST(WrapLine, CountsMultibyteCharactersAsOneColumn) {
  // 20 words of "a—b" (5 bytes, 3 columns) and spaces: 79 columns, 119 bytes.
  std::string line;
  for (int i = 0; i < 20; ++i) line += i == 0 ? "a—b" : " a—b";
  ASSERT_EQ(DisplayWidth(line), 79u);
  EXPECT_EQ(WrapLine(line, 80, 0), line) << "fits in 80 columns although longer in bytes";
  const std::vector<std::string> lines = LinesOf(WrapLine(line, 40, 0));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(DisplayWidth(lines[0]), 39u) << "ten words to a line of 40";
}

TEST(WrapLine, BreaksAWordOnlyWhenItIsLongerThanALine) {
  const std::string hash(64, 'f');
  const std::string wrapped = WrapLine("  SHA-256  " + hash, 40, 11);
  const std::vector<std::string> lines = LinesOf(wrapped);
  ASSERT_GE(lines.size(), 2u) << wrapped;
  std::string joined;
  for (size_t i = 0; i < lines.size(); ++i) {
    EXPECT_LE(DisplayWidth(lines[i]), 40u) << lines[i];
    joined += i == 0 ? lines[i] : lines[i].substr(11);
  }
  EXPECT_EQ(joined, "  SHA-256  " + hash)
      << "every character kept, in order, the long word started on the first line";
  EXPECT_EQ(
      WrapLine("File  /work/main/build/reference_plugins/faulty/faulty_corrupt_dtoh.so", 40, 6),
      "File  /work/main/build/\n      reference_plugins/faulty/\n      faulty_corrupt_dtoh.so")
      << "a path breaks after a slash";
  // Never inside a character: the pieces stay valid UTF-8.
  std::string dashes;
  for (int i = 0; i < 50; ++i) dashes += "—";
  for (const std::string& line : LinesOf(WrapLine(dashes, 20, 0))) {
    EXPECT_EQ(line.size() % 3, 0u) << "whole three-byte dashes only";
  }
}

TEST(WrapLine, OverflowLeavesALongWordWholeOnALineOfItsOwn) {
  const std::string hash(64, 'f');
  EXPECT_EQ(WrapLine("  SHA-256  " + hash + " end", 40, 11, LongWords::kOverflow),
            "  SHA-256\n           " + hash + "\n           end")
      << "the long word starts the next line, whole, and the words after it go on";
  EXPECT_EQ(WrapLine(hash + " end", 40, 4, LongWords::kOverflow), hash + "\n    end")
      << "a long first word stays where it is";
  EXPECT_EQ(
      WrapLine("  --abi TEXT:{auto,streamexecutor,tvm-c-device}=auto", 30, 4, LongWords::kOverflow),
      "  --abi\n    TEXT:{auto,streamexecutor,tvm-c-device}=auto");
  // Words that fit wrap exactly as when long words break.
  EXPECT_EQ(WrapLine("alpha beta gamma delta", 11, 2, LongWords::kOverflow),
            WrapLine("alpha beta gamma delta", 11, 2));
}

TEST(WrapLine, KeepsTheColumnsOfATableRowWhereItDoesNotBreak) {
  EXPECT_EQ(WrapLine("  PASS    id      title words here", 23, 18),
            "  PASS    id      title\n" + std::string(11, ' ') + "words here")
      << "an indent of more than half the width is cut to half";
  EXPECT_EQ(WrapLine("a    b    c", 8, 0), "a    b\nc");
}

TEST(WrapLine, EscapeSequencesTakeNoRoom) {
  const std::string red = "\033[31mFAIL\033[0m";
  const std::string wrapped = WrapLine(red + " one two three", 14, 2);
  EXPECT_EQ(wrapped, red + " one two\n  three");
}

// A row of name, numbers and a description: the description wraps under
// its own first character, however far right its column starts, or goes
// under the row when its column would be too narrow to read.
TEST(LayOutRow, TheTextWrapsInItsOwnColumnOrUnderTheRow) {
  const std::string cells = "  host_callback_round_trip        75493     3966149        31  ";
  const size_t column = DisplayWidth(cells);  // 64: past the middle of 100
  const std::string text = "host_callback enqueued on an idle stream until it runs";
  EXPECT_EQ(LayOutRow(cells, text, 0, 4), cells + text) << "width 0: one line";
  EXPECT_EQ(LayOutRow(cells, text, 200, 4), cells + text) << "it fits";
  EXPECT_EQ(LayOutRow(cells, "short", 80, 4),
            "  host_callback_round_trip        75493     3966149        31\n    short")
      << "a column too narrow for most text is not used even where a row's text would fit";

  const std::string in_column = LayOutRow(cells, text, 100, 4);
  const std::vector<std::string> lines = LinesOf(in_column);
  ASSERT_GE(lines.size(), 2u) << in_column;
  EXPECT_EQ(lines[0].substr(0, column), cells);
  for (size_t i = 0; i < lines.size(); ++i) {
    EXPECT_LE(DisplayWidth(lines[i]), 100u) << lines[i];
    if (i > 0) {
      EXPECT_EQ(lines[i].substr(0, column), std::string(column, ' ')) << lines[i];
      EXPECT_NE(lines[i][column], ' ') << "under the text's first character: " << lines[i];
    }
  }
  EXPECT_EQ(WordsOf(in_column), WordsOf(cells + text));

  // At 80 the column would be 16 wide: the text goes under the row.
  const std::string below = LayOutRow(cells, text, 80, 4);
  EXPECT_EQ(below,
            "  host_callback_round_trip        75493     3966149        31\n"
            "    host_callback enqueued on an idle stream until it runs")
      << below;
  const std::string narrow = LayOutRow(cells, text, 40, 4);
  for (const std::string& line : LinesOf(narrow)) EXPECT_LE(DisplayWidth(line), 40u) << narrow;
  EXPECT_EQ(WordsOf(narrow), WordsOf(cells + text)) << narrow;
  EXPECT_NE(narrow.find("\n    host_callback enqueued"), std::string::npos) << narrow;
  EXPECT_NE(narrow.find("\n      "), std::string::npos) << "the text's own hanging indent";

  EXPECT_EQ(LayOutRow("  name   12   ", "", 80, 4), "  name   12") << "no trailing spaces";
}

TEST(WrapText, WrapsEachLine) {
  EXPECT_EQ(WrapText("aaa bbb\nccc ddd\n", 4, 1), "aaa\n bbb\nccc\n ddd\n");
}

class ColumnsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* columns = std::getenv("COLUMNS")) saved_ = columns;
  }
  void TearDown() override {
    if (saved_) {
      ::setenv("COLUMNS", saved_->c_str(), 1);
    } else {
      ::unsetenv("COLUMNS");
    }
  }
  std::optional<std::string> saved_;
};

TEST_F(ColumnsTest, FromTheTerminalElseColumnsElseNoWrapping) {
  if (::isatty(STDOUT_FILENO) != 0) GTEST_SKIP() << "stdout is a terminal here";
  ::unsetenv("COLUMNS");
  EXPECT_EQ(StdoutColumns(), 0u) << "a pipe gets whole lines";
  ::setenv("COLUMNS", "80", 1);
  EXPECT_EQ(StdoutColumns(), 80u);
  for (const char* nonsense : {"", "wide", "80x", "-5", "99999999999999999999"}) {
    ::setenv("COLUMNS", nonsense, 1);
    EXPECT_EQ(StdoutColumns(), 0u) << "COLUMNS=" << nonsense;
  }
}

TEST(FoldRepeatedFindings, ShowsTheFirstOfEachShapeAndCountsTheRest) {
  const std::string message =
      "memcpy_dtoh of 1 byte from byte 256 of a 513-byte allocation: byte 0 of the host buffer "
      "reads 0xd7 where the device holds 0x28; memcpy_dtoh of 13 bytes from byte 256 of a "
      "525-byte allocation: byte 0 of the host buffer reads 0xd7 where the device holds 0x28; "
      "memcpy_dtoh of 8193 bytes from byte 256 of a 8705-byte allocation: byte 0 of the host "
      "buffer reads 0xd7 where the device holds 0x28; memcpy_dtoh of 2097157 bytes from byte "
      "256 of a 2097669-byte allocation: byte 0 of the host buffer reads 0xd7 where the device "
      "holds 0x28; TensorFlow would read a corrupted tensor";
  EXPECT_EQ(FoldRepeatedFindings(message),
            "memcpy_dtoh of 1 byte from byte 256 of a 513-byte allocation: byte 0 of the host "
            "buffer reads 0xd7 where the device holds 0x28 (and 3 more like this); TensorFlow "
            "would read a corrupted tensor");
}

TEST(FoldRepeatedFindings, LeavesDifferentFindingsAlone) {
  for (const std::string& message :
       {std::string("one problem"), std::string("a 1; a 2"),
        std::string("'create_timer_fns' field in SP_PlatformFns must be set; 'create_timer' "
                    "field in SP_StreamExecutor must be set; 'destroy_timer' field in "
                    "SP_StreamExecutor must be set")}) {
    EXPECT_EQ(FoldRepeatedFindings(message), message);
  }
  EXPECT_EQ(FoldRepeatedFindings("x at 1; y; x at 2"), "x at 1 (and 1 more like this); y");
}

}  // namespace
}  // namespace sectl
