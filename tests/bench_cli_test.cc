// `sectl bench` end to end, as a user or a CI job runs it: both reference
// plugins, every output, and the plugins that crash, hang or cheat.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "sectl_process.h"

namespace sectl::testing {
namespace {

// Short budgets: these tests are about behaviour, not numbers.
const std::vector<std::string> kQuick = {"--budget", "0.01", "--no-progress"};

std::vector<std::string> Command(std::initializer_list<std::string> arguments) {
  std::vector<std::string> command(arguments);
  command.insert(command.end(), kQuick.begin(), kQuick.end());
  return command;
}

// Runs a --compare `command` until its gate reports a regression, at most
// five times, measuring the saved report first each time where `baseline`
// is given. Only a result whose median settled in both runs can be a
// regression, and on a machine busy with other jobs a short run sometimes
// does not settle, or the baseline itself is slowed as much as the slower
// plugin; a gate that cannot see the regression fails every time.
CommandResult RunUntilTheGateFails(const std::vector<std::string>& command,
                                   const std::vector<std::string>& baseline = {}) {
  CommandResult result;
  for (int attempt = 0; attempt < 5; ++attempt) {
    if (!baseline.empty()) {
      result = RunSectl(baseline);
      if (result.exit_code != 0) return result;
    }
    result = RunSectl(command);
    if (result.exit_code == 1 && result.out.find("REGRESSION") != std::string::npos) break;
  }
  return result;
}

nlohmann::json ParseJson(const CommandResult& result) {
  try {
    return nlohmann::json::parse(result.out);
  } catch (const nlohmann::json::exception& error) {
    ADD_FAILURE() << "not JSON: " << error.what() << "\n" << result.out << result.err;
    return {};
  }
}

std::string TemporaryPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / (name + "." + std::to_string(::getpid())))
      .string();
}

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

class BenchMemcpyTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BenchMemcpyTest, MeasuresVerifiesAndDescribesEveryPath) {
  const auto result =
      RunSectl(Command({"bench", "memcpy", ReferencePlugin(GetParam()), "--sizes", "64KiB,1MiB",
                        "--host-memory", "both", "--mode", "both", "--report", "json"}));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto report = ParseJson(result);
  EXPECT_EQ(report["ceiling"].size(), 2u);
  std::set<std::string> paths;
  for (const auto& entry : report["results"]) {
    const std::string path = entry["direction"].get<std::string>() + " " +
                             entry["host_memory"].get<std::string>() + " " +
                             entry["mode"].get<std::string>();
    paths.insert(path);
    if (!entry["error"].is_null()) {
      // Only what the plugin lacks may be missing: minimal has no sync_memcpy_dtod.
      EXPECT_EQ(path, "d2d none sync") << entry["error"];
      continue;
    }
    EXPECT_EQ(entry["verification"], "passed") << path;
    EXPECT_GT(entry["median_gbps"].get<double>(), 0) << path;
    EXPECT_LE(entry["p5_gbps"].get<double>(), entry["median_gbps"].get<double>()) << path;
    EXPECT_LE(entry["median_gbps"].get<double>(), entry["p95_gbps"].get<double>()) << path;
    EXPECT_GT(entry["ceiling_gbps"].get<double>(), 0) << path;
    EXPECT_GE(entry["samples"].get<int>(), 5) << path;
  }
  // h2d and d2h with pinned and pageable memory, d2d, each async and sync.
  EXPECT_EQ(paths.size(), 10u);
}

TEST_P(BenchMemcpyTest, WritesTableCsvAndPlot) {
  const std::string plot = TemporaryPath("bench_plot") + ".svg";  // --plot takes .svg only
  const auto table = RunSectl(Command(
      {"bench", "memcpy", ReferencePlugin(GetParam()), "--sizes", "4KiB:16KiB", "--plot", plot}));
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("ceiling"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("16 KiB"), std::string::npos) << table.out;
  EXPECT_NE(ReadFile(plot).find("<svg"), std::string::npos);
  std::filesystem::remove(plot);

  const auto csv = RunSectl(Command({"bench", "memcpy", ReferencePlugin(GetParam()), "--sizes",
                                     "4KiB", "--direction", "d2d", "--report", "csv"}));
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 2) << csv.out;  // header + row
}

