// What a plugin hands sectl, from hostile plugins (issue 13), end to end
// through the executable: device counts of 0, -3 and INT_MAX; names, error
// messages and output that are not UTF-8 and carry terminal escapes; and a
// plugin that overwrites every shared mapping of its process (where sectl
// keeps the call journal) before it crashes. Whatever the plugin says, sectl
// writes a complete report in every format that a parser accepts, blames the
// plugin for what it did, and keeps the checks beside it untouched.
// The plugins are reference_plugins/hostile/hostile_input_*.c.
#include <gtest/gtest.h>
#include <unistd.h>

#include <climits>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "sectl_process.h"

namespace sectl {
namespace {

using nlohmann::json;
using testing::CommandResult;
using testing::RunSectl;

// Why sectl skips a check that needs a device when the plugin has none
// (conform/check_context.h).
constexpr std::string_view kNoDevicesReason = "the plugin reports no devices";
// U+FFFD, what an encoder writes in place of bytes that are not UTF-8.
constexpr std::string_view kReplacementCharacter = "\xef\xbf\xbd";

std::string HostilePlugin(const std::string& name) {
  return std::string(SECTL_HOSTILE_PLUGIN_DIR) + "/" + name + ".so";
}

bool Contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// The length of the well-formed UTF-8 sequence at text[at] (no overlong
// forms, no surrogates, nothing past U+10FFFF), or 0 when there is none.
size_t Utf8SequenceAt(std::string_view text, size_t at) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  if (lead < 0x80) return 1;
  size_t length = 0;
  unsigned char low = 0x80;  // the range of the second byte, from the Unicode standard's table 3-7
  unsigned char high = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead == 0xe0) low = 0xa0;
    if (lead == 0xed) high = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead == 0xf0) low = 0x90;
    if (lead == 0xf4) high = 0x8f;
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  if (byte(at + 1) < low || byte(at + 1) > high) return 0;
  for (size_t i = 2; i < length; ++i) {
    if (byte(at + i) < 0x80 || byte(at + i) > 0xbf) return 0;
  }
  return length;
}

