// How the tables for people look from the command line: wrapped to
// $COLUMNS (or the terminal) and never when piped, repeated findings
// folded, --quiet, and --color, for conform, report, probe and bench.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sectl_process.h"

namespace sectl {
namespace {

using testing::CommandResult;
using testing::LinesOf;
using testing::ReferencePlugin;
using testing::RunWithColumns;
using testing::TemporaryDirectory;

// A plugin that corrupts every device-to-host copy the same way: one
// failing check whose message repeats one finding for four sizes.
std::string CorruptDtohPlugin() {
  return std::string(SECTL_FAULTY_PLUGIN_DIR) + "/faulty_corrupt_dtoh.so";
}

// Columns on a terminal: every character of sectl's tables is one column
// wide, so UTF-8 continuation bytes are all that is not counted.
size_t Columns(const std::string& line) {
  return static_cast<size_t>(std::count_if(line.begin(), line.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  }));
}

size_t WidestLine(const std::string& text) {
  size_t widest = 0;
  for (const std::string& line : LinesOf(text)) widest = std::max(widest, Columns(line));
  return widest;
}

std::string LastLine(const std::string& text) {
  const std::vector<std::string> lines = LinesOf(text);
  return lines.empty() ? "" : lines.back();
}

const std::vector<std::string> kConformDtoh = {"conform", CorruptDtohPlugin(), "--filter",
                                               "memcpy.*", "--no-throughput"};

TEST(ReportLayout, ConformFitsColumnsAndAPipeGetsWholeLines) {
  const CommandResult narrow = RunWithColumns(kConformDtoh, "80");
  EXPECT_EQ(narrow.exit_code, 1) << narrow.err;
  EXPECT_LE(WidestLine(narrow.out), 80u) << narrow.out;
  // The hanging indent: the message goes on two columns further in.
  EXPECT_NE(narrow.out.find("\n          memcpy_dtoh of 1 byte"), std::string::npos) << narrow.out;
  EXPECT_NE(narrow.out.find("\n            "), std::string::npos) << narrow.out;

  const CommandResult piped = RunWithColumns(kConformDtoh, "");
  EXPECT_EQ(piped.exit_code, 1) << piped.err;
  EXPECT_GT(WidestLine(piped.out), 120u) << "not wrapped: " << piped.out;
  // grep finds a result and its whole message on one line each.
  bool message_on_one_line = false;
  for (const std::string& line : LinesOf(piped.out)) {
    if (line.find("memcpy_dtoh of 1 byte") != std::string::npos &&
        line.find("TensorFlow would read a corrupted tensor") != std::string::npos) {
      message_on_one_line = true;
    }
  }
  EXPECT_TRUE(message_on_one_line) << piped.out;

  const CommandResult wide = RunWithColumns(kConformDtoh, "120");
  EXPECT_LE(WidestLine(wide.out), 120u) << wide.out;
}

TEST(ReportLayout, RepeatedFindingsAreFoldedUnlessVerbose) {
  const CommandResult table = RunWithColumns(kConformDtoh, "");
  EXPECT_NE(table.out.find("(and 3 more like this)"), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find("memcpy_dtoh of 13 bytes"), std::string::npos) << table.out;

  std::vector<std::string> verbose = kConformDtoh;
  verbose.emplace_back("--verbose");
  const CommandResult all = RunWithColumns(verbose, "");
  EXPECT_NE(all.out.find("memcpy_dtoh of 13 bytes"), std::string::npos) << all.out;
  EXPECT_EQ(all.out.find("more like this"), std::string::npos) << all.out;

  std::vector<std::string> json = kConformDtoh;
  json.insert(json.end(), {"--report", "json"});
  const CommandResult report = RunWithColumns(json, "80");
  EXPECT_NE(report.out.find("memcpy_dtoh of 13 bytes"), std::string::npos)
      << "the JSON keeps every finding";
  EXPECT_EQ(report.out.find("more like this"), std::string::npos);
}

TEST(ReportLayout, QuietShowsWhatNeedsAttentionAndTheVerdictOnly) {
  std::vector<std::string> quiet = kConformDtoh;
  quiet.emplace_back("--quiet");
  const CommandResult failing = RunWithColumns(quiet, "");
  EXPECT_EQ(failing.exit_code, 1) << failing.err;
  EXPECT_NE(failing.out.find("FAIL    memcpy.dtoh"), std::string::npos) << failing.out;
  EXPECT_NE(failing.out.find("memcpy_dtoh of 1 byte"), std::string::npos) << "with its message";
  EXPECT_EQ(failing.out.find("PASS"), std::string::npos) << failing.out;
  EXPECT_EQ(failing.out.find("SKIP"), std::string::npos) << failing.out;
  EXPECT_EQ(failing.out.find("Plugin "), std::string::npos) << "no header: " << failing.out;
  EXPECT_EQ(failing.out.find("Root causes"), std::string::npos) << failing.out;
  EXPECT_NE(LastLine(failing.out).find("NOT CONFORMANT"), std::string::npos) << failing.out;

  const CommandResult passing = RunWithColumns(
      {"conform", ReferencePlugin("sectl_cpu"), "--filter", "device.*", "--no-throughput", "-q"},
      "");
  EXPECT_EQ(passing.exit_code, 0) << passing.err;
  EXPECT_EQ(passing.out, "3 checks: 3 pass — conformant\n");
}

TEST(ReportLayout, ReportTakesQuietColorAndColumnsToo) {
  TemporaryDirectory directory;
  const std::string saved = (directory.path() / "dtoh.json").string();
  std::vector<std::string> write = kConformDtoh;
  write.insert(write.end(), {"--report", "json", "-o", saved});
  ASSERT_EQ(RunWithColumns(write, "").exit_code, 1);

  const CommandResult quiet = RunWithColumns({"report", saved, "--quiet", "--color=always"}, "");
  EXPECT_EQ(quiet.exit_code, 1) << quiet.err;
  EXPECT_EQ(quiet.out.find("PASS"), std::string::npos) << quiet.out;
  EXPECT_NE(quiet.out.find("\033[31mFAIL"), std::string::npos) << quiet.out;
  EXPECT_NE(LastLine(quiet.out).find("NOT CONFORMANT"), std::string::npos) << quiet.out;

  const CommandResult narrow = RunWithColumns({"report", saved}, "80");
  EXPECT_LE(WidestLine(narrow.out), 80u) << narrow.out;
  const CommandResult into_file =
      RunWithColumns({"report", saved, "-o", (directory.path() / "table.txt").string()}, "80");
  EXPECT_EQ(into_file.exit_code, 1) << into_file.err;
}

TEST(ReportLayout, ColorAlwaysEvenWhenPipedAndNeverOrAutoNot) {
  const std::vector<std::string> conform = {"conform", ReferencePlugin("sectl_cpu"), "--filter",
                                            "device.count", "--no-throughput"};
  auto with = [&conform](const std::string& flag) {
    std::vector<std::string> arguments = conform;
    if (!flag.empty()) arguments.push_back(flag);
    return RunWithColumns(arguments, "");
  };
  EXPECT_NE(with("--color=always").out.find("\033["), std::string::npos);
  EXPECT_EQ(with("--color=never").out.find("\033["), std::string::npos);
  EXPECT_EQ(with("--color=auto").out.find("\033["), std::string::npos) << "a pipe is no terminal";
  EXPECT_EQ(with("").out.find("\033["), std::string::npos);

  const CommandResult probe = RunWithColumns({"probe", "--color", "always"}, "");
  EXPECT_NE(probe.out.find("\033[1m"), std::string::npos) << probe.out;
  EXPECT_EQ(RunWithColumns({"probe", "--color=never"}, "").out.find("\033["), std::string::npos);
}

TEST(ReportLayout, AnUnknownColorIsAUsageError) {
  TemporaryDirectory directory;
  const std::string saved = (directory.path() / "report.json").string();
  std::ofstream(saved) << "{}";
  for (const std::vector<std::string>& command :
       std::vector<std::vector<std::string>>{{"conform", "--color=sometimes"},
                                             {"report", saved, "--color=yes"},
                                             {"probe", "--color", "blue"},
                                             {"bench", "memcpy", "--color=on"}}) {
    const CommandResult result = RunWithColumns(command, "");
    EXPECT_EQ(result.exit_code, 2) << command[0] << ": " << result.err;
    EXPECT_NE(result.err.find("--color"), std::string::npos) << result.err;
    EXPECT_TRUE(result.out.empty()) << "no report: " << result.out;
  }
}

TEST(ReportLayout, ProbeWrapsLongValuesInTheirColumn) {
  const CommandResult narrow = RunWithColumns({"probe"}, "80");
  EXPECT_EQ(narrow.exit_code, 0) << narrow.err;
  EXPECT_LE(WidestLine(narrow.out), 80u) << narrow.out;
  // The TVM attributes go on under their value column.
  EXPECT_NE(narrow.out.find(",\n" + std::string(33, ' ') + "k"), std::string::npos) << narrow.out;
  EXPECT_GT(WidestLine(RunWithColumns({"probe"}, "").out), 120u) << "a pipe gets whole lines";
}

TEST(ReportLayout, BenchBarsFitTheLineAndNeverStartPastTheMiddle) {
  const std::vector<std::string> bench = {"bench",         "memcpy",     "--sizes",  "64KiB,1MiB",
                                          "--direction",   "h2d",        "--budget", "0.01",
                                          "--no-progress", "--no-verify"};
  const CommandResult narrow = RunWithColumns(bench, "80");
  EXPECT_EQ(narrow.exit_code, 0) << narrow.err;
  EXPECT_LE(WidestLine(narrow.out), 80u) << narrow.out;
  for (const std::string& line : LinesOf(narrow.out)) {
    const size_t bar = line.find("█");
    if (bar == std::string::npos) continue;
    EXPECT_LE(Columns(line.substr(0, bar)), 40u) << "a bar starts past the middle: " << line;
  }
  EXPECT_NE(narrow.out.find("    1 MiB  █"), std::string::npos)
      << "the bars go under the numbers: " << narrow.out;

  const CommandResult piped = RunWithColumns(bench, "");
  EXPECT_EQ(piped.out.find("    1 MiB  █"), std::string::npos)
      << "a pipe keeps the bars beside the numbers: " << piped.out;
  EXPECT_NE(RunWithColumns(bench, "200").out.find("    1 MiB  "), std::string::npos);
}

}  // namespace
}  // namespace sectl