INSTANTIATE_TEST_SUITE_P(ReferencePlugins, BenchMemcpyTest,
                         ::testing::Values("sectl_cpu", "sectl_minimal"));

TEST(BenchLatencyTest, MeasuresEveryOperationOfTheCpuPlugin) {
  const auto result =
      RunSectl(Command({"bench", "latency", ReferencePlugin("sectl_cpu"), "--report", "json"}));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto report = ParseJson(result);
  ASSERT_GE(report["latency"].size(), 8u);
  for (const auto& entry : report["latency"]) {
    EXPECT_TRUE(entry["error"].is_null()) << entry.dump();
    EXPECT_GT(entry["median_ns"].get<double>(), 0) << entry["operation"];
    EXPECT_LE(entry["median_ns"].get<double>(), entry["p95_ns"].get<double>())
        << entry["operation"];
  }
}

TEST(BenchLatencyTest, SaysWhatAPluginLacksInsteadOfMeasuringIt) {
  const auto result =
      RunSectl(Command({"bench", "latency", ReferencePlugin("sectl_minimal"), "--report", "json"}));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto report = ParseJson(result);
  bool said_what_is_missing = false;
  for (const auto& entry : report["latency"]) {
    if (entry["operation"] == "block_host_until_done_idle") {
      ASSERT_TRUE(entry["error"].is_string()) << entry.dump();
      EXPECT_NE(entry["error"].get<std::string>().find("block_host_until_done"), std::string::npos);
      said_what_is_missing = true;
    }
  }
  EXPECT_TRUE(said_what_is_missing);
}

TEST(BenchFaultsTest, AFasterThanPossibleCopyIsFlagged) {
  // deferred_copy coalesces repeated copies into one: the data is right,
  // the bandwidth is fiction.
  const auto result =
      RunSectl(Command({"bench", "memcpy", FixturePlugin("deferred_copy"), "--sizes", "1MiB",
                        "--direction", "h2d", "--report", "json"}));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto entry = ParseJson(result)["results"][0];
  EXPECT_EQ(entry["verification"], "passed");
  ASSERT_FALSE(entry["warnings"].empty()) << entry.dump(2);
  EXPECT_NE(entry["warnings"][0].get<std::string>().find("implausible"), std::string::npos);
}

TEST(BenchFaultsTest, WrongDataFailsVerificationAndTheExitStatus) {
  const auto result = RunSectl(Command(
      {"bench", "memcpy", std::string(SECTL_FAULTY_PLUGIN_DIR) + "/faulty_htod_drops_last_byte.so",
       "--sizes", "64KiB", "--direction", "h2d", "--report", "json"}));
  EXPECT_EQ(result.exit_code, 1) << result.err;
  const auto entry = ParseJson(result)["results"][0];
  EXPECT_TRUE(entry["verification"].get<std::string>().starts_with("failed: byte 65535"))
      << entry["verification"];
}

TEST(BenchFaultsTest, AHangingPluginIsKilledAndTheCallNamed) {
  const auto result = RunSectl(Command(
      {"bench", "memcpy", FixturePlugin("memcpy_hang"), "--sizes", "4KiB", "--timeout", "1"}));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("no progress for 1 s in SP_StreamExecutor.memcpy_htod"),
            std::string::npos)
      << result.err;
  EXPECT_TRUE(result.out.empty()) << "no half report: " << result.out;
}