// Text that is safe to show and to hand to any parser: well-formed UTF-8,
// and no control byte a terminal acts on (only tab, newline and carriage
// return; no NUL, no ESC, no DEL).
::testing::AssertionResult IsSafeText(std::string_view what, std::string_view text) {
  for (size_t at = 0; at < text.size();) {
    const auto byte = static_cast<unsigned char>(text[at]);
    const bool control =
        (byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r') || byte == 0x7f;
    const size_t length = control ? 0 : Utf8SequenceAt(text, at);
    if (length == 0) {
      const size_t from = at < 40 ? 0 : at - 40;
      return ::testing::AssertionFailure()
             << what << ": byte 0x" << std::hex << static_cast<int>(byte) << std::dec
             << " at offset " << at << (control ? " is a control byte" : " is not UTF-8")
             << ", after: " << ::testing::PrintToString(std::string(text.substr(from, at - from)));
    }
    at += length;
  }
  return ::testing::AssertionSuccess();
}

// `text` as JSON; nlohmann's parser refuses what is not UTF-8.
json ParseJson(std::string_view what, const std::string& text) {
  try {
    return json::parse(text);
  } catch (const json::exception& error) {
    ADD_FAILURE() << what << " is not JSON: " << error.what() << "\n" << text.substr(0, 2000);
    return json::object();
  }
}

// A JUnit report an XML parser accepts, safe text throughout; returns its
// <testcase> elements (-1 when it is not XML).
int JUnitTestCases(std::string_view what, const std::string& text) {
  EXPECT_TRUE(IsSafeText(what, text));
  pugi::xml_document document;
  const pugi::xml_parse_result parsed = document.load_string(text.c_str());
  if (!parsed) {
    ADD_FAILURE() << what << " is not XML: " << parsed.description() << " at offset "
                  << parsed.offset << "\n"
                  << text.substr(0, 2000);
    return -1;
  }
  EXPECT_STREQ(document.document_element().name(), "testsuites") << what;
  int cases = 0;
  for (pugi::xpath_node found : document.select_nodes("//testcase")) {
    (void)found;
    ++cases;
  }
  return cases;
}

// Each result of a conform report by check id.
std::map<std::string, json> ResultsById(const json& report) {
  std::map<std::string, json> results;
  if (!report.contains("results")) return results;
  for (const json& result : report["results"]) results[result.value("id", "")] = result;
  return results;
}

// The ids of the checks with `status`.
std::set<std::string> WithStatus(const json& report, std::string_view status) {
  std::set<std::string> ids;
  for (const auto& [id, result] : ResultsById(report)) {
    if (result.value("status", "") == status) ids.insert(id);
  }
  return ids;
}

// How many checks `conform --list` selects for `plugin`.
size_t ListedChecks(const std::string& plugin) {
  const CommandResult listed = RunSectl({"conform", "--list", "--format", "json", plugin});
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  const json checks = ParseJson("conform --list", listed.out);
  return checks.is_array() ? checks.size() : 0;
}

// Each test writes its reports in a directory of its own, gone afterwards.
class HostileInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = std::filesystem::temp_directory_path() /
                 ("sectl_hostile_input_test_" + std::to_string(::getpid()) + "_" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  std::string PathOf(const std::string& name) const { return (directory_ / name).string(); }
  static std::string Read(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(file), {}};
  }

  // clang-tidy reads nlohmann::json's noexcept move, which checks its
  // invariants, as one that may throw.
  struct ConformRun {  // NOLINT(bugprone-exception-escape)
    CommandResult command;
    json report;
    std::string junit;
  };

  // `sectl conform PLUGIN --report json --junit FILE ARGUMENTS...`, its
  // stdout and JUnit file checked to be safe text and parsed.
  ConformRun Conform(const std::string& plugin, const std::vector<std::string>& arguments = {}) {
    const std::string junit_path = PathOf("report.xml");
    std::vector<std::string> words{"conform", HostilePlugin(plugin), "--report", "json", "--junit",
                                   junit_path};
    words.insert(words.end(), arguments.begin(), arguments.end());
    ConformRun run;
    run.command = RunSectl(words);
    EXPECT_TRUE(IsSafeText(plugin + " JSON report", run.command.out));
    run.report = ParseJson(plugin + " JSON report", run.command.out);
    EXPECT_TRUE(std::filesystem::exists(junit_path)) << plugin << ": no JUnit report written";
    run.junit = Read(junit_path);
    const int cases = JUnitTestCases(plugin + " JUnit report", run.junit);
    EXPECT_EQ(cases, static_cast<int>(ResultsById(run.report).size())) << plugin;
    return run;
  }

  std::filesystem::path directory_;
};

// ---- Device counts ---------------------------------------------------------

