// `sectl probe` end to end: the executable run as a user runs it, its JSON
// parsed and asserted, every failure a one-line error with its exit status.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "sectl_process.h"

namespace sectl {
namespace {

using nlohmann::json;
using testing::CommandResult;
using testing::FixturePlugin;
using testing::ReferencePlugin;
using testing::RunSectl;

json ProbeJson(const std::vector<std::string>& arguments, int expected_exit = 0) {
  std::vector<std::string> command = {"probe", "--format", "json"};
  command.insert(command.end(), arguments.begin(), arguments.end());
  const CommandResult result = RunSectl(command);
  EXPECT_EQ(result.exit_code, expected_exit) << result.err;
  try {
    return json::parse(result.out);
  } catch (const json::exception& error) {
    ADD_FAILURE() << "stdout is not JSON: " << error.what() << "\n" << result.out;
    return {};
  }
}

// One line on stderr, nothing on stdout.
void ExpectOneLineError(const CommandResult& result, int exit_code, const std::string& fragment) {
  EXPECT_EQ(result.exit_code, exit_code) << result.err;
  EXPECT_TRUE(result.out.empty()) << result.out;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  EXPECT_EQ(result.err.rfind("sectl: error: ", 0), 0u) << result.err;
  EXPECT_NE(result.err.find(fragment), std::string::npos) << result.err;
}

TEST(ProbeCommand, DescribesTheBundledCpuPluginByDefault) {
  const json report = ProbeJson({});
  EXPECT_EQ(report["schema_version"], 1);
  EXPECT_EQ(report["platform"]["name"], "SECTL_CPU");
  EXPECT_EQ(report["platform"]["type"], "SECTL_CPU");
  EXPECT_EQ(report["platform"]["supports_unified_memory"], true);
  EXPECT_EQ(report["device_count"], 2);
  ASSERT_EQ(report["devices"].size(), 2u);
  for (int ordinal = 0; ordinal < 2; ++ordinal) {
    const json& device = report["devices"][ordinal];
    EXPECT_EQ(device["ordinal"], ordinal);
    EXPECT_EQ(device["hardware_name"], "sectl reference CPU device " + std::to_string(ordinal));
    EXPECT_EQ(device["vendor"], "sectl");
    EXPECT_TRUE(device["pci_bus_id"].is_null());
    EXPECT_GT(device["memory"]["total_bytes"].get<int64_t>(), 0);
    EXPECT_LE(device["memory"]["free_bytes"].get<int64_t>(),
              device["memory"]["total_bytes"].get<int64_t>());
    EXPECT_GT(device["memory_bandwidth_bytes_per_second"].get<int64_t>(), 0);
    EXPECT_TRUE(device["allocator_stats"].is_object());
  }
  EXPECT_EQ(report["plugin"]["sha256"].get<std::string>().size(), 64u);
  EXPECT_EQ(report["plugin"]["entry_symbol"], "SE_InitPlugin");
  EXPECT_NE(report["abi_vintage"].get<std::string>().find("2.10 or newer"), std::string::npos);
  EXPECT_TRUE(report["findings"].empty()) << report["findings"].dump(2);
  for (const json& callback : report["callbacks"]) EXPECT_TRUE(callback["present"]) << callback;
}

TEST(ProbeCommand, DescribesTheMinimalPlugin) {
  const json report = ProbeJson({ReferencePlugin("sectl_minimal")});
  EXPECT_EQ(report["platform"]["name"], "SECTL_MINIMAL");
  EXPECT_EQ(report["device_count"], 1);
  ASSERT_EQ(report["devices"].size(), 1u);
  EXPECT_EQ(report["devices"][0]["hardware_name"], "sectl minimal synchronous device");
  EXPECT_TRUE(report["devices"][0]["numa_node"].is_null());
  EXPECT_TRUE(report["findings"].empty()) << report["findings"].dump(2);
  int absent = 0;
  for (const json& callback : report["callbacks"]) {
    if (!callback["present"].get<bool>()) {
      ++absent;
      EXPECT_NE(callback["requirement"], "required") << callback;
    }
  }
  EXPECT_GT(absent, 0);
}

TEST(ProbeCommand, TableNamesEverySection) {
  const CommandResult result = RunSectl({"probe", ReferencePlugin("sectl_cpu")});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  for (const char* text : {"Plugin", "Platform", "SECTL_CPU", "Device 0", "Device 1", "Callbacks",
                           "TensorFlow compatibility", "Findings", "ABI vintage", "SHA-256"}) {
    EXPECT_NE(result.out.find(text), std::string::npos) << text;
  }
  EXPECT_EQ(result.out.find("\033["), std::string::npos) << "no colour when not on a terminal";
}

TEST(ProbeCommand, WritesTheReportToAFile) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("sectl_probe_" + std::to_string(::getpid()) + ".json");
  const CommandResult result = RunSectl({"probe", "--format", "json", "-o", path.string()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(result.out.empty());
  std::ifstream file(path);
  const json report = json::parse(file);
  EXPECT_EQ(report["platform"]["name"], "SECTL_CPU");
  std::filesystem::remove(path);
}

TEST(ProbeCommand, BareNameIsAFileInTheCurrentDirectory) {
  const CommandResult result =
      RunSectl({"probe", "sectl_minimal.so", "--format", "json"}, SECTL_PLUGIN_DIR);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  const CommandResult elsewhere = RunSectl({"probe", "sectl_minimal.so"}, "/");
  ExpectOneLineError(elsewhere, 2, "./sectl_minimal.so: no such file");
}

TEST(ProbeCommand, OlderPluginLayoutIsReadAndNamed) {
  const json report = ProbeJson({FixturePlugin("legacy_layout")}, 1);
  EXPECT_NE(report["abi_vintage"].get<std::string>().find("2.5-2.6"), std::string::npos);
  bool host_callback_present = false;
  for (const json& callback : report["callbacks"]) {
    if (callback["member"] == "host_callback") host_callback_present = callback["present"];
  }
  EXPECT_TRUE(host_callback_present) << "host_callback must be read at offset 256";
}

TEST(ProbeCommand, OlderHostCatchesWritesPastItsStruct) {
  // The fixture fills the 288-byte layout before rearranging it, so inside a
  // TensorFlow 2.5 host (264 bytes) it writes 24 bytes past the struct.
  const json report = ProbeJson({"--tf-version", "2.5", FixturePlugin("legacy_layout")}, 1);
  std::set<std::string> ids;
  for (const json& finding : report["findings"]) ids.insert(finding["id"].get<std::string>());
  EXPECT_TRUE(ids.count("struct_size.overrun.SP_StreamExecutor")) << report["findings"].dump(2);
  EXPECT_TRUE(ids.count("required.create_timer_fns")) << "2.5 requires timers";
  EXPECT_FALSE(ids.count("required.mem_zero")) << "2.5 predates the mem_zero family";
  for (const json& finding : report["findings"]) {
    if (finding["id"] != "struct_size.overrun.SP_StreamExecutor") continue;
    EXPECT_NE(finding["message"].get<std::string>().find(
                  "wrote 24 bytes past the end of the host's 264-byte SP_StreamExecutor (up to "
                  "byte 288)"),
              std::string::npos)
        << finding["message"];
  }
}

// The compat section, keyed by --tf-version.
std::map<std::string, json> CompatibilityRows(const json& report) {
  std::map<std::string, json> rows;
  for (const json& row : report["compat"]) rows[row["tf_version"].get<std::string>()] = row;
  return rows;
}

// Whether one of `row`'s problems is of `kind` and mentions `fragment`.
bool HasProblem(const json& row, const std::string& kind, const std::string& fragment) {
  for (const json& problem : row["problems"]) {
    if (problem["kind"] == kind &&
        problem["message"].get<std::string>().find(fragment) != std::string::npos) {
      return true;
    }
  }
  return false;
}

TEST(ProbeCommand, EveryTensorFlowGenerationLoadsTheCpuPlugin) {
  const json report = ProbeJson({});
  ASSERT_EQ(report["compat"].size(), 4u);
  std::vector<std::string> generations;
  for (const json& row : report["compat"]) {
    generations.push_back(row["tf_version"]);
    EXPECT_TRUE(row["loads"]) << row.dump(2);
    EXPECT_TRUE(row["problems"].empty()) << row.dump(2);
    EXPECT_FALSE(row["description"].get<std::string>().empty());
  }
  EXPECT_EQ(generations, (std::vector<std::string>{"2.5", "2.7", "2.10", "latest"}));
}

TEST(ProbeCommand, CompatibilitySaysWhyAnOlderTensorFlowRefusesThePlugin) {
  const auto rows = CompatibilityRows(ProbeJson({ReferencePlugin("sectl_minimal")}));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_FALSE(rows.at("2.5")["loads"]);
  EXPECT_TRUE(HasProblem(rows.at("2.5"), "refused", "288-byte SP_StreamExecutor"))
      << rows.at("2.5").dump(2);
  for (const char* generation : {"2.7", "2.10"}) {
    EXPECT_FALSE(rows.at(generation)["loads"]);
    EXPECT_TRUE(HasProblem(rows.at(generation), "refused", "'create_timer_fns'"))
        << rows.at(generation).dump(2);
  }
  EXPECT_TRUE(rows.at("latest")["loads"]);
  EXPECT_TRUE(rows.at("latest")["problems"].empty()) << rows.at("latest").dump(2);
}

TEST(ProbeCommand, CompatibilityReadsThePluginByEachGenerationsLayout) {
  // A 264-byte plugin: TensorFlow 2.5 overruns (the fixture fills 288 bytes
  // first), and newer hosts find host_callback where they read mem_zero.
  const auto rows = CompatibilityRows(ProbeJson({FixturePlugin("legacy_layout")}, 1));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_TRUE(HasProblem(rows.at("2.5"), "overrun", "SP_StreamExecutor")) << rows.at("2.5").dump(2);
  EXPECT_FALSE(rows.at("latest")["loads"]);
  EXPECT_TRUE(HasProblem(rows.at("latest"), "refused", "'host_callback'"))
      << rows.at("latest").dump(2);
  EXPECT_TRUE(HasProblem(rows.at("latest"), "refused", "offset 256")) << rows.at("latest").dump(2);
}

TEST(ProbeCommand, FindingTensorFlowWouldRejectExitsOne) {
  const json report = ProbeJson({FixturePlugin("invalid_platform_name")}, 1);
  ASSERT_FALSE(report["findings"].empty());
  EXPECT_EQ(report["findings"][0]["id"], "platform.name.invalid");
  EXPECT_EQ(report["findings"][0]["severity"], "error");
}

// TensorFlow's own test plugin answers -1 from its device functions, which
// TensorFlow reads as unset: not a number to print.
TEST(ProbeCommand, UnsetDeviceValuesArePrintedAsUnset) {
  const json report = ProbeJson({FixturePlugin("test_util_answers")}, 1);
  ASSERT_EQ(report["devices"].size(), 1u);
  const json& device = report["devices"][0];
  EXPECT_TRUE(device["numa_node"].is_null()) << device.dump(2);
  EXPECT_TRUE(device["memory_bandwidth_bytes_per_second"].is_null()) << device.dump(2);
  EXPECT_TRUE(device["gflops"].is_null()) << device.dump(2);

  const CommandResult table = RunSectl({"probe", FixturePlugin("test_util_answers")});
  EXPECT_EQ(table.exit_code, 1) << table.err;
  EXPECT_EQ(table.out.find("-1.0"), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find("-0.0 GB/s"), std::string::npos) << table.out;
  for (const char* row : {"NUMA node", "Memory bandwidth", "Peak GFLOP/s"}) {
    const auto at = table.out.find(row);
    ASSERT_NE(at, std::string::npos) << row << "\n" << table.out;
    const std::string line = table.out.substr(at, table.out.find('\n', at) - at);
    EXPECT_NE(line.find("(not reported)"), std::string::npos) << line;
  }
}

// device_memory_usage true with free = total = 0 (nothing filled in): conform
// fails memory.usage, so probe must not say "none" beside "0 B free of 0 B".
// Both report the one judgement (host/memory_usage_judgement.h).
TEST(ProbeCommand, MemoryFindingsAreConformsMemoryUsageVerdict) {
  const json report = ProbeJson({FixturePlugin("test_util_answers")}, 1);
  std::vector<std::string> problems;
  for (const json& finding : report["findings"]) {
    if (finding["id"] != "device.0.memory_usage") continue;
    EXPECT_EQ(finding["severity"], "error") << finding;
    const std::string message = finding["message"];
    ASSERT_EQ(message.rfind("device 0: ", 0), 0u) << message;
    problems.push_back(message.substr(std::string("device 0: ").size()));
  }
  ASSERT_FALSE(problems.empty()) << report["findings"].dump(2);

  const CommandResult conform = RunSectl({"conform", FixturePlugin("test_util_answers"), "--filter",
                                          "memory.usage", "--report", "json", "--no-throughput"});
  const json results = json::parse(conform.out, nullptr, false)["results"];
  ASSERT_TRUE(results.is_array()) << conform.out << conform.err;
  ASSERT_EQ(results.size(), 1u) << results.dump(2);
  EXPECT_EQ(results[0]["status"], "fail") << results[0].dump(2);
  const std::string verdict = results[0]["message"];
  for (const std::string& problem : problems) {
    EXPECT_NE(verdict.find(problem), std::string::npos) << problem << "\nnot in\n" << verdict;
  }
}

TEST(ProbeCommand, PluginTextCannotDriveTheTerminal) {
  const CommandResult result = RunSectl({"probe", FixturePlugin("escape_sequences")});
  EXPECT_EQ(result.exit_code, 1) << result.err;  // the name is invalid for TensorFlow
  EXPECT_EQ(result.out.find('\x1b'), std::string::npos);
  EXPECT_NE(result.out.find("EVIL\\x1b[2J\\x1b[31m"), std::string::npos) << result.out;
}

TEST(ProbeCommand, PluginOutputNeverReachesStdout) {
  const json report = ProbeJson({FixturePlugin("noisy")});
  EXPECT_EQ(report["platform"]["name"], "SECTL_MINIMAL");
  EXPECT_NE(report["plugin_output"].get<std::string>().find("hello on stderr"), std::string::npos);
}

struct LoadFailure {
  std::string fixture;
  std::vector<std::string> extra_arguments;
  std::string message;
};

void PrintTo(const LoadFailure& failure, std::ostream* out) { *out << failure.fixture; }

class ProbeFailure : public ::testing::TestWithParam<LoadFailure> {};

TEST_P(ProbeFailure, IsOneLineWithExitStatusOne) {
  std::vector<std::string> command = {"probe", FixturePlugin(GetParam().fixture)};
  command.insert(command.end(), GetParam().extra_arguments.begin(),
                 GetParam().extra_arguments.end());
  ExpectOneLineError(RunSectl(command), 1, GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, ProbeFailure,
    ::testing::Values(
        LoadFailure{"needs_missing_library", {}, "needs library libsectl_fixture_ghost.so"},
        LoadFailure{"unresolved_symbol", {}, "unresolved symbol TF_NewGraph"},
        LoadFailure{"no_entry_point", {}, "does not export SE_InitPlugin"},
        LoadFailure{"draft_entry_point", {}, "exports SE_InitializePlugin"},
        LoadFailure{"init_fails", {}, "SE_InitPlugin failed: UNAVAILABLE: fixture: no device"},
        LoadFailure{"crash_in_init", {}, "crashed with SIGSEGV in SE_InitPlugin"},
        LoadFailure{"exit_in_init", {}, "exited with status 7 without reporting in SE_InitPlugin"},
        LoadFailure{
            "hang_in_init", {"--timeout", "0.5"}, "did not return within 0 s in SE_InitPlugin"}),
    [](const auto& info) { return info.param.fixture; });

TEST(ProbeCommand, UsageErrorsExitTwo) {
  ExpectOneLineError(RunSectl({"probe", "--format", "xml"}), 2, "--format");
  ExpectOneLineError(RunSectl({"probe", "--no-such-flag"}), 2, "--no-such-flag");
  ExpectOneLineError(RunSectl({"probe", "--timeout", "-3"}), 2, "--timeout");
  ExpectOneLineError(RunSectl({"probe", "--tf-version", "1.15"}), 2, "--tf-version");
  // `sectl` alone gets the usage line instead (ConformCli's
  // ACommandGivenNothingToActOnPrintsItsUsage).
  const CommandResult bare = RunSectl({});
  EXPECT_EQ(bare.exit_code, 2) << bare.err;
  EXPECT_EQ(bare.err.rfind("Usage: sectl", 0), 0u) << bare.err;
}

TEST(ProbeCommand, UnwritableOutputIsAnErrorNotAHalfFile) {
  ExpectOneLineError(RunSectl({"probe", "-o", "/nonexistent-directory/report.txt"}), 2,
                     "/nonexistent-directory");
}

TEST(ProbeCommand, VersionNamesTheAbi) {
  for (const std::string flag : {"--version", "-V"}) {
    const CommandResult result = RunSectl({flag});
    EXPECT_EQ(result.exit_code, 0) << flag;
    EXPECT_NE(result.out.find("StreamExecutor C API 0.0.1"), std::string::npos) << result.out;
  }
}

}  // namespace
}  // namespace sectl