// A plugin that stalls in every step, each stall (1.2 s) too short for
// --timeout 2 to kill it as a hang, each step longer than --timeout: the
// bench stops after two such steps, says which and why, reports the rest as
// not measured, and exits with status 1. Without one deadline for the whole
// run it went through all 18 steps (9 sizes of one path and their ceilings),
// at least 21 s, and passed.
std::string StallingPlugin() {
  return std::string(SECTL_FAULTY_PLUGIN_DIR) + "/faulty_stalls_in_every_step.so";
}

TEST(BenchFaultsTest, APluginThatStallsInEveryStepIsStoppedAfterTwoSlowSteps) {
  const auto started = std::chrono::steady_clock::now();
  const auto result =
      RunSectl(Command({"bench", "memcpy", StallingPlugin(), "--sizes", "4KiB:1MiB", "--direction",
                        "h2d", "--mode", "async", "--timeout", "2", "--report", "json"}));
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(result.exit_code, 1) << result.err;
  // Two slow steps of 2.4 s and their ceilings, then nothing more.
  EXPECT_LT(took.count(), 15) << "the bench ran on after two slow steps";
  const auto report = ParseJson(result);
  ASSERT_TRUE(report["stopped"].is_string()) << report.dump(2);
  const std::string stopped = report["stopped"];
  EXPECT_TRUE(
      stopped.starts_with("2 steps took longer than --timeout 2 s each, though every "
                          "call came back: h2d pinned async 4 KiB ("))
      << stopped;
  EXPECT_NE(stopped.find("h2d pinned async 8 KiB ("), std::string::npos) << stopped;
  const auto& results = report["results"];
  ASSERT_EQ(results.size(), 9U) << "every size has its row, measured or not";
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_TRUE(results[i]["error"].is_null()) << results[i].dump(2);
    EXPECT_TRUE(results[i]["warnings"].dump().find("longer than --timeout 2 s") !=
                std::string::npos)
        << results[i].dump(2);
  }
  for (size_t i = 2; i < results.size(); ++i) {
    EXPECT_EQ(results[i]["error"],
              "the bench stopped before this step: 2 steps took longer than --timeout 2 s")
        << results[i].dump(2);
  }
  EXPECT_EQ(report["ceiling"].size(), 2U) << "no ceiling measured after the stop";

  // The table says so first, under the header.
  const auto table = RunSectl(Command({"bench", "memcpy", StallingPlugin(), "--sizes", "4KiB:16KiB",
                                       "--direction", "h2d", "--timeout", "2"}));
  EXPECT_EQ(table.exit_code, 1) << table.err;
  EXPECT_NE(table.out.find("\nTHE BENCH STOPPED EARLY: 2 steps took longer than --timeout 2 s"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("16 KiB  not measured: the bench stopped before this step"),
            std::string::npos)
      << table.out;
}

// A plugin whose steps each stay within --timeout still cannot outlast the
// run's deadline; and a run that stopped is the last of --repeat-runs.
TEST(BenchFaultsTest, TheRunsDeadlineStopsAPluginWhoseStepsAreEachWithinTheTimeout) {
  const auto started = std::chrono::steady_clock::now();
  const auto result = RunSectl(Command(
      {"bench", "memcpy", StallingPlugin(), "--sizes", "4KiB:1MiB", "--direction", "h2d", "--mode",
       "async", "--timeout", "3", "--deadline", "4", "--repeat-runs", "3", "--report", "json"}));
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_LT(took.count(), 12) << "the bench ran on past its deadline";
  const auto report = ParseJson(result);
  ASSERT_TRUE(report["stopped"].is_string()) << report.dump(2);
  EXPECT_TRUE(report["stopped"].get<std::string>().starts_with(
      "the run's deadline of 4 s (--deadline) passed before "))
      << report["stopped"];
  EXPECT_EQ(report["runs"], 1) << "no run after the one that stopped";
  const auto& results = report["results"];
  ASSERT_EQ(results.size(), 9U);
  EXPECT_TRUE(results[0]["error"].is_null()) << results[0].dump(2);
  EXPECT_EQ(results[8]["error"],
            "the bench stopped before this step: its deadline of 4 s (--deadline) passed")
      << results[8].dump(2);
  for (const auto& measured : results) {
    EXPECT_EQ(measured["warnings"].dump().find("longer than --timeout"), std::string::npos)
        << "no step took longer than --timeout 3: " << measured.dump(2);
  }
}