// A plugin that reports `count` (0 or less) devices gets the whole suite in
// its report, exit status 1: the checks that need a device skip saying so,
// the platform's checks run, and only the device count fails.
void ExpectFullReportWithoutDevices(const std::string& plugin, const json& report, int exit_code,
                                    const std::string& count) {
  EXPECT_EQ(exit_code, 1) << plugin;
  EXPECT_TRUE(report.value("load_error", json()).is_null()) << report.value("load_error", json());
  const auto results = ResultsById(report);
  EXPECT_EQ(results.size(), ListedChecks(HostilePlugin(plugin))) << "not the whole suite";
  // The report says how many devices the plugin reported, as reported.
  EXPECT_EQ(report["plugin"].value("device_count", json()), json(std::stoi(count)))
      << report["plugin"].dump();

  // The count itself is the defect; nothing else failed, crashed or was
  // sectl's error.
  EXPECT_EQ(WithStatus(report, "fail"),
            (std::set<std::string>{"device.count", "registration.init"}));
  for (const auto& [id, result] : results) {
    EXPECT_TRUE(result["status"] == "pass" || result["status"] == "skip" ||
                result["status"] == "fail")
        << plugin << ": " << result.dump(2);
  }
  ASSERT_EQ(results.count("device.count"), 1u);
  EXPECT_TRUE(Contains(results.at("device.count")["message"].get<std::string>(),
                       "reports " + count + " devices"))
      << results.at("device.count")["message"];

  // Every area of device work skips with the reason (one check each, and
  // the lifecycle checks that create devices themselves).
  for (const std::string id :
       {"callback.enqueued", "concurrency.streams_in_parallel", "event.status_values",
        "fill.memset", "lifecycle.recreate", "lifecycle.no_growth", "memcpy.htod",
        "memory.allocate", "stream.in_order"}) {
    ASSERT_EQ(results.count(id), 1u) << id;
    EXPECT_EQ(results.at(id)["status"], "skip") << id;
    EXPECT_EQ(results.at(id)["message"], kNoDevicesReason) << id;
  }
  // What needs only the platform still ran.
  for (const std::string id : {"registration.status", "registration.version_fields",
                               "struct_size.vintage", "struct_size.zero"}) {
    ASSERT_EQ(results.count(id), 1u) << id;
    EXPECT_EQ(results.at(id)["status"], "pass") << id << ": " << results.at(id).dump(2);
  }
}

TEST_F(HostileInputTest, ZeroDevicesGetAFullConformReportThatSaysSo) {
  const ConformRun run = Conform("hostile_input_zero_devices");
  ExpectFullReportWithoutDevices("hostile_input_zero_devices", run.report, run.command.exit_code,
                                 "0");
  EXPECT_TRUE(Contains(run.junit, std::string(kNoDevicesReason)));
}

TEST_F(HostileInputTest, NegativeDeviceCountFailsDeviceCountInAFullReport) {
  const ConformRun run = Conform("hostile_input_negative_devices");
  ExpectFullReportWithoutDevices("hostile_input_negative_devices", run.report,
                                 run.command.exit_code, "-3");
}

TEST_F(HostileInputTest, ImplausibleDeviceCountIsCappedInConform) {
  // INT_MAX devices, each of which can be created: nothing is sized by the
  // count (no std::bad_alloc, no error of sectl's), and the plugin is judged
  // on what it does.
  const ConformRun run = Conform("hostile_input_many_devices", {"--no-throughput"});
  EXPECT_TRUE(run.command.exit_code == 0 || run.command.exit_code == 1) << run.command.err;
  EXPECT_EQ(ResultsById(run.report).size(),
            ListedChecks(HostilePlugin("hostile_input_many_devices")));
  EXPECT_EQ(run.report["plugin"].value("device_count", json()), json(INT_MAX));
  for (const auto& [id, result] : ResultsById(run.report)) {
    EXPECT_TRUE(result["status"] == "pass" || result["status"] == "skip")
        << id << ": " << result.dump(2);
    EXPECT_FALSE(Contains(result.dump(), "bad_alloc")) << id;
  }
}

TEST(HostileInput, ProbeWithoutDevicesWritesAFullReportWithAFinding) {
  struct Case {
    std::string plugin;
    int device_count;
    std::string finding;
    std::string severity;
    int exit_code;
  };
  for (const Case& expected :
       {Case{"hostile_input_zero_devices", 0, "platform.device_count.none", "warning", 0},
        Case{"hostile_input_negative_devices", -3, "platform.device_count.negative", "error", 1}}) {
    const CommandResult probed =
        RunSectl({"probe", HostilePlugin(expected.plugin), "--format", "json"});
    EXPECT_EQ(probed.exit_code, expected.exit_code) << expected.plugin << probed.err;
    const json report = ParseJson(expected.plugin + " probe", probed.out);
    EXPECT_EQ(report.value("device_count", 1000), expected.device_count) << expected.plugin;
    EXPECT_TRUE(report.value("devices", json::array()).empty()) << expected.plugin;
    EXPECT_EQ(report["platform"].value("name", ""), "SECTL_MINIMAL") << expected.plugin;
    bool found = false;
    for (const json& finding : report.value("findings", json::array())) {
      if (finding.value("id", "") != expected.finding) continue;
      found = true;
      EXPECT_EQ(finding.value("severity", ""), expected.severity);
    }
    EXPECT_TRUE(found) << expected.plugin << ": no " << expected.finding << " in "
                       << report.value("findings", json::array()).dump(2);
  }
}

