// Help and lists at the terminal's width: every command's --help, found
// from `sectl --help` itself so that a new command cannot escape, and
// `conform --list` and the probe of a TVM C Device API plugin, wrapped at
// $COLUMNS at words, continuation lines under their column, nothing lost.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "base/text_layout.h"
#include "sectl_process.h"

namespace sectl {
namespace {

using testing::CommandResult;
using testing::LinesOf;
using testing::ReferencePlugin;
using testing::RunWithColumns;

// Wide enough that no help text of sectl wraps inside a list entry's
// name: the reference the narrow layouts are compared with.
constexpr size_t kWide = 200;
// Where CLI11, and sectl's formatter after it, starts descriptions.
constexpr size_t kDescriptionColumn = 30;

// Every word of `text`, in order, whatever the spacing and line breaks:
// equal for two layouts exactly when wrapping moved only spaces.
std::vector<std::string> WordsOf(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream stream(text);
  for (std::string word; stream >> word;) words.push_back(word);
  return words;
}

// The lines of `text` wider than `width` that are not one word alone (a
// word longer than a line may run past the width; nothing else may).
std::vector<std::string> LinesTooWide(const std::string& text, size_t width) {
  std::vector<std::string> too_wide;
  for (const std::string& line : LinesOf(text)) {
    if (DisplayWidth(line) <= width) continue;
    const size_t start = line.find_first_not_of(' ');
    if (line.find(' ', start) != std::string::npos) too_wide.push_back(line);
  }
  return too_wide;
}

std::vector<std::string> HelpArguments(const std::string& command) {
  std::vector<std::string> arguments = WordsOf(command);
  arguments.emplace_back("--help");
  return arguments;
}

bool IsListHeading(const std::string& line) {
  return line == "Options:" || line == "Positionals:" || line == "Subcommands:";
}

// The entries of the lists (options, positionals, subcommands) of a help
// text: lines that start with two spaces and a word; a continuation line
// starts deeper.
std::vector<std::string> ListEntries(const std::string& help) {
  std::vector<std::string> entries;
  bool in_list = false;
  for (const std::string& line : LinesOf(help)) {
    if (line.empty() || line.front() != ' ') {
      in_list = IsListHeading(line);
      continue;
    }
    if (in_list && line.starts_with("  ") && line.size() > 2 && line[2] != ' ') {
      entries.push_back(WordsOf(line).front());
    }
  }
  return entries;
}

// The subcommands a help text lists, in order.
std::vector<std::string> SubcommandsListed(const std::string& help) {
  std::vector<std::string> names;
  const size_t start = help.find("\nSubcommands:\n");
  if (start == std::string::npos) return names;
  for (const std::string& line : LinesOf(help.substr(start + 1))) {
    if (line.starts_with("  ") && line.size() > 2 && line[2] != ' ') {
      names.push_back(WordsOf(line).front());
    }
  }
  return names;
}

// "" (sectl itself), then every command and subcommand at every depth, as
// `sectl --help` and each command's --help list them.
std::vector<std::string> EveryCommand() {
  std::vector<std::string> commands = {""};
  for (size_t next = 0; next < commands.size(); ++next) {
    const CommandResult help = RunWithColumns(HelpArguments(commands[next]), std::to_string(kWide));
    EXPECT_EQ(help.exit_code, 0) << commands[next] << ": " << help.err;
    for (const std::string& name : SubcommandsListed(help.out)) {
      commands.push_back(commands[next].empty() ? name : commands[next] + " " + name);
    }
  }
  return commands;
}

TEST(HelpLayout, TheCommandListComesFromSectlAndReachesEveryDepth) {
  const std::vector<std::string> commands = EveryCommand();
  // Not the list itself (that is sectl's), but proof that reading it works
  // at both depths, so that the tests below cannot pass on nothing.
  for (const char* expected : {"probe", "conform", "bench", "bench memcpy", "bench latency",
                               "trace show", "validate show", "validate where", "explain"}) {
    EXPECT_NE(std::find(commands.begin(), commands.end(), expected), commands.end())
        << expected << " missing from what `sectl --help` offers";
  }
}

// Every command's help, at 80 and 120 columns: no line past the width but
// a lone word; the same words in the same order as at 200 columns (no word
// split, nothing lost); the same options; and every continuation line of
// a list under the description column.
TEST(HelpLayout, EveryCommandsHelpFitsTheColumnsWithoutSplittingAWord) {
  for (const std::string& command : EveryCommand()) {
    const CommandResult wide = RunWithColumns(HelpArguments(command), std::to_string(kWide));
    ASSERT_EQ(wide.exit_code, 0) << command << ": " << wide.err;
    const std::vector<std::string> entries = ListEntries(wide.out);
    EXPECT_NE(std::find(entries.begin(), entries.end(), "-h,--help"), entries.end())
        << "sectl " << command << " --help lists no options:\n"
        << wide.out;
    for (const size_t width : {80u, 120u}) {
      SCOPED_TRACE("sectl " + command + " --help at " + std::to_string(width) + " columns");
      const CommandResult narrow = RunWithColumns(HelpArguments(command), std::to_string(width));
      ASSERT_EQ(narrow.exit_code, 0) << narrow.err;
      EXPECT_EQ(LinesTooWide(narrow.out, width), std::vector<std::string>{}) << narrow.out;
      EXPECT_EQ(WordsOf(narrow.out), WordsOf(wide.out)) << narrow.out;
      EXPECT_EQ(ListEntries(narrow.out), entries) << narrow.out;
      bool in_list = false;
      for (const std::string& line : LinesOf(narrow.out)) {
        if (line.empty() || line.front() != ' ') {
          in_list = IsListHeading(line);
          continue;
        }
        if (!in_list || (line.size() > 2 && line[2] != ' ')) continue;
        EXPECT_EQ(line.find_first_not_of(' '), kDescriptionColumn)
            << "a continuation line off its column: '" << line << "'";
      }
    }
  }
}

// Help for people even through a pipe: 80 columns without $COLUMNS, and a
// width out of reason kept to one that reads.
TEST(HelpLayout, WithoutColumnsHelpIsEightyWide) {
  const CommandResult unset = RunWithColumns({"conform", "--help"}, "");
  ASSERT_EQ(unset.exit_code, 0) << unset.err;
  EXPECT_EQ(unset.out, RunWithColumns({"conform", "--help"}, "80").out);
  EXPECT_EQ(RunWithColumns({"conform", "--help"}, "nonsense").out, unset.out);
  const CommandResult tiny = RunWithColumns({"conform", "--help"}, "5");
  EXPECT_EQ(tiny.out, RunWithColumns({"conform", "--help"}, "40").out);
  EXPECT_EQ(LinesTooWide(tiny.out, 40), std::vector<std::string>{}) << tiny.out;
  EXPECT_EQ(WordsOf(tiny.out), WordsOf(unset.out));
}

// `sectl help conform` is `sectl conform --help`, laid out the same.
TEST(HelpLayout, HelpWordGivesTheSameWrappedHelp) {
  const CommandResult word = RunWithColumns({"help", "conform"}, "80");
  ASSERT_EQ(word.exit_code, 0) << word.err;
  EXPECT_EQ(word.out, RunWithColumns({"conform", "--help"}, "80").out);
}

// The list of checks at 80 and 120 columns: every check, its whole title,
// no line past the width; piped without $COLUMNS, one line a check.
TEST(ListLayout, ConformListFitsTheColumns) {
  const CommandResult whole = RunWithColumns({"conform", "--list"}, "");
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  const CommandResult json = RunWithColumns({"conform", "--list", "--format", "json"}, "");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto checks = nlohmann::json::parse(json.out);
  ASSERT_GT(checks.size(), 10u);
  EXPECT_EQ(LinesOf(whole.out).size(), checks.size()) << "unwrapped: one line a check";
  for (const size_t width : {80u, 120u}) {
    SCOPED_TRACE("conform --list at " + std::to_string(width) + " columns");
    const CommandResult list = RunWithColumns({"conform", "--list"}, std::to_string(width));
    ASSERT_EQ(list.exit_code, 0) << list.err;
    EXPECT_EQ(LinesTooWide(list.out, width), std::vector<std::string>{}) << list.out;
    EXPECT_EQ(WordsOf(list.out), WordsOf(whole.out)) << list.out;
    std::set<std::string> rows;
    for (const std::string& line : LinesOf(list.out)) {
      if (!line.empty() && line.front() != ' ') rows.insert(WordsOf(line).front());
    }
    for (const auto& check : checks) {
      EXPECT_TRUE(rows.contains(check["id"].get<std::string>()))
          << check["id"] << " does not start a row";
    }
  }
  EXPECT_GT(LinesOf(RunWithColumns({"conform", "--list"}, "80").out).size(), checks.size())
      << "at 80 columns some titles must wrap, or this test shows nothing";
}

// The probe of a TVM C Device API plugin: each hook's role under its
// symbol where the row is too wide, never cut at the edge.
TEST(ListLayout, TvmCDeviceProbeFitsTheColumns) {
  const std::vector<std::string> probe = {"probe", ReferencePlugin("sectl_woofles")};
  const CommandResult whole = RunWithColumns(probe, "");
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  for (const size_t width : {80u, 120u}) {
    SCOPED_TRACE("probe at " + std::to_string(width) + " columns");
    const CommandResult table = RunWithColumns(probe, std::to_string(width));
    ASSERT_EQ(table.exit_code, 0) << table.err;
    EXPECT_EQ(LinesTooWide(table.out, width), std::vector<std::string>{}) << table.out;
    EXPECT_EQ(WordsOf(table.out), WordsOf(whole.out)) << table.out;
  }
  EXPECT_NE(RunWithColumns(probe, "80").out.find("TVMDeviceWooflesDmaDeactivate\n"),
            std::string::npos)
      << "at 80 columns the role goes under the symbol";
}

}  // namespace
}  // namespace sectl