TEST(BenchFaultsTest, ACrashingPluginIsDiagnosed) {
  const auto result =
      RunSectl(Command({"bench", "memcpy", FixturePlugin("memcpy_crash"), "--sizes", "4KiB"}));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("crashed with SIGSEGV in SP_StreamExecutor.memcpy_htod"),
            std::string::npos)
      << result.err;
}

TEST(BenchCompareTest, TheGatePassesOnItselfAndFailsOnABetterPast) {
#if defined(SECTL_SANITIZED)
  GTEST_SKIP() << "timing under the sanitizers is the sanitizer's: a short budget does not "
                  "settle, and only settled results can regress (the gate's statistics are "
                  "tested on fixed samples in bench_compare_test)";
#endif
  // sectl_minimal copies at enqueue time: at 4 KiB its samples settle
  // within a short budget even on a busy machine, and only a settled
  // ("stable") result can be a regression.
  const std::string saved = TemporaryPath("bench_saved.json");
  const std::vector<std::string> settles = {"--sizes",  "4KiB", "--direction",  "d2d",
                                            "--budget", "0.2",  "--no-progress"};
  std::vector<std::string> baseline = {
      "bench", "memcpy", ReferencePlugin("sectl_minimal"), "--report", "json", "-o", saved};
  baseline.insert(baseline.end(), settles.begin(), settles.end());
  const auto first = RunSectl(baseline);
  ASSERT_EQ(first.exit_code, 0) << first.err;

  // Within a generous tolerance of its own recent past: passes.
  std::vector<std::string> same_command = {"bench",     "memcpy", ReferencePlugin("sectl_minimal"),
                                           "--compare", saved,    "--tolerance",
                                           "99%"};
  same_command.insert(same_command.end(), settles.begin(), settles.end());
  const auto same = RunSectl(same_command);
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;

  // A past a thousand times faster, every sample of it: every result is a
  // regression.
  auto document = nlohmann::json::parse(ReadFile(saved));
  for (auto& entry : document["results"]) {
    for (const char* key : {"median_gbps", "p5_gbps", "p95_gbps", "min_gbps", "max_gbps"})
      entry[key] = entry[key].get<double>() * 1000;
    for (auto& value : entry["values_gbps"]) value = value.get<double>() * 1000;
    entry["stable"] = true;
  }
  std::ofstream(saved) << document.dump();
  std::vector<std::string> slower_command = {"bench", "memcpy", ReferencePlugin("sectl_minimal"),
                                             "--compare", saved};
  slower_command.insert(slower_command.end(), settles.begin(), settles.end());
  const auto slower = RunUntilTheGateFails(slower_command);
  EXPECT_EQ(slower.exit_code, 1) << slower.out << slower.err;
  std::filesystem::remove(saved);
}

