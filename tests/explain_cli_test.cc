// `sectl explain`: each check's explanation from its declaration, as text
// for people and JSON for scripts; the README's table of checks, generated
// from the same declarations and kept in step with them; and every
// registered check documented, its proving faults real faulty plugins.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sectl_process.h"

namespace sectl::testing {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  return lines;
}

// Columns on a terminal: UTF-8 characters, not bytes ("×", "§").
size_t Columns(const std::string& line) {
  return static_cast<size_t>(std::count_if(line.begin(), line.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

nlohmann::json RunJson(const std::vector<std::string>& arguments) {
  const CommandResult result = RunSectl(arguments);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return nlohmann::json::parse(result.out);
}

// Every registered check, in every profile, as `sectl explain '*'` explains it.
nlohmann::json EveryCheckExplained() { return RunJson({"explain", "*", "--format", "json"}); }

// The ids `sectl conform --list` gives for `profile`: the runner's catalogue.
std::vector<std::string> ListedIds(const std::string& profile) {
  std::vector<std::string> ids;
  for (const auto& check :
       RunJson({"conform", "--list", "--format", "json", "--profile", profile})) {
    ids.push_back(check["id"].get<std::string>());
  }
  return ids;
}

void ExpectOneLineUsageError(const CommandResult& result, const std::string& expected) {
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_TRUE(result.out.empty()) << result.out;
  EXPECT_EQ(result.err.rfind("sectl: error: ", 0), 0U) << result.err;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  EXPECT_TRUE(Contains(result.err, expected)) << "no '" << expected << "' in " << result.err;
}

TEST(ExplainCli, AKnownIdIsExplainedForPeople) {
  const CommandResult result = RunSectl({"explain", "memcpy.dtoh"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  for (const char* part :
       {"memcpy.dtoh\n", "Severity      required\n", "Profile       tensorflow\n",
        "Tests         SP_StreamExecutor.memcpy_dtoh\n", "Declared in   checks/memcpy_checks.cc:",
        "What it establishes\n", "Why this severity\n  TensorFlow 2.5 and later",
        "Common mistakes\n", "How to fix\n", "CORRUPT_DTOH"}) {
    EXPECT_TRUE(Contains(result.out, part)) << "no '" << part << "' in\n" << result.out;
  }
  // Code marks are for Markdown; the path is relative to the source tree.
  EXPECT_FALSE(Contains(result.out, "`")) << result.out;
  EXPECT_FALSE(Contains(result.out, "Declared in   /")) << result.out;
}

TEST(ExplainCli, TextWrapsAt80Columns) {
  const CommandResult result = RunSectl({"explain", "*"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  for (const std::string& line : Lines(result.out)) {
    EXPECT_LE(Columns(line), 80U) << line;
  }
  const CommandResult list = RunSectl({"explain"});
  for (const std::string& line : Lines(list.out)) EXPECT_LE(Columns(line), 80U) << line;
}

TEST(ExplainCli, AKnownIdIsExplainedForScripts) {
  const auto explained = RunJson({"explain", "memcpy.dtoh", "--format", "json"});
  ASSERT_EQ(explained.size(), 1U) << explained.dump(2);
  const auto& check = explained[0];
  EXPECT_EQ(check["id"], "memcpy.dtoh");
  EXPECT_EQ(check["severity"], "required");
  EXPECT_TRUE(check["required_through"].is_null());
  EXPECT_EQ(check["profiles"], nlohmann::json::array({"tensorflow"}));
  EXPECT_EQ(check["tests"], nlohmann::json::array({"SP_StreamExecutor.memcpy_dtoh"}));
  EXPECT_EQ(check["source"].get<std::string>().rfind("checks/memcpy_checks.cc:", 0), 0U)
      << check["source"];
  for (const char* field :
       {"title", "establishes", "severity_reason", "common_mistakes", "how_to_fix"}) {
    EXPECT_FALSE(check[field].get<std::string>().empty()) << field;
  }
  EXPECT_TRUE(Contains(check["proven_by"].get<std::string>(), "`CORRUPT_DTOH`"));
}

TEST(ExplainCli, ARequiredThroughGenerationIsShown) {
  const auto explained = RunJson({"explain", "timer.nanoseconds_unit", "--format", "json"});
  ASSERT_EQ(explained.size(), 1U);
  EXPECT_EQ(explained[0]["required_through"], "2.10");
  const CommandResult text = RunSectl({"explain", "timer.nanoseconds_unit"});
  EXPECT_TRUE(Contains(text.out, "Severity      required through 2.10\n")) << text.out;
}

TEST(ExplainCli, AnUnknownIdIsAUsageErrorNamingTheNearestIds) {
  ExpectOneLineUsageError(RunSectl({"explain", "memcpy.htdo"}),
                          "no check is called 'memcpy.htdo'; did you mean 'memcpy.htod'");
  // Nothing is printed for the ids that were right, either.
  ExpectOneLineUsageError(RunSectl({"explain", "memcpy.dtoh", "memcpy"}), "'memcpy.*'");
  ExpectOneLineUsageError(RunSectl({"explain", "nosuch.*"}), "'nosuch.*' matches no check");
  ExpectOneLineUsageError(RunSectl({"explain", "memcpy.dtoh", "--profile", "tvm-c-device"}),
                          "no check of the tvm-c-device profile is called 'memcpy.dtoh'");
}

TEST(ExplainCli, AGlobExplainsEachMatch) {
  const auto explained = RunJson({"explain", "memcpy.*", "--format", "json"});
  std::vector<std::string> ids;
  for (const auto& check : explained) ids.push_back(check["id"].get<std::string>());
  std::vector<std::string> expected;
  for (const auto& id : ListedIds("tensorflow")) {
    if (id.rfind("memcpy.", 0) == 0) expected.push_back(id);
  }
  EXPECT_EQ(ids, expected);
  EXPECT_GE(ids.size(), 7U);
  const CommandResult text = RunSectl({"explain", "memcpy.*"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (const auto& id : expected) EXPECT_TRUE(Contains(text.out, id + "\n")) << id;
}

TEST(ExplainCli, NoIdListsEveryCheckWithItsTitle) {
  const auto listed = RunJson({"explain", "--format", "json"});
  const CommandResult text = RunSectl({"explain"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  size_t expected = 0;
  for (const std::string profile : {"tensorflow", "tvm-c-device", "tvm-device-api"}) {
    const auto ids = ListedIds(profile);
    expected += ids.size();
    EXPECT_TRUE(Contains(text.out, "Profile " + profile + " (")) << text.out;
    for (const auto& id : ids) EXPECT_TRUE(Contains(text.out, "  " + id + " ")) << id;
  }
  EXPECT_EQ(listed.size(), expected);
  for (const auto& check : listed) EXPECT_FALSE(check["title"].get<std::string>().empty());
  // --profile lists that profile's checks alone.
  const auto tvm = RunJson({"explain", "--profile", "tvm-c-device", "--format", "json"});
  EXPECT_EQ(tvm.size(), ListedIds("tvm-c-device").size());
}

TEST(ExplainCli, HelpExplainShowsItsOptions) {
  const CommandResult result = RunSectl({"help", "explain"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(Contains(result.out, "Usage: sectl explain")) << result.out;
  EXPECT_TRUE(Contains(result.out, "--markdown")) << result.out;
  ExpectOneLineUsageError(RunSectl({"explain", "--markdown", "--format", "json"}), "--markdown");
}

TEST(ExplainCli, MarkdownIsTheTableOfTheProfilesChecks) {
  const CommandResult result = RunSectl({"explain", "--markdown"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto lines = Lines(result.out);
  const auto ids = ListedIds("tensorflow");
  ASSERT_EQ(lines.size(), ids.size() + 2) << result.out;
  EXPECT_EQ(lines[0],
            "| check | severity | establishes | why this severity | the fault that proves it |");
  EXPECT_EQ(lines[1], "|---|---|---|---|---|");
  for (size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(lines[i + 2].rfind("| `" + ids[i] + "` | ", 0), 0U) << lines[i + 2];
    // Five cells: a `|` inside the text would add one.
    EXPECT_EQ(std::count(lines[i + 2].begin(), lines[i + 2].end(), '|') -
                  static_cast<long>(std::count(lines[i + 2].begin(), lines[i + 2].end(), '\\')),
              6)
        << lines[i + 2];
  }
  const CommandResult tvm = RunSectl({"explain", "--markdown", "--profile", "tvm-c-device"});
  EXPECT_EQ(Lines(tvm.out).size(), ListedIds("tvm-c-device").size() + 2) << tvm.out;
}

TEST(ExplainCli, TheReadmesTableIsTheGeneratedOne) {
  constexpr std::string_view kBegin = "<!-- generated by: sectl explain --markdown -->\n";
  constexpr std::string_view kEnd = "<!-- end of generated table -->";
  std::ifstream file(SECTL_README);
  ASSERT_TRUE(file) << SECTL_README;
  std::stringstream readme;
  readme << file.rdbuf();
  const std::string text = readme.str();
  const size_t begin = text.find(kBegin);
  ASSERT_NE(begin, std::string::npos) << "README.md lacks the marker " << kBegin;
  const size_t end = text.find(kEnd, begin);
  ASSERT_NE(end, std::string::npos) << "README.md lacks the marker " << kEnd;
  const std::string in_readme = text.substr(begin + kBegin.size(), end - begin - kBegin.size());
  const CommandResult generated = RunSectl({"explain", "--markdown"});
  ASSERT_EQ(generated.exit_code, 0) << generated.err;
  if (in_readme == generated.out) return;
  // The first line that differs, rather than two pages of table.
  const auto readme_lines = Lines(in_readme);
  const auto generated_lines = Lines(generated.out);
  size_t line = 0;
  while (line < readme_lines.size() && line < generated_lines.size() &&
         readme_lines[line] == generated_lines[line]) {
    ++line;
  }
  const auto at = [line](const std::vector<std::string>& lines) {
    return line < lines.size() ? lines[line] : std::string("(no such line)");
  };
  ADD_FAILURE() << "README.md's table of checks differs from what the checks' declarations say, "
                   "first at line "
                << line + 1 << " of the table:\n  README.md:  " << at(readme_lines)
                << "\n  generated:  " << at(generated_lines)
                << "\nRegenerate it from the top of the source tree:\n"
                   "  build/bin/sectl explain --markdown > /tmp/checks.md && awk -v "
                   "table=/tmp/checks.md '/^<!-- generated by: sectl explain --markdown -->$/ "
                   "{print; while ((getline line < table) > 0) print line; skip = 1; next} "
                   "/^<!-- end of generated table -->$/ {skip = 0} !skip' README.md > "
                   "/tmp/README.md && mv /tmp/README.md README.md";
}

TEST(ExplainCli, EveryRegisteredCheckIsDocumented) {
  const auto explained = EveryCheckExplained();
  size_t registered = 0;
  for (const std::string profile : {"tensorflow", "tvm-c-device", "tvm-device-api"}) {
    registered += ListedIds(profile).size();
  }
  EXPECT_EQ(explained.size(), registered);
  for (const auto& check : explained) {
    for (const char* field : {"establishes", "common_mistakes", "how_to_fix"}) {
      EXPECT_FALSE(check[field].get<std::string>().empty())
          << check["id"].get<std::string>() << " declares no ." << field << " ("
          << check["source"].get<std::string>() << ")";
    }
  }
}

// The names of faulty plugins in `proven_by` ("`CORRUPT_DTOH`",
// "`FAULT_ALIGNMENT_ONLY_64`"), without the FAULT_ prefix.
std::vector<std::string> FaultsNamed(const std::string& proven_by) {
  static const std::regex kFaultName("`(?:FAULT_)?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`");
  std::vector<std::string> faults;
  for (auto match = std::sregex_iterator(proven_by.begin(), proven_by.end(), kFaultName);
       match != std::sregex_iterator(); ++match) {
    faults.push_back((*match)[1].str());
  }
  return faults;
}

// Every fault named in the CMake files that build the faulty plugins.
std::string FaultyPluginBuildFiles() {
  std::string text;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(
           std::filesystem::path(SECTL_SOURCE_DIR) / "reference_plugins")) {
    const auto name = entry.path().filename().string();
    if (name != "CMakeLists.txt" && entry.path().extension() != ".cmake") continue;
    std::ifstream file(entry.path());
    std::stringstream content;
    content << file.rdbuf();
    text += content.str();
  }
  return text;
}

TEST(ExplainCli, EveryProvingFaultIsARealFaultyPlugin) {
  const std::string build_files = FaultyPluginBuildFiles();
  ASSERT_FALSE(build_files.empty());
  for (const auto& check : EveryCheckExplained()) {
    for (const auto& fault : FaultsNamed(check["proven_by"].get<std::string>())) {
      EXPECT_TRUE(std::regex_search(build_files, std::regex("\\b" + fault + "\\b")))
          << check["id"].get<std::string>() << " is proven by " << fault
          << ", which no CMake file under reference_plugins/ builds";
    }
  }
  // The check of the checker: a fault the tests know.
  EXPECT_EQ(FaultsNamed("`CORRUPT_DTOH`, `FAULT_X_Y` (crash)"),
            (std::vector<std::string>{"CORRUPT_DTOH", "X_Y"}));
}

}  // namespace
}  // namespace sectl::testing
