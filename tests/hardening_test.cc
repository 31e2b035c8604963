// sectl against plugins that misbehave the way untrusted code might: crashes
// in every phase, memory and CPU exhaustion, forks, threads, signal
// dispositions, stolen descriptors, and snooping on the environment, stdin
// and the terminal. In each case the run completes, the report is valid and
// complete, and the result names what happened (docs/failure-modes.md).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "sectl_process.h"

namespace sectl {
namespace {

using nlohmann::json;
using testing::CommandResult;
using testing::FixturePlugin;
using testing::RunSectl;

// Sanitizers reserve terabytes of shadow memory as private writable
// mappings, which RLIMIT_DATA counts: under them no limit short of that
// leaves room for a single allocation.
#if defined(SECTL_SANITIZED)
constexpr bool kMemoryLimitsWork = false;
#else
constexpr bool kMemoryLimitsWork = true;
#endif

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// `sectl conform --report json` of one check of a fixture; the JSON report.
json ConformOneCheck(const std::string& fixture, const std::string& check,
                     std::vector<std::string> extra, int expected_exit) {
  std::vector<std::string> arguments{
      "conform", FixturePlugin(fixture), "--report", "json", "--filter", check, "--jobs",
      "1",       "--no-throughput"};
  arguments.insert(arguments.end(), extra.begin(), extra.end());
  const CommandResult result = RunSectl(arguments);
  EXPECT_EQ(result.exit_code, expected_exit) << result.err;
  try {
    return json::parse(result.out);
  } catch (const json::exception& error) {
    ADD_FAILURE() << "stdout is not a JSON report: " << error.what() << "\n" << result.out;
    return json::object();
  }
}

json OnlyResult(const json& report) {
  if (!report.contains("results") || report["results"].size() != 1) {
    ADD_FAILURE() << "expected exactly one result:\n" << report.dump(2);
    return json::object();
  }
  return report["results"][0];
}

std::string MessageOf(const json& result) { return result.value("message", std::string()); }
std::string LogOf(const json& result) { return result.value("log", std::string()); }

// ---- crashes in every phase -------------------------------------------------

TEST(Hardening, ACrashWhileLoadingIsALoadErrorNamingTheSignal) {
  const json report = ConformOneCheck("untrusted_crash_on_load", "memcpy.htod", {}, 1);
  ASSERT_TRUE(report["load_error"].is_string()) << report.dump(2);
  EXPECT_TRUE(Contains(report["load_error"], "crashed with SIGSEGV")) << report["load_error"];

  const CommandResult probe = RunSectl({"probe", FixturePlugin("untrusted_crash_on_load")});
  EXPECT_EQ(probe.exit_code, 1);
  EXPECT_TRUE(Contains(probe.err, "crashed with SIGSEGV")) << probe.err;
  EXPECT_EQ(std::count(probe.err.begin(), probe.err.end(), '\n'), 1) << probe.err;
}

// memcpy.htod only uses create_device and destroy_device: a crash there
// blocks it, naming the call and the checks that test the function (which
// fail; the exit status is theirs to decide).
TEST(Hardening, ACrashInCreateDeviceBlocksACheckThatOnlyUsesItNamingTheCall) {
  // A required check that could not run proves nothing: the run fails.
  const json report = ConformOneCheck("untrusted_crash_in_create_device", "memcpy.htod", {}, 1);
  const json result = OnlyResult(report);
  EXPECT_EQ(result["status"], "blocked") << result.dump(2);
  EXPECT_TRUE(Contains(MessageOf(result), "SIGSEGV in SP_PlatformFns.create_device"))
      << MessageOf(result);
  EXPECT_EQ(result["culprits"], json::array({"SP_PlatformFns.create_device"}));
  EXPECT_FALSE(result["blocked_by_checks"].empty());

  const json tested =
      ConformOneCheck("untrusted_crash_in_create_device", "device.create_every_ordinal", {}, 1);
  EXPECT_EQ(OnlyResult(tested)["status"], "crash") << tested.dump(2);
}

TEST(Hardening, ACrashInTeardownBlocksACheckThatOnlyUsesItNamingTheCall) {
  const json report = ConformOneCheck("untrusted_crash_in_destroy_device", "memcpy.htod", {}, 1);
  const json result = OnlyResult(report);
  EXPECT_EQ(result["status"], "blocked") << result.dump(2);
  EXPECT_TRUE(Contains(MessageOf(result), "SIGSEGV in SP_PlatformFns.destroy_device"))
      << MessageOf(result);
}

// ---- resource exhaustion ----------------------------------------------------

TEST(Hardening, MemoryExhaustionUnderALimitIsReportedAsSuch) {
  if (!kMemoryLimitsWork) GTEST_SKIP() << "RLIMIT_DATA cannot be enforced under a sanitizer";
  const json report =
      ConformOneCheck("untrusted_hog", "memcpy.htod", {"--memory-limit", "256MiB"}, 1);
  const json result = OnlyResult(report);
  EXPECT_EQ(result["status"], "crash") << result.dump(2);
  EXPECT_TRUE(MessageOf(result).starts_with("exceeded --memory-limit 256MiB")) << MessageOf(result);
  EXPECT_TRUE(Contains(MessageOf(result), "in SP_StreamExecutor.memcpy_htod")) << MessageOf(result);
  EXPECT_TRUE(result["details"].contains("resource_limit"));
}

TEST(Hardening, CpuExhaustionUnderALimitIsATimeoutNamingTheLimit) {
  const json report = ConformOneCheck("untrusted_spin", "memcpy.htod", {"--cpu-limit", "1"}, 1);
  const json result = OnlyResult(report);
  EXPECT_EQ(result["status"], "timeout") << result.dump(2);
  EXPECT_TRUE(
      MessageOf(result).starts_with("exceeded --cpu-limit 1 s of CPU time (killed by SIGXCPU"))
      << MessageOf(result);
  EXPECT_TRUE(Contains(MessageOf(result), "in SP_StreamExecutor.memcpy_htod")) << MessageOf(result);
}

TEST(Hardening, LimitsThatDoNotBiteChangeNothing) {
  if (!kMemoryLimitsWork) GTEST_SKIP() << "RLIMIT_DATA cannot be enforced under a sanitizer";
  const json report = ConformOneCheck("untrusted_threads", "memcpy.*",
                                      {"--memory-limit", "1GiB", "--cpu-limit", "60"}, 0);
  for (const json& result : report["results"]) {
    EXPECT_TRUE(result["status"] == "pass" || result["status"] == "skip") << result.dump(2);
  }
}

TEST(Hardening, MalformedLimitsAreOneLineUsageErrors) {
  for (const std::vector<std::string>& flags : {std::vector<std::string>{"--memory-limit", "lots"},
                                                std::vector<std::string>{"--memory-limit", "0"},
                                                std::vector<std::string>{"--cpu-limit", "0"},
                                                std::vector<std::string>{"--pass-env", "A=B"}}) {
    std::vector<std::string> arguments{"conform"};
    arguments.insert(arguments.end(), flags.begin(), flags.end());
    const CommandResult result = RunSectl(arguments);
    EXPECT_EQ(result.exit_code, 2) << flags[0] << " " << flags[1] << ": " << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_TRUE(result.out.empty()) << result.out;
  }
}

// A number out of range, NaN or infinite is refused before anything runs:
// `--timeout 1e17` once became a negative deadline, and -j 100000 as many
// processes.
TEST(Hardening, NumericFlagsOutOfRangeAreOneLineUsageErrors) {
  const std::vector<std::vector<std::string>> refused{{"probe", "--timeout", "1e17"},
                                                      {"probe", "--timeout", "nan"},
                                                      {"probe", "--timeout", "-1"},
                                                      {"probe", "--timeout", "inf"},
                                                      {"conform", "--timeout", "0"},
                                                      {"conform", "--timeout", "NaN"},
                                                      {"conform", "--jobs", "100000"},
                                                      {"conform", "--jobs", "-1"},
                                                      {"conform", "--repeat", "0"},
                                                      {"conform", "--repeat", "1e9"},
                                                      {"conform", "--device", "-1"},
                                                      {"conform", "--cpu-limit", "1e17"},
                                                      {"conform", "--cpu-limit", "-5"},
                                                      {"bench", "latency", "--budget", "nan"},
                                                      {"bench", "latency", "--device", "-1"},
                                                      {"bench", "memcpy", "--timeout", "1e300"},
                                                      {"bench", "memcpy", "--timeout", "-inf"}};
  for (const std::vector<std::string>& arguments : refused) {
    const CommandResult result = RunSectl(arguments);
    const std::string& flag = arguments[arguments.size() - 2];
    const std::string& value = arguments.back();
    EXPECT_EQ(result.exit_code, 2) << flag << " " << value << ": " << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_TRUE(Contains(result.err, flag + ": expected ")) << result.err;
    EXPECT_TRUE(Contains(result.err, "not '" + value + "'")) << result.err;
    EXPECT_TRUE(result.out.empty()) << result.out;
  }
  // The ends of each range are accepted.
  const CommandResult widest = RunSectl({"conform", "--list", "--timeout", "1000000", "-j", "1024",
                                         "--repeat", "10000", "--cpu-limit", "1000000"});
  EXPECT_EQ(widest.exit_code, 0) << widest.err;
  const CommandResult narrowest =
      RunSectl({"conform", "--list", "--timeout", "0.001", "-j", "0", "--repeat", "1"});
  EXPECT_EQ(narrowest.exit_code, 0) << narrowest.err;
}

// ---- processes, threads, signals --------------------------------------------

TEST(Hardening, AGrandchildLeftBehindIsKilledWithItsCheck) {
  const json report = ConformOneCheck("untrusted_fork", "memcpy.htod", {}, 0);
  const json result = OnlyResult(report);
  // The copies themselves are right; what the plugin left running is a warning.
  EXPECT_EQ(result["status"], "warn") << result.dump(2);
  EXPECT_GE(result["details"].value("stray_processes", 0), 1) << result.dump(2);
  EXPECT_TRUE(Contains(result.value("message", ""), "left")) << result.dump(2);
  EXPECT_TRUE(Contains(LogOf(result), "left grandchild ")) << LogOf(result);
  // sectl has exited; the grandchild was killed with its check before
  // that. Allow the kernel a moment to tear it down.
  EXPECT_TRUE(testing::NoProcessNamedRemains("untrusted-stray"))
      << "the grandchild is still running";
}

TEST(Hardening, ThreadsLeftRunningDoNotSpoilTheResultOrTheReport) {
  const json report = ConformOneCheck("untrusted_threads", "memcpy.htod", {}, 0);
  const json result = OnlyResult(report);
  EXPECT_EQ(result["status"], "pass") << result.dump(2);
  EXPECT_TRUE(Contains(LogOf(result), "a thread still running"));
}

TEST(Hardening, SignalDispositionsAndMasksOfThePluginStayInItsProcess) {
  const json report = ConformOneCheck("untrusted_signals", "memcpy.*", {}, 0);
  ASSERT_FALSE(report["results"].empty());
  for (const json& result : report["results"]) {
    EXPECT_TRUE(result["status"] == "pass" || result["status"] == "skip") << result.dump(2);
  }
}

// ---- descriptors, environment, stdin, terminal ------------------------------

TEST(Hardening, APluginThatClosesEveryDescriptorIsACrashSayingSo) {
  const json report = ConformOneCheck("untrusted_close_fds", "memcpy.htod", {}, 1);
  const json result = OnlyResult(report);
  EXPECT_EQ(result["status"], "crash") << result.dump(2);
  EXPECT_TRUE(Contains(MessageOf(result), "closed or replaced the descriptor"))
      << MessageOf(result);
}

TEST(Hardening, APluginThatReplacesSectlsDescriptorIsACrashSayingSo) {
  const json report = ConformOneCheck("untrusted_replace_fds", "memcpy.htod", {}, 1);
  const json result = OnlyResult(report);
  EXPECT_EQ(result["status"], "crash") << result.dump(2);
  EXPECT_TRUE(Contains(MessageOf(result), "closed or replaced the descriptor"))
      << MessageOf(result);
}

TEST(Hardening, ThePluginSeesOnlyAllowedAndPassedEnvironmentNoStdinNoTerminal) {
  ::setenv("SECTL_TEST_SECRET", "hunter2", 1);
  ::setenv("SECTL_TEST_PASSED", "visible", 1);
  const json report = ConformOneCheck("untrusted_snoop", "memcpy.htod",
                                      {"--pass-env", "SECTL_TEST_PASSED", "-v"}, 0);
  ::unsetenv("SECTL_TEST_SECRET");
  ::unsetenv("SECTL_TEST_PASSED");
  const json result = OnlyResult(report);
  EXPECT_EQ(result["status"], "pass") << result.dump(2);
  const std::string log = LogOf(result);
  EXPECT_TRUE(Contains(log, "SECTL_TEST_SECRET=(unset) SECTL_TEST_PASSED=visible")) << log;
  EXPECT_FALSE(Contains(log, "hunter2")) << log;
  EXPECT_TRUE(Contains(log, "stdin read returned 0")) << log;  // /dev/null, not sectl's stdin
  EXPECT_TRUE(Contains(log, "/dev/tty: No such device or address")) << log;  // no terminal
  // The plugin server's own and nothing of the check's: its main, event and
  // crash-report channels, the arena, its copy pipe's two ends and the
  // first lane (docs/plugin-server.md).
  EXPECT_TRUE(Contains(log, "7 descriptors above 2")) << log;
}

}  // namespace
}  // namespace sectl