// A gate that could judge only a minority of the results neither passes nor
// fails: it says inconclusive, with exit status 3. Built from a saved
// report, not from load: two of its three results are marked not
// measurable (so not comparable), and the third is a thousand times slower
// than any run, so the new run cannot regress against it.
TEST(BenchCompareTest, TheGateIsInconclusiveWhenMostResultsCannotBeJudged) {
  const std::string saved = TemporaryPath("bench_inconclusive.json");
  const std::vector<std::string> sizes = {"--sizes", "4KiB,8KiB,16KiB", "--direction", "d2d"};
  std::vector<std::string> baseline = Command(
      {"bench", "memcpy", ReferencePlugin("sectl_minimal"), "--report", "json", "-o", saved});
  baseline.insert(baseline.end(), sizes.begin(), sizes.end());
  const auto first = RunSectl(baseline);
  ASSERT_EQ(first.exit_code, 0) << first.err;

  auto document = nlohmann::json::parse(ReadFile(saved));
  ASSERT_EQ(document["results"].size(), 3u);
  auto& slow = document["results"][0];
  for (const char* key : {"median_gbps", "p5_gbps", "p95_gbps", "min_gbps", "max_gbps"})
    slow[key] = slow[key].get<double>() / 1000;
  for (auto& value : slow["values_gbps"]) value = value.get<double>() / 1000;
  // Settled in the saved run whatever the machine's load was then. The new
  // run's median may still not settle on a busy machine, which makes that
  // result unjudged too: 3 of 3, still inconclusive.
  slow["stable"] = true;
  for (const int unjudged : {1, 2}) {
    document["results"][unjudged]["not_measurable"] = "signalled done before its bytes arrived";
  }
  std::ofstream(saved) << document.dump();

  std::vector<std::string> gate =
      Command({"bench", "memcpy", ReferencePlugin("sectl_minimal"), "--compare", saved});
  gate.insert(gate.end(), sizes.begin(), sizes.end());
  const auto result = RunSectl(gate);
  EXPECT_EQ(result.exit_code, 3) << result.out << result.err;
  EXPECT_TRUE(
      result.out.find("INCONCLUSIVE: 2 of 3 results could not be judged") != std::string::npos ||
      result.out.find("INCONCLUSIVE: 3 of 3 results could not be judged") != std::string::npos)
      << result.out;
  EXPECT_EQ(result.out.find("REGRESSION"), std::string::npos) << result.out;
  std::filesystem::remove(saved);
}

// The gate catches a plugin whose copies became slower: faulty_copies_25_
// percent_slower is sectl_minimal with every copy spinning to 1.25x its
// time (more at the smallest sizes, where the clock reads add to it).
TEST(BenchCompareTest, TheGateCatchesAPluginThatBecameSlower) {
#if defined(SECTL_SANITIZED)
  GTEST_SKIP() << "timing under the sanitizers is the sanitizer's: a short budget does not "
                  "settle, and only settled results can regress (the gate's statistics are "
                  "tested on fixed samples in bench_compare_test)";
#endif
  const std::string saved = TemporaryPath("bench_minimal.json");
  const std::vector<std::string> sizes = {"--sizes",  "4KiB,16KiB", "--direction",  "h2d,d2h",
                                          "--budget", "0.2",        "--no-progress"};
  std::vector<std::string> baseline = {
      "bench", "memcpy", ReferencePlugin("sectl_minimal"), "--report", "json", "-o", saved};
  baseline.insert(baseline.end(), sizes.begin(), sizes.end());

  std::vector<std::string> slower = {
      "bench", "memcpy",
      std::string(SECTL_FAULTY_PLUGIN_DIR) + "/faulty_copies_25_percent_slower.so", "--compare",
      saved};
  slower.insert(slower.end(), sizes.begin(), sizes.end());
  const auto gate = RunUntilTheGateFails(slower, baseline);
  EXPECT_EQ(gate.exit_code, 1) << gate.out << gate.err;
  EXPECT_NE(gate.out.find("REGRESSION: confirmed: "), std::string::npos) << gate.out;
  EXPECT_NE(gate.out.find("— FAILED"), std::string::npos) << gate.out;
  std::filesystem::remove(saved);
}