TEST(HostileInput, ProbeCapsAnImplausibleDeviceCount) {
  const CommandResult probed =
      RunSectl({"probe", HostilePlugin("hostile_input_many_devices"), "--format", "json"});
  EXPECT_EQ(probed.exit_code, 0) << probed.err;
  const json report = ParseJson("probe", probed.out);
  EXPECT_EQ(report.value("device_count", 0), 2147483647);
  const size_t probed_devices = report.value("devices", json::array()).size();
  EXPECT_GE(probed_devices, 1u);
  EXPECT_LE(probed_devices, 64u);
  EXPECT_TRUE(Contains(report.value("findings", json::array()).dump(),
                       "platform.device_count.implausible"));
}

TEST(HostileInput, BenchRefusesAPluginWithoutDevicesCleanly) {
  for (const std::string plugin :
       {"hostile_input_zero_devices", "hostile_input_negative_devices"}) {
    for (const std::string bench : {"memcpy", "latency"}) {
      const CommandResult run =
          RunSectl({"bench", bench, HostilePlugin(plugin), "--report", "json"});
      // The plugin's problem (exit status 1), said in one line; no report.
      EXPECT_EQ(run.exit_code, 1) << plugin << " " << bench << ": " << run.err;
      EXPECT_TRUE(Contains(run.err, std::string(kNoDevicesReason))) << run.err;
      EXPECT_TRUE(run.out.empty()) << run.out;
    }
  }
}

