// `sectl conform` and `sectl report` end to end, through the executable:
// isolation of crashing, hanging, exiting and noisy plugins; every faulty
// plugin caught by exactly its check; selection, sharding, baselines,
// report formats and exit statuses.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>
#include <set>
#include <string>
#include <vector>

#include "sectl_process.h"

namespace sectl {
namespace {

using nlohmann::json;
using testing::CommandResult;
using testing::FixturePlugin;
using testing::ReferencePlugin;
using testing::RunSectl;

std::string FaultyPlugin(const std::string& fault) {
  return std::string(SECTL_FAULTY_PLUGIN_DIR) + "/faulty_" + fault + ".so";
}

class ConformTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = std::filesystem::temp_directory_path() /
                 ("sectl_conform_test_" + std::to_string(::getpid()) + "_" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }
  std::string PathOf(const std::string& name) const { return (directory_ / name).string(); }
  std::string Write(const std::string& name, const std::string& text) const {
    std::ofstream(PathOf(name)) << text;
    return PathOf(name);
  }
  static std::string Read(const std::string& path) {
    std::ifstream file(path);
    return {std::istreambuf_iterator<char>(file), {}};
  }

  std::filesystem::path directory_;
};

// Runs conform with a JSON report on stdout and parses it.
json Conform(std::vector<std::string> arguments, int expected_exit) {
  arguments.insert(arguments.begin(), {"conform", "--report", "json"});
  const CommandResult result = RunSectl(arguments);
  EXPECT_EQ(result.exit_code, expected_exit) << result.err << result.out;
  try {
    return json::parse(result.out);
  } catch (const json::exception& error) {
    ADD_FAILURE() << "stdout is not JSON: " << error.what() << "\n" << result.out;
    return json::object();
  }
}

const json* ResultOf(const json& report, const std::string& id) {
  for (const json& result : report["results"]) {
    if (result["id"] == id) return &result;
  }
  return nullptr;
}

// The checks of a plugin without a kernel, graph or profiler module.
const std::map<std::string, std::string> kNoKernelModule = {
    {"graph.configs_layout", "exports no TF_InitGraph"},
    {"graph.device_type", "exports no TF_InitGraph"},
    {"graph.registration", "exports no TF_InitGraph"},
    {"kernels.device_type", "exports no TF_InitKernel"},
    {"kernels.functions", "exports no TF_InitKernel"},
    {"kernels.registration", "exports no TF_InitKernel"},
    {"kernels.unique", "exports no TF_InitKernel"},
    {"profiler.device_type", "exports no TF_InitProfiler"},
    {"profiler.registration", "exports no TF_InitProfiler"},
    {"profiler.session", "exports no TF_InitProfiler"}};

// The checks each reference plugin skips, with a phrase of the reason: cpu
// provides every optional member; minimal leaves out timers, unified memory,
// block_host_until_done and sync_memcpy_dtod, which TensorFlow 2.5 to 2.15
// would not accept. Neither has a kernel, graph or profiler module yet.
std::map<std::string, std::map<std::string, std::string>> ExpectedSkips() {
  auto with_no_kernel_module = [](std::map<std::string, std::string> skips) {
    skips.insert(kNoKernelModule.begin(), kNoKernelModule.end());
    return skips;
  };
  return {
      {"sectl_cpu", with_no_kernel_module({})},
      {"sectl_minimal", with_no_kernel_module(
                            {{"compat.tf_2_5", "TensorFlow 2.5 to 2.6 would refuse this plugin"},
                             {"compat.tf_2_7", "TensorFlow 2.7 to 2.9 would refuse this plugin"},
                             {"compat.tf_2_10", "TensorFlow 2.10 to 2.15 would refuse this plugin"},
                             {"memcpy.sync_dtod", "does not provide sync_memcpy_dtod"},
                             {"memory.unified_memory", "does not set supports_unified_memory"},
                             {"stream.block_host_until_done", "provides no block_host_until_done"},
                             {"timer.measures_stream_time", "provides no timers"},
                             {"timer.nanoseconds_unit", "provides no timers"}})},
  };
}

TEST(Conform, BothReferencePluginsPassEverything) {
  for (const auto& [name, expected_skips] : ExpectedSkips()) {
    // sectl_cpu is the bundled default: no plugin argument.
    const json report =
        Conform(name == "sectl_cpu" ? std::vector<std::string>{}
                                    : std::vector<std::string>{ReferencePlugin(name)},
                0);
    EXPECT_EQ(report["schema_version"], 6);
    EXPECT_EQ(report["device"], "ordinal 0");
    EXPECT_EQ(report["subject"], "TensorFlow latest");
    EXPECT_TRUE(report["load_error"].is_null());
    EXPECT_GE(report["results"].size(), 4u);
    std::map<std::string, std::string> skipped;
    for (const json& result : report["results"]) {
      EXPECT_TRUE(result["status"] == "pass" || result["status"] == "skip")
          << name << ": " << result.dump(2);
      if (result["status"] == "skip") skipped[result["id"]] = result["message"];
    }
    // Exactly the expected skips, each for its reason: a check that starts
    // skipping on a reference plugin hides a regression.
    std::set<std::string> skipped_ids;
    std::set<std::string> expected_ids;
    for (const auto& entry : skipped) skipped_ids.insert(entry.first);
    for (const auto& entry : expected_skips) expected_ids.insert(entry.first);
    EXPECT_EQ(skipped_ids, expected_ids) << name;
    for (const auto& [id, reason] : expected_skips) {
      if (skipped.count(id) == 0) continue;
      EXPECT_NE(skipped[id].find(reason), std::string::npos)
          << name << " " << id << ": " << skipped[id];
    }
    EXPECT_EQ(report["summary"]["pass"].get<size_t>() + report["summary"]["skip"].get<size_t>(),
              report["results"].size());
    // The report ends with copy bandwidth in each direction, verified.
    const json& throughput = report["throughput"];
    ASSERT_TRUE(throughput.is_object()) << throughput;
    EXPECT_GT(throughput["ceiling_gbps"].get<double>(), 0);
    ASSERT_EQ(throughput["results"].size(), 3u) << throughput;
    for (const json& path : throughput["results"]) {
      EXPECT_EQ(path["verification"], "passed") << path;
      EXPECT_GT(path["median_gbps"].get<double>(), 0) << path;
    }
  }
}

// Issue 29: a run of one area (`--filter 'memcpy.*'`) or a later shard is
// asked for its checks, not for seconds of bandwidth measurement; a whole
// run measures, and --throughput asks for it on a partial run too.
TEST(Conform, ThroughputIsMeasuredOnWholeRunsOrWhenAskedFor) {
  EXPECT_TRUE(Conform({"--filter", "device.count"}, 0)["throughput"].is_null());
  EXPECT_TRUE(Conform({"--shard", "1/40"}, 0)["throughput"].is_null());
  EXPECT_TRUE(Conform({"--filter", "device.count", "--throughput"}, 0)["throughput"].is_object());
  const CommandResult both = RunSectl({"conform", "--throughput", "--no-throughput"});
  EXPECT_EQ(both.exit_code, 2) << both.out << both.err;
  EXPECT_NE(both.err.find("excludes"), std::string::npos) << both.err;
}

TEST(Conform, ThroughputCanBeLeftOutAndNeverChangesTheVerdict) {
  EXPECT_TRUE(Conform({"--no-throughput"}, 0)["throughput"].is_null());
  // A plugin that crashes in memcpy_htod crashes the measurement too: the
  // section says so, and the exit status is the checks' alone.
  const json crashed =
      Conform({FixturePlugin("memcpy_crash"), "--filter", "device.*", "--throughput"}, 0);
  ASSERT_TRUE(crashed["throughput"]["error"].is_string()) << crashed["throughput"];
  EXPECT_NE(crashed["throughput"]["error"].get<std::string>().find("SIGSEGV"), std::string::npos)
      << crashed["throughput"];
}

TEST(Conform, CrashIsReportedWithTheCallThatNeverReturned) {
  const json report = Conform({FixturePlugin("memcpy_crash")}, 1);
  const json* result = ResultOf(report, "memcpy.htod");
  ASSERT_NE(result, nullptr);
  EXPECT_EQ((*result)["status"], "crash");
  EXPECT_NE(
      (*result)["message"].get<std::string>().find("SIGSEGV in SP_StreamExecutor.memcpy_htod"),
      std::string::npos)
      << (*result)["message"];
  ASSERT_FALSE((*result)["journal"].empty());
  EXPECT_NE((*result)["journal"].back().get<std::string>().find("never returned"),
            std::string::npos);
  ASSERT_TRUE((*result)["details"].contains("backtrace"));
  bool plugin_frame = false;
  for (const json& frame : (*result)["details"]["backtrace"]) {
    if (frame.get<std::string>().find("memcpy_crash.so") != std::string::npos) plugin_frame = true;
  }
  EXPECT_TRUE(plugin_frame) << (*result)["details"].dump(2);
  // Every check that copies host to device crashes with it; the others pass.
  EXPECT_GE(report["summary"]["crash"].get<int>(), 1);
  EXPECT_EQ(report["summary"]["fail"], 0);
}

TEST(Conform, HangIsKilledAndNamed) {
  const json report = Conform({FixturePlugin("memcpy_hang"), "--timeout", "1"}, 1);
  const json* result = ResultOf(report, "memcpy.htod");
  ASSERT_NE(result, nullptr);
  EXPECT_EQ((*result)["status"], "timeout");
  EXPECT_NE((*result)["message"].get<std::string>().find("in SP_StreamExecutor.memcpy_htod"),
            std::string::npos);
}

TEST(Conform, ExitWithoutReportingIsReportedAsSuch) {
  const json report = Conform({FixturePlugin("memcpy_exit")}, 1);
  const json* result = ResultOf(report, "memcpy.htod");
  ASSERT_NE(result, nullptr);
  EXPECT_EQ((*result)["status"], "crash");
  EXPECT_NE((*result)["message"].get<std::string>().find("exited with status 3 without reporting"),
            std::string::npos);
}

TEST(Conform, NoisyPluginKeepsStdoutValidJsonAndItsOutputIsAttached) {
  const json report = Conform({FixturePlugin("memcpy_noise")}, 0);
  const json* result = ResultOf(report, "memcpy.htod");
  ASSERT_NE(result, nullptr);
  EXPECT_NE((*result)["log"].get<std::string>().find("stderr noise"), std::string::npos);
}

TEST(Conform, UnloadablePluginStillGetsACompleteReport) {
  for (const auto& [fixture, cause] : std::vector<std::pair<std::string, std::string>>{
           {"init_fails", "SE_InitPlugin failed: UNAVAILABLE"},
           {"crash_in_init", "crashed with SIGSEGV in SE_InitPlugin"},
           {"no_entry_point", "does not export SE_InitPlugin"}}) {
    const json report = Conform({FixturePlugin(fixture)}, 1);
    ASSERT_TRUE(report["load_error"].is_string()) << fixture;
    EXPECT_NE(report["load_error"].get<std::string>().find(cause), std::string::npos)
        << report["load_error"];
  }
}

TEST(Conform, FilterSelectsByGlob) {
  const json report = Conform({"--filter", "registration.*-*.version_fields"}, 0);
  ASSERT_FALSE(report["results"].empty());
  for (const json& result : report["results"]) {
    const std::string id = result["id"];
    EXPECT_EQ(id.rfind("registration.", 0), 0u) << id;
    EXPECT_NE(id, "registration.version_fields");
  }
}

// The ids `conform --list` selects with `arguments`, in order.
std::vector<std::string> ListedIds(std::vector<std::string> arguments) {
  arguments.insert(arguments.begin(), {"conform", "--list", "--format", "json"});
  const CommandResult listed = RunSectl(arguments);
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  std::vector<std::string> ids;
  try {
    for (const json& check : json::parse(listed.out)) ids.push_back(check["id"]);
  } catch (const json::exception& error) {
    ADD_FAILURE() << "--list output is not JSON: " << error.what() << "\n" << listed.out;
  }
  return ids;
}

TEST(Conform, ShardsPartitionTheSuite) {
  // Selection is the same whether the checks are listed or run (below), so
  // the partition is shown on the lists: no run of the whole suite.
  std::multiset<std::string> union_of_shards;
  for (int index = 0; index < 3; ++index) {
    const std::vector<std::string> shard = ListedIds({"--shard", std::to_string(index) + "/3"});
    EXPECT_FALSE(shard.empty()) << "shard " << index;
    union_of_shards.insert(shard.begin(), shard.end());
  }
  const std::vector<std::string> whole_list = ListedIds({});
  EXPECT_EQ(union_of_shards, std::multiset<std::string>(whole_list.begin(), whole_list.end()));

  // A run of one shard (of a small part, to be quick) runs what --list says.
  const std::vector<std::string> arguments{"--filter", "registration.*:device.*", "--shard", "1/2"};
  std::vector<std::string> run_arguments = arguments;
  run_arguments.emplace_back("--no-throughput");
  std::vector<std::string> ran;
  const json shard_run = Conform(run_arguments, 0);
  for (const json& result : shard_run["results"]) ran.push_back(result["id"]);
  std::vector<std::string> listed = ListedIds(arguments);
  std::sort(ran.begin(), ran.end());
  std::sort(listed.begin(), listed.end());
  EXPECT_FALSE(listed.empty());
  EXPECT_EQ(ran, listed);
}

TEST(Conform, RepeatAndShuffleAreReproducible) {
  const json first = Conform({"--repeat", "3", "--shuffle", "--seed", "42"}, 0);
  const json second = Conform({"--repeat", "3", "--shuffle", "--seed", "42"}, 0);
  ASSERT_EQ(first["results"].size(), second["results"].size());
  std::vector<std::string> order_first;
  std::vector<std::string> order_second;
  for (size_t i = 0; i < first["results"].size(); ++i) {
    order_first.push_back(first["results"][i]["id"].get<std::string>() + "#" +
                          std::to_string(first["results"][i]["repetition"].get<int>()));
    order_second.push_back(second["results"][i]["id"].get<std::string>() + "#" +
                           std::to_string(second["results"][i]["repetition"].get<int>()));
  }
  EXPECT_EQ(order_first, order_second);
  // The report records the seed that reproduces its order.
  EXPECT_EQ(first["selection"]["seed"], 42);
  EXPECT_EQ(first["selection"]["repeat"], 3);
  EXPECT_EQ(first["verdict"], "conformant");
  const json once = Conform({}, 0);
  EXPECT_EQ(first["summary"]["pass"], 3 * once["summary"]["pass"].get<int>());
}

TEST(Conform, ListsChecksAsTableAndJson) {
  const CommandResult table = RunSectl({"conform", "--list"});
  EXPECT_EQ(table.exit_code, 0);
  EXPECT_NE(table.out.find("memcpy.htod"), std::string::npos);
  const CommandResult listed = RunSectl({"conform", "--list", "--format", "json"});
  const json checks = json::parse(listed.out);
  ASSERT_TRUE(checks.is_array());
  for (const json& check : checks) {
    EXPECT_TRUE(check.contains("id") && check.contains("severity") && check.contains("source"));
    // Where the check is declared, the same on every machine.
    EXPECT_EQ(check["source"].get<std::string>().rfind("checks/", 0), 0u) << check["source"];
  }
}

TEST_F(ConformTest, WritesJunitBesideTheMainReport) {
  const std::string junit = PathOf("results.xml");
  const std::string main_report = PathOf("report.json");
  const CommandResult result = RunSectl({"conform", FaultyPlugin("corrupt_dtoh"), "--report",
                                         "json", "-o", main_report, "--junit", junit});
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_TRUE(result.out.empty());
  EXPECT_TRUE(json::accept(Read(main_report)));
  pugi::xml_document document;
  ASSERT_TRUE(document.load_file(junit.c_str()));
  const auto suites = document.child("testsuites");
  EXPECT_EQ(suites.attribute("failures").as_int(), 1);
  EXPECT_GE(suites.attribute("tests").as_int(), 4);
  EXPECT_TRUE(suites.find_node([](pugi::xml_node node) {
    return std::string(node.name()) == "testcase" &&
           std::string(node.attribute("name").value()) == "memcpy.dtoh" && node.child("failure");
  }));
}

TEST_F(ConformTest, BaselineExcusesKnownFailuresAndReportsFixes) {
  const std::string baseline = PathOf("baseline.txt");
  // Start from the failures of a faulty plugin, as a vendor would.
  const CommandResult first =
      RunSectl({"conform", FaultyPlugin("corrupt_dtoh"), "--write-baseline", baseline});
  EXPECT_EQ(first.exit_code, 1);
  EXPECT_NE(Read(baseline).find("memcpy.dtoh"), std::string::npos);

  const json excused = Conform({FaultyPlugin("corrupt_dtoh"), "--baseline", baseline}, 0);
  EXPECT_EQ(ResultOf(excused, "memcpy.dtoh")->at("baseline"), "expected");

  const json fixed = Conform({ReferencePlugin("sectl_minimal"), "--baseline", baseline}, 0);
  EXPECT_EQ(ResultOf(fixed, "memcpy.dtoh")->at("baseline"), "fixed");

  const std::string expired =
      Write("expired.txt", "fail memcpy.* expires=2020-01-01 fixed long ago, supposedly\n");
  const json regression = Conform({FaultyPlugin("corrupt_dtoh"), "--baseline", expired}, 1);
  EXPECT_EQ(ResultOf(regression, "memcpy.dtoh")->at("baseline"), "expired");

  const std::string skipping = Write("skip.txt", "skip memcpy.* no copies on this device\n");
  const json skipped = Conform({FaultyPlugin("corrupt_dtoh"), "--baseline", skipping}, 0);
  EXPECT_EQ(ResultOf(skipped, "memcpy.dtoh")->at("status"), "skip");
}

TEST_F(ConformTest, MalformedBaselineIsAUsageErrorWithFileAndLine) {
  const std::string baseline = Write("bad.txt", "# comment\nfial memcpy.* typo in the kind\n");
  const CommandResult result = RunSectl({"conform", "--baseline", baseline});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(result.out.empty());
  EXPECT_NE(result.err.find(baseline + ":2:"), std::string::npos) << result.err;
}

TEST_F(ConformTest, ReportMergesShardsAndRefusesMixedPlugins) {
  std::vector<std::string> shards;
  for (int index = 0; index < 2; ++index) {
    shards.push_back(PathOf("shard" + std::to_string(index) + ".json"));
    const CommandResult run =
        RunSectl({"conform", FaultyPlugin("corrupt_dtoh"), "--report", "json", "--shard",
                  std::to_string(index) + "/2", "-o", shards.back()});
    EXPECT_NE(run.exit_code, 2) << run.err;
  }
  const CommandResult merged = RunSectl({"report", shards[0], shards[1], "--report", "json"});
  EXPECT_EQ(merged.exit_code, 1) << merged.err;
  const json whole = json::parse(merged.out);
  const json direct = Conform({FaultyPlugin("corrupt_dtoh")}, 1);
  EXPECT_EQ(whole["summary"], direct["summary"]);
  const CommandResult table = RunSectl({"report", shards[0], shards[1]});
  EXPECT_NE(table.out.find("memcpy.dtoh"), std::string::npos);

  // One shard of two is not the whole run: incomplete, naming the missing one.
  const CommandResult half = RunSectl({"report", shards[1], "--report", "json"});
  EXPECT_EQ(half.exit_code, 1) << half.err;
  EXPECT_EQ(json::parse(half.out)["verdict"], "incomplete");
  EXPECT_EQ(json::parse(half.out)["missing_shards"], json::array({"0/2"}));
  const CommandResult half_table = RunSectl({"report", shards[1]});
  EXPECT_NE(half_table.out.find("INCOMPLETE (shard 0/2 missing"), std::string::npos)
      << half_table.out;

  const std::string other = PathOf("other.json");
  (void)RunSectl({"conform", "--report", "json", "-o", other});
  const CommandResult mixed = RunSectl({"report", shards[0], other});
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_NE(mixed.err.find("different plugins"), std::string::npos) << mixed.err;
}

// The bundled plugin has two devices: a report of each is no shard of one
// run, and merging them is refused, naming both devices.
TEST_F(ConformTest, ReportRefusesToMergeRunsOnDifferentDevices) {
  std::vector<std::string> runs;
  for (const std::string device : {"0", "1"}) {
    runs.push_back(PathOf("device" + device + ".json"));
    const CommandResult run = RunSectl({"conform", "--filter", "device.count", "--no-throughput",
                                        "--device", device, "--report", "json", "-o", runs.back()});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(json::parse(Read(runs.back()))["device"], "ordinal " + device);
  }
  const CommandResult table = RunSectl({"report", runs[1]});
  EXPECT_NE(table.out.find("\nDevice      ordinal 1\n"), std::string::npos) << table.out;
  const CommandResult mixed = RunSectl({"report", runs[0], runs[1]});
  EXPECT_EQ(mixed.exit_code, 2) << mixed.out;
  EXPECT_TRUE(mixed.out.empty()) << mixed.out;
  EXPECT_NE(mixed.err.find("reports are of different devices under test (ordinal 0 vs ordinal 1)"),
            std::string::npos)
      << mixed.err;
  EXPECT_EQ(std::count(mixed.err.begin(), mixed.err.end(), '\n'), 1) << mixed.err;
}

// The same checks, with the same verdicts, but the one that needs a plugin
// process of its own: in sectl's process the plugin's exit would be sectl's.
TEST(Conform, InProcessIsolationRunsTheSameChecks) {
  const json report = Conform({"--isolation", "none", ReferencePlugin("sectl_minimal")}, 0);
  const json isolated = Conform({ReferencePlugin("sectl_minimal")}, 0);
  ASSERT_EQ(report["results"].size(), isolated["results"].size());
  for (const json& result : isolated["results"]) {
    const std::string id = result["id"];
    const json* in_process = ResultOf(report, id);
    ASSERT_NE(in_process, nullptr) << id;
    if (id == "lifecycle.process_exit") {
      EXPECT_EQ(result["status"], "pass") << result.dump(2);
      EXPECT_EQ((*in_process)["status"], "skip") << in_process->dump(2);
      continue;
    }
    EXPECT_EQ((*in_process)["status"], result["status"]) << id;
  }
}

TEST(Conform, UsageErrorsExitTwo) {
  for (const std::vector<std::string>& arguments :
       {std::vector<std::string>{"conform", "--shard", "3/2"},
        std::vector<std::string>{"conform", "--device", "7"},
        std::vector<std::string>{"conform", "--report", "yaml"},
        std::vector<std::string>{"conform", "--repeat", "0"},
        std::vector<std::string>{"conform", "--filter", "a::b"},
        std::vector<std::string>{"report", "/nonexistent.json"}}) {
    const CommandResult result = RunSectl(arguments);
    EXPECT_EQ(result.exit_code, 2) << arguments[1] << ": " << result.err;
    EXPECT_EQ(result.err.rfind("sectl: error: ", 0), 0u) << result.err;
  }
}

// Nothing to act on is answered with the usage line, not "... is required".
TEST(Conform, ACommandGivenNothingToActOnPrintsItsUsage) {
  const CommandResult bare = RunSectl({});
  EXPECT_EQ(bare.exit_code, 2) << bare.err;
  EXPECT_EQ(bare.err.rfind("Usage: sectl [OPTIONS] SUBCOMMAND", 0), 0u) << bare.err;
  EXPECT_NE(bare.err.find("Commands: probe, conform, report, bench"), std::string::npos)
      << bare.err;
  const CommandResult report = RunSectl({"report"});
  EXPECT_EQ(report.exit_code, 2) << report.err;
  EXPECT_EQ(report.err.rfind("Usage: sectl report [OPTIONS] reports...", 0), 0u) << report.err;
  EXPECT_NE(report.err.find("Run 'sectl report --help' for more."), std::string::npos);
}

// A path that names no shared library is the user's mistake, not a failing
// plugin: exit 2 with one line, before any report begins.
TEST(Conform, APathThatNamesNoSharedLibraryIsAUsageError) {
  const auto text_file = std::filesystem::temp_directory_path() /
                         ("sectl_not_a_plugin_" + std::to_string(::getpid()) + ".so");
  std::ofstream(text_file) << "not a plugin\n";
  struct Case {
    std::string path;
    std::string cause;
  };
  for (const Case& mistake :
       {Case{"/nonexistent/plugin.so", "no such file"}, Case{SECTL_PLUGIN_DIR, "is a directory"},
        Case{"/bin/ls", "a position-independent executable"},
        Case{text_file.string(), "not an ELF file"}}) {
    for (const std::vector<std::string>& command :
         {std::vector<std::string>{"conform", mistake.path},
          std::vector<std::string>{"probe", mistake.path},
          std::vector<std::string>{"bench", "latency", mistake.path}}) {
      const CommandResult result = RunSectl(command);
      EXPECT_EQ(result.exit_code, 2) << command[0] << " " << mistake.path << ": " << result.err;
      EXPECT_EQ(result.err.rfind("sectl: error: " + mistake.path + ": ", 0), 0u) << result.err;
      EXPECT_NE(result.err.find(mistake.cause), std::string::npos) << result.err;
      EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
      EXPECT_TRUE(result.out.empty()) << result.out;
    }
  }
  std::filesystem::remove(text_file);
}

TEST(Conform, ASeedWithoutShuffleIsRefused) {
  const CommandResult result = RunSectl({"conform", "--seed", "7"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("--shuffle"), std::string::npos) << result.err;
}

// GoogleTest's convention: a filter that selects nothing is an error, so a
// typo cannot keep CI green; it names what the user probably meant.
TEST(Conform, AFilterThatSelectsNothingIsAUsageErrorWithSuggestions) {
  struct Case {
    std::vector<std::string> arguments;
    std::string suggestion;
  };
  for (const Case& mistake :
       {Case{{"conform", "--filter", "memcpy"}, "did you mean 'memcpy.*'?"},
        Case{{"conform", "--filter", "memcpy.htdo"}, "'memcpy.htod'"},
        Case{{"conform", "--list", "--filter", "evnt.*"}, "did you mean 'event.*'?"},
        Case{{"conform", "--filter", "nothing.like.it*"}, "sectl conform --list shows them"}}) {
    const CommandResult result = RunSectl(mistake.arguments);
    EXPECT_EQ(result.exit_code, 2) << result.out << result.err;
    EXPECT_EQ(result.err.rfind("sectl: error: --filter", 0), 0u) << result.err;
    EXPECT_NE(result.err.find(mistake.suggestion), std::string::npos) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_TRUE(result.out.empty()) << result.out;  // no report header, no empty list
  }
  // Sharding, not the filter, may leave a shard empty: that is no mistake.
  const json empty_shard = Conform({"--filter", "registration.init", "--shard", "1/2"}, 0);
  EXPECT_TRUE(empty_shard["results"].empty()) << empty_shard.dump();
}

// --format is --list's format, and otherwise the report's, as --report:
// never silently ignored.
TEST(Conform, FormatIsTheReportsFormatUnlessListing) {
  const CommandResult json_report =
      RunSectl({"conform", "--format", "json", "--filter", "registration.*", "--no-throughput"});
  EXPECT_EQ(json_report.exit_code, 0) << json_report.err;
  EXPECT_EQ(json::parse(json_report.out)["kind"], "sectl.conform");
  for (const std::vector<std::string>& arguments :
       {std::vector<std::string>{"conform", "--format", "json", "--report", "table"},
        std::vector<std::string>{"conform", "--list", "--format", "junit"}}) {
    const CommandResult refused = RunSectl(arguments);
    EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
    EXPECT_EQ(refused.err.rfind("sectl: error: --", 0), 0u) << refused.err;
  }
}

TEST(Conform, ShardFromGoogleTestEnvironment) {
  ::setenv("GTEST_TOTAL_SHARDS", "2", 1);
  ::setenv("GTEST_SHARD_INDEX", "1", 1);
  const json second_half = Conform({}, 0);
  ::unsetenv("GTEST_TOTAL_SHARDS");
  ::unsetenv("GTEST_SHARD_INDEX");
  const json whole = Conform({}, 0);
  EXPECT_LT(second_half["results"].size(), whole["results"].size());
  EXPECT_GT(second_half["results"].size(), 0u);
}

// A report file that cannot be written is a usage error found before any
// check runs, not after minutes of them (issue 29, item 4).
TEST(Conform, AnUnwritableReportPathIsAUsageErrorBeforeRunning) {
  for (const char* flag : {"-o", "--junit", "--write-baseline"}) {
    const CommandResult run = RunSectl({"conform", "--no-throughput", flag, "/nonexistent/dir/x"});
    EXPECT_EQ(run.exit_code, 2) << flag << ": " << run.err;
    EXPECT_EQ(run.err, std::string("sectl: error: ") + flag +
                           " /nonexistent/dir/x: the directory /nonexistent/dir does not exist\n");
    EXPECT_TRUE(run.out.empty()) << flag << ": the suite ran: " << run.out;
  }
}

}  // namespace
}  // namespace sectl