// A run disturbed once is not a regression: faulty_copies_slower_in_first_
// process copies 25% slower in the first process that uses its file only.
// The gate re-measures what looked regressed in fresh processes, which run
// at full speed, and passes; with --confirm-runs 0 the disturbed run alone
// fails it.
TEST(BenchCompareTest, TheGateReMeasuresARunDisturbedOnceAndPasses) {
#if defined(SECTL_SANITIZED)
  GTEST_SKIP() << "timing under the sanitizers is the sanitizer's (see above)";
#endif
  const std::string saved = TemporaryPath("bench_disturbed_baseline.json");
  const std::vector<std::string> sizes = {"--sizes",  "4KiB,16KiB", "--direction",  "h2d,d2h",
                                          "--budget", "0.2",        "--no-progress"};
  std::vector<std::string> baseline = {
      "bench", "memcpy", ReferencePlugin("sectl_minimal"), "--report", "json", "-o", saved};
  baseline.insert(baseline.end(), sizes.begin(), sizes.end());

  const std::filesystem::path directory = TemporaryPath("bench_disturbed");
  const std::filesystem::path plugin = directory / "disturbed_once.so";
  // A fresh copy of the plugin (and no "<plugin>.slowed" beside it) is slow
  // in its first process again.
  auto disturbed_gate = [&](const std::vector<std::string>& extra) {
    std::filesystem::remove_all(directory);
    std::filesystem::create_directories(directory);
    std::filesystem::copy_file(
        std::string(SECTL_FAULTY_PLUGIN_DIR) + "/faulty_copies_slower_in_first_process.so", plugin);
    // At 4 and 16 KiB the disturbed run is about 2x slower (bench_faults.c),
    // far beyond a 30% tolerance, which in turn leaves the re-measurements
    // room for a busy machine.
    // The plugin marks its first process with a file beside itself.
    std::vector<std::string> command = {"bench",
                                        "memcpy",
                                        plugin.string(),
                                        "--compare",
                                        saved,
                                        "--tolerance",
                                        "30%",
                                        "--plugin-writes",
                                        plugin.string() + ".slowed"};
    command.insert(command.end(), sizes.begin(), sizes.end());
    command.insert(command.end(), extra.begin(), extra.end());
    return RunSectl(command);
  };
  // Only a settled result can regress; on a busy machine a short first run
  // sometimes does not settle, or the baseline is slowed too, so a few
  // tries, each with a fresh baseline, find one that shows the disturbed
  // run. That baseline is kept for the gate that re-measures.
  CommandResult unconfirmed;
  CommandResult confirmed;
  for (int attempt = 0; attempt < 5; ++attempt) {
    ASSERT_EQ(RunSectl(baseline).exit_code, 0);
    unconfirmed = disturbed_gate({"--confirm-runs", "0"});
    if (unconfirmed.exit_code == 1) break;
  }
  EXPECT_EQ(unconfirmed.exit_code, 1) << unconfirmed.out << unconfirmed.err;
  EXPECT_NE(unconfirmed.out.find("REGRESSION"), std::string::npos) << unconfirmed.out;
  // A re-measurement slowed by a neighbouring test can confirm one result
  // while another is not confirmed: a try counts when the whole gate passed.
  const auto not_confirmed = [](const std::string& out) {
    return out.find("within tolerance: not confirmed") != std::string::npos ||
           out.find("within noise: not confirmed") != std::string::npos ||
           out.find("unstable: not confirmed") != std::string::npos;
  };
  for (int attempt = 0; attempt < 5; ++attempt) {
    confirmed = disturbed_gate({});
    if (confirmed.exit_code == 0 && not_confirmed(confirmed.out)) break;
  }
  EXPECT_EQ(confirmed.exit_code, 0) << confirmed.out << confirmed.err;
  // The fresh runs land within the tolerance, or (one of them slowed by a
  // busy machine) within the noise, or the host's own memcpy slowed as much
  // in the same run (the machine, not the plugin: unstable, not judged):
  // in every case the disturbed run is not confirmed, and nothing is a
  // regression.
  EXPECT_TRUE(not_confirmed(confirmed.out)) << confirmed.out;
  EXPECT_EQ(confirmed.out.find("REGRESSION"), std::string::npos) << confirmed.out;
  EXPECT_NE(confirmed.out.find("— passed"), std::string::npos) << confirmed.out;
  std::filesystem::remove_all(directory);
  std::filesystem::remove(saved);
}