TEST(HostileInput, BenchMeasuresDeviceZeroOfAnImplausibleCount) {
  const CommandResult run =
      RunSectl({"bench", "memcpy", HostilePlugin("hostile_input_many_devices"), "--sizes", "4KiB",
                "--direction", "h2d", "--budget", "0.01", "--report", "json"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const json report = ParseJson("bench report", run.out);
  EXPECT_EQ(report["plugin"].value("device_ordinal", -1), 0) << run.out;
  ASSERT_EQ(report.value("results", json::array()).size(), 1u) << run.out;
  EXPECT_EQ(report["results"][0].value("verification", ""), "passed") << run.out;
}

// ---- Text that is not UTF-8 ----------------------------------------------

constexpr char kInvalidUtf8[] = "hostile_input_invalid_utf8";

TEST_F(HostileInputTest, InvalidUtf8GivesValidJsonAndJUnitFromConform) {
  const ConformRun run = Conform(kInvalidUtf8);
  EXPECT_EQ(run.command.exit_code, 1) << run.command.err;
  EXPECT_TRUE(IsSafeText("conform stderr", run.command.err));
  // Blamed for what it did wrong only: a platform name TensorFlow refuses,
  // and the call that fails; its text crashed nothing and no encoder threw.
  EXPECT_EQ(WithStatus(run.report, "fail"),
            (std::set<std::string>{"registration.init", "stream.synchronize_all_activity"}));
  for (const auto& [id, result] : ResultsById(run.report)) {
    EXPECT_TRUE(result["status"] == "pass" || result["status"] == "skip" ||
                result["status"] == "fail")
        << id << ": " << result.dump(2);
  }
  const auto results = ResultsById(run.report);
  ASSERT_EQ(results.count("registration.init"), 1u);
  const std::string name_message = results.at("registration.init")["message"];
  EXPECT_TRUE(Contains(name_message, "SECTL_")) << name_message;
  EXPECT_TRUE(Contains(name_message, kReplacementCharacter)) << name_message;
  // The plugin's output (with NUL bytes) is in the log, made safe.
  bool output_kept = false;
  for (const auto& [id, result] : results) {
    output_kept = output_kept || Contains(result.value("log", ""), "after NUL");
  }
  EXPECT_TRUE(output_kept);
  EXPECT_TRUE(Contains(run.junit, "synchronize_all_activity failed"));

  // The saved report reads back and renders again, as a table and as JUnit.
  const std::string saved = PathOf("saved.json");
  std::ofstream(saved, std::ios::binary) << run.command.out;
  const CommandResult table = RunSectl({"report", saved});
  EXPECT_EQ(table.exit_code, 1) << table.err;
  EXPECT_TRUE(IsSafeText("sectl report table", table.out));
  const CommandResult junit = RunSectl({"report", saved, "--report", "junit"});
  EXPECT_EQ(junit.exit_code, 1) << junit.err;
  EXPECT_EQ(JUnitTestCases("sectl report junit", junit.out), static_cast<int>(results.size()));
}

TEST(HostileInput, InvalidUtf8GivesASafeConformTable) {
  const CommandResult run = RunSectl({"conform", HostilePlugin(kInvalidUtf8), "--verbose"});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_TRUE(IsSafeText("conform table", run.out));
  EXPECT_TRUE(IsSafeText("conform stderr", run.err));
  EXPECT_TRUE(Contains(run.out, "NOT CONFORMANT")) << run.out;
}

// ---- A 10 MB message that reorders text -------------------------------

constexpr char kLongMessage[] = "hostile_input_long_message";

TEST_F(HostileInputTest, ALongMessageIsCutAndItsLayoutCharactersWrittenOut) {
  const ConformRun run = Conform(kLongMessage, {"--filter", "stream.synchronize_all_activity"});
  EXPECT_EQ(run.command.exit_code, 1) << run.command.err;
  // The report stays small however long the message, and says it was cut.
  EXPECT_LT(run.command.out.size(), size_t{200'000});
  EXPECT_LT(run.junit.size(), size_t{200'000});
  const auto results = ResultsById(run.report);
  ASSERT_EQ(results.count("stream.synchronize_all_activity"), 1u) << run.command.out;
  const std::string message = results.at("stream.synchronize_all_activity")["message"];
  EXPECT_TRUE(Contains(message, "bytes in all; cut at 4096")) << message.substr(0, 300);

  // The table a person reads: no override, separator or escape survives.
  const CommandResult table = RunSectl(
      {"conform", HostilePlugin(kLongMessage), "--filter", "stream.synchronize_all_activity"});
  EXPECT_EQ(table.exit_code, 1) << table.err;
  EXPECT_TRUE(IsSafeText("conform table", table.out));
  for (const char* raw : {"\u202e", "\u2066", "\u2069", "\u2028", "\u2029"}) {
    EXPECT_FALSE(Contains(table.out, raw)) << "a raw layout character in the table";
  }
  EXPECT_TRUE(Contains(table.out, "PASS\\u{202e}LIAF")) << table.out.substr(0, 2000);
}

// A conform report handed to sectl report is anyone's file: one edited to
// carry a 2 MB message, log and detail (with a right-to-left override) is
// read with each string cut at 64 KiB and a note, so no format of the merged
// report grows with it (a 10 MB message made a 25-34 MB report).
TEST_F(HostileInputTest, ACraftedReportsLongTextIsCutBySectlReport) {
  const ConformRun run = Conform(kLongMessage, {"--filter", "stream.synchronize_all_activity"});
  nlohmann::json report = run.report;
  ASSERT_TRUE(report.contains("results") && !report["results"].empty()) << run.command.out;
  const std::string huge = "\u202e" + std::string(2'000'000, 'm');
  nlohmann::json& first = report["results"][0];
  first["message"] = huge;
  first["log"] = huge;
  first["details"]["note"] = huge;
  const std::string edited = PathOf("edited.json");
  std::ofstream(edited, std::ios::binary) << report.dump();
  for (const char* format : {"table", "json", "junit"}) {
    SCOPED_TRACE(format);
    const CommandResult merged = RunSectl({"report", edited, "--report", format});
    EXPECT_EQ(merged.exit_code, 1) << merged.err;
    EXPECT_LT(merged.out.size(), size_t{500'000});
    EXPECT_TRUE(Contains(merged.out, "(2000003 bytes in all; cut at 65")) << merged.out.size();
    // JSON keeps the plugin's characters as data; what a person reads
    // writes them out.
    if (std::string_view(format) != "json") {
      EXPECT_FALSE(Contains(merged.out, "\u202e")) << "a raw override";
    }
  }
}

TEST(HostileInput, InvalidUtf8GivesValidProbeReports) {
  const CommandResult as_json =
      RunSectl({"probe", HostilePlugin(kInvalidUtf8), "--format", "json"});
  // TensorFlow refuses the platform name: exit status 1, with the report.
  EXPECT_EQ(as_json.exit_code, 1) << as_json.err;
  EXPECT_TRUE(IsSafeText("probe JSON", as_json.out));
  const json report = ParseJson("probe JSON", as_json.out);
  EXPECT_TRUE(Contains(report["platform"].value("name", ""), kReplacementCharacter))
      << report["platform"];
  EXPECT_TRUE(Contains(report.value("findings", json::array()).dump(), "platform.name.invalid"));
  EXPECT_TRUE(Contains(report.value("plugin_output", ""), "after NUL"));

  const CommandResult table = RunSectl({"probe", HostilePlugin(kInvalidUtf8)});
  EXPECT_EQ(table.exit_code, 1) << table.err;
  EXPECT_TRUE(IsSafeText("probe table", table.out));
  EXPECT_TRUE(IsSafeText("probe stderr", table.err));
}

TEST(HostileInput, InvalidUtf8GivesValidBenchReports) {
  for (const std::string format : {"json", "table", "csv"}) {
    const CommandResult run =
        RunSectl({"bench", "memcpy", HostilePlugin(kInvalidUtf8), "--sizes", "4KiB", "--direction",
                  "h2d", "--budget", "0.01", "--report", format});
    EXPECT_EQ(run.exit_code, 0) << format << ": " << run.err;
    EXPECT_TRUE(IsSafeText("bench " + format, run.out));
    if (format == "json") (void)ParseJson("bench JSON", run.out);
  }
}

// ---- The journal overwritten ----------------------------------------------

constexpr char kScribbler[] = "hostile_input_journal_scribble";

// Whether every line of a result's journal is one sectl wrote for a call
// ("#N Struct.function(...)") or its note that the entry was overwritten:
// nothing forged is taken for structure, nothing of sectl's memory shown.
::testing::AssertionResult JournalLinesAreSectls(const json& result) {
  for (const json& line : result.value("journal", json::array())) {
    const std::string text = line.is_string() ? line.get<std::string>() : line.dump();
    if (text.rfind('#', 0) == 0 || Contains(text, "overwrote")) continue;
    return ::testing::AssertionFailure() << "journal line " << text;
  }
  return ::testing::AssertionSuccess();
}

// ---- The plugin file ---------------------------------------------------------

// The plugin touches its own file while the preflight registers it. Every
// check's load then refuses the file, which is no longer the one hashed:
// each is sectl's `error` (exit 2, the verdict inconclusive), never a
// failure of a plugin that was never tested, and the report stays whole.
TEST_F(HostileInputTest, APluginFileChangedDuringTheRunMakesEveryCheckAnError) {
  // A copy: the act changes the file, which other tests load too.
  const std::string plugin = PathOf("hostile_input_rewrites_itself.so");
  std::filesystem::copy_file(HostilePlugin("hostile_input_rewrites_itself"), plugin);
  const CommandResult command = RunSectl(
      {"conform", plugin, "--report", "json", "--junit", PathOf("report.xml"), "--no-throughput",
       // The plugin's process may write its own file: else, as nobody, it could not.
       "--plugin-writes", plugin});
  EXPECT_EQ(command.exit_code, 2) << command.err;
  const json report = ParseJson("the report", command.out);
  const auto results = ResultsById(report);
  EXPECT_EQ(results.size(), ListedChecks(plugin)) << "not the whole suite";
  for (const auto& [id, result] : results) {
    // The checks of modules the file does not export skip before anything
    // loads it, read from the file the report's SHA-256 names: true of it.
    if (Contains(result.value("message", ""), "the plugin exports no TF_Init")) {
      EXPECT_EQ(result["status"], "skip") << id << ": " << result.dump(2);
      continue;
    }
    EXPECT_EQ(result["status"], "error") << id << ": " << result.dump(2);
    EXPECT_TRUE(Contains(result.value("message", ""), "the plugin file changed during the run"))
        << id << ": " << result.value("message", "");
  }
  EXPECT_TRUE(std::filesystem::exists(PathOf("report.xml"))) << "no JUnit report written";
  const CommandResult table =
      RunSectl({"conform", plugin, "--no-throughput", "--plugin-writes", plugin});
  EXPECT_TRUE(Contains(table.out, "INCONCLUSIVE")) << table.out;
  EXPECT_FALSE(Contains(table.out, "— conformant")) << table.out;
}

TEST_F(HostileInputTest, OverwrittenJournalIsACrashOfThePlugin) {
  const ConformRun run = Conform(kScribbler, {"-j", "1", "--no-throughput"});
  // sectl itself neither crashed nor failed: the report is complete.
  EXPECT_EQ(run.command.exit_code, 1) << run.command.err;
  const auto results = ResultsById(run.report);
  EXPECT_EQ(results.size(), ListedChecks(HostilePlugin(kScribbler)));
  ASSERT_EQ(results.count("fill.memset32"), 1u);
  const json& scribbled = results.at("fill.memset32");
  EXPECT_EQ(scribbled["status"], "crash") << scribbled.dump(2);
  EXPECT_TRUE(Contains(scribbled.value("message", ""), "SIGSEGV")) << scribbled.dump(2);
  EXPECT_TRUE(JournalLinesAreSectls(scribbled)) << scribbled.dump(2);
  EXPECT_LE(scribbled.value("journal", json::array()).size(), 10u);
  for (const auto& [id, result] : results) {
    if (id == "fill.memset32") continue;
    EXPECT_TRUE(result["status"] == "pass" || result["status"] == "skip")
        << id << ": " << result.dump(2);
  }
}

TEST_F(HostileInputTest, OverwrittenJournalLeavesTheCheckBesideItAlone) {
  // fill.memset is inside its (slow) memset while fill.memset32, in the
  // other job, overwrites every shared mapping its process has: the
  // sibling's journal must not be one of them.
  const ConformRun run =
      Conform(kScribbler, {"-j", "2", "--filter", "fill.memset:fill.memset32", "--no-throughput"});
  EXPECT_EQ(run.command.exit_code, 1) << run.command.err;
  const auto results = ResultsById(run.report);
  ASSERT_EQ(results.size(), 2u) << run.command.out;
  EXPECT_EQ(results.at("fill.memset32")["status"], "crash");
  const json& sibling = results.at("fill.memset");
  EXPECT_EQ(sibling["status"], "pass") << sibling.dump(2);
  EXPECT_TRUE(JournalLinesAreSectls(sibling)) << sibling.dump(2);
  EXPECT_FALSE(Contains(sibling.dump(), "overwrote")) << sibling.dump(2);
}

}  // namespace
}  // namespace sectl