TEST(BenchRepeatRunsTest, ReportsTheMedianOfTheRunsWithEverySample) {
  const auto result =
      RunSectl(Command({"bench", "memcpy", ReferencePlugin("sectl_minimal"), "--sizes", "64KiB",
                        "--direction", "d2d", "--repeat-runs", "3", "--report", "json"}));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto report = ParseJson(result);
  EXPECT_EQ(report["runs"], 3);
  ASSERT_EQ(report["results"].size(), 1u);
  const auto& entry = report["results"][0];
  // At least 5 samples a run, all kept.
  EXPECT_GE(entry["samples"].get<int>(), 15) << entry.dump();
  EXPECT_EQ(entry["values_gbps"].size(), entry["samples"].get<size_t>()) << entry.dump();

  const auto latency = RunSectl(Command({"bench", "latency", ReferencePlugin("sectl_minimal"),
                                         "--repeat-runs", "2", "--report", "json"}));
  ASSERT_EQ(latency.exit_code, 0) << latency.err;
  const auto latency_report = ParseJson(latency);
  EXPECT_EQ(latency_report["runs"], 2);
  EXPECT_GE(latency_report["latency"][0]["values_ns"].size(), 10u);

  const auto zero = RunSectl({"bench", "memcpy", "--repeat-runs", "0"});
  EXPECT_EQ(zero.exit_code, 2) << zero.err;
}

// What is wrong with the command line is found before the measurement: on
// a plugin that hangs in its first copy, a measurement would not end before
// the test's deadline.
TEST(BenchUsageTest, BadOutputsAndSavedReportsAreRefusedBeforeMeasuring) {
  TemporaryDirectory directory("sectl-bench-usage-");
  ASSERT_FALSE(directory.path().empty());
  const std::string malformed = (directory.path() / "malformed.json").string();
  std::ofstream(malformed) << "{\"kind\": \"sectl.bench.memcpy\", ";
  const std::string conform = (directory.path() / "conform.json").string();
  std::ofstream(conform) << R"({"schema_version": 1, "kind": "sectl.conform"})";
  const std::string latency = (directory.path() / "latency.json").string();
  const auto latency_run = RunSectl(Command(
      {"bench", "latency", ReferencePlugin("sectl_minimal"), "--report", "json", "-o", latency}));
  ASSERT_EQ(latency_run.exit_code, 0) << latency_run.err;
  // Saved memcpy reports no run can be compared with: one whose every result
  // is null (an edited or broken file), one that holds a result twice.
  const std::string memcpy_report = (directory.path() / "memcpy.json").string();
  const auto memcpy_run =
      RunSectl(Command({"bench", "memcpy", ReferencePlugin("sectl_minimal"), "--sizes", "4KiB",
                        "--report", "json", "-o", memcpy_report}));
  ASSERT_EQ(memcpy_run.exit_code, 0) << memcpy_run.err;
  nlohmann::json saved = nlohmann::json::parse(std::ifstream(memcpy_report));
  nlohmann::json all_null = saved;
  for (nlohmann::json& result : all_null["results"]) {
    for (const char* key : {"median_gbps", "p5_gbps", "p95_gbps", "min_gbps", "max_gbps"}) {
      result[key] = nullptr;
    }
    result["values_gbps"] = nlohmann::json::array();
  }
  const std::string nulls = (directory.path() / "nulls.json").string();
  std::ofstream(nulls) << all_null.dump();
  nlohmann::json twice = saved;
  twice["results"].push_back(twice["results"][0]);
  const std::string duplicated = (directory.path() / "twice.json").string();
  std::ofstream(duplicated) << twice.dump();

  struct Case {
    std::vector<std::string> flags;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"--plot", "x.png"}, "SVG only; give a file name ending in .svg"},
      {{"--plot", "/nonexistent-sectl-dir/x.svg"},
       "the directory /nonexistent-sectl-dir does not exist"},
      {{"-o", "/nonexistent-sectl-dir/run.json"}, "-o /nonexistent-sectl-dir/run.json"},
      {{"-o", "/etc/hostname/run.json"}, "/etc/hostname is not a directory"},
      {{"-o", directory.path().string()}, "is a directory"},
      {{"--compare", (directory.path() / "missing.json").string()}, "no such file"},
      {{"--compare", malformed}, "not JSON"},
      {{"--compare", conform}, "its kind is \"sectl.conform\""},
      {{"--compare", latency}, "cannot compare a latency report with a memcpy report"},
      {{"--compare", nulls}, "results holds a measurement (each is an error or not measurable)"},
      {{"--compare", duplicated}, "the old report holds h2d pinned async 4 KiB twice"},
      {{"--sizes", "1TiB"}, "the largest size it can measure is"},
  };
  for (const Case& bad : cases) {
    std::vector<std::string> command = {"bench", "memcpy", FixturePlugin("memcpy_hang"),
                                        "--no-progress"};
    command.insert(command.end(), bad.flags.begin(), bad.flags.end());
    RunOptions options;
    options.directory = directory.path().string();  // where x.png would go
    options.deadline = std::chrono::seconds(30);
    options.own_process_group = true;
    const auto result = RunSectl(command, options);
    EXPECT_FALSE(result.timed_out) << bad.flags[0] << ": it measured first";
    EXPECT_EQ(result.exit_code, 2) << bad.flags[0] << " " << result.err;
    EXPECT_NE(result.err.find(bad.says), std::string::npos) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_TRUE(result.out.empty()) << result.out;
  }
  EXPECT_FALSE(std::filesystem::exists(directory.path() / "x.png"));
}

TEST(BenchUsageTest, ATvmPluginIsRefusedWithoutRecommendingAFlagBenchLacks) {
  const auto result = RunSectl(Command({"bench", "memcpy", ReferencePlugin("sectl_woofles")}));
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find("sectl bench measures StreamExecutor plugins only"), std::string::npos)
      << result.err;
  EXPECT_EQ(result.err.find("--abi"), std::string::npos) << result.err;
  EXPECT_TRUE(result.out.empty()) << result.out;
}

TEST(BenchUsageTest, BadInputIsAOneLineErrorWithExitStatus2) {
  const std::vector<std::vector<std::string>> bad = {
      {"bench", "memcpy", "--sizes", "lots"},
      {"bench", "memcpy", "--direction", "sideways"},
      {"bench", "memcpy", "--compare", "/nonexistent/old.json"},
      {"bench", "memcpy", "--tolerance", "many"},
      {"bench", "latency", "--report", "xml"},
  };
  for (const auto& command : bad) {
    const auto result = RunSectl(command);
    EXPECT_EQ(result.exit_code, 2) << command[1] << " " << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_TRUE(result.out.empty()) << result.out;
  }
}

// `sectl bench` without a benchmark is answered with the usage line and
// the benchmarks there are.
TEST(BenchUsageTest, BenchAloneNamesTheBenchmarks) {
  const auto result = RunSectl({"bench"});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_EQ(result.err.rfind("Usage: sectl bench", 0), 0u) << result.err;
  EXPECT_NE(result.err.find("Commands: memcpy, latency"), std::string::npos) << result.err;
}

// An unknown choice says which choices there are.
TEST(BenchUsageTest, AnUnknownChoiceListsTheValidOnes) {
  struct Case {
    std::vector<std::string> command;
    std::string valid;
  };
  for (const Case& bad :
       {Case{{"bench", "memcpy", "--direction", "sideways"}, "give h2d, d2h, d2d"},
        Case{{"bench", "memcpy", "--host-memory", "cached"}, "give pinned, pageable, both or auto"},
        Case{{"bench", "memcpy", "--mode", "eager"}, "give async, sync or both"}}) {
    const auto result = RunSectl(bad.command);
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_NE(result.err.find(bad.valid), std::string::npos) << result.err;
  }
}

}  // namespace
}  // namespace sectl::testing
