// Completion that cannot be believed, end to end: `sectl bench` and conform's
// throughput section on plugins whose wait returns before the copies are
// done, whose host callbacks never run, or whose events never complete
// (reference_plugins/faulty/bench.cmake). They must say "not measurable" and
// why, fail bench's exit status, and end quickly; a plugin that can be
// measured by another route is, with real numbers.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "sectl_process.h"

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SECTL_UNDER_THREAD_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define SECTL_UNDER_THREAD_SANITIZER 1
#endif

namespace sectl::testing {
namespace {

// A wait that returns before the copies are done lets sectl look at memory
// the plugin's worker is still writing: the plugin's race, which
// ThreadSanitizer reports (and fails the measuring process for) as it should.
#if defined(SECTL_UNDER_THREAD_SANITIZER)
#define SKIP_WHERE_THE_PLUGINS_RACE_IS_REPORTED() \
  GTEST_SKIP() << "ThreadSanitizer reports the plugin's own race, which is the fault"
#else
#define SKIP_WHERE_THE_PLUGINS_RACE_IS_REPORTED() static_cast<void>(0)
#endif

using Clock = std::chrono::steady_clock;
using nlohmann::json;

// The bound physical_bounds.h documents for h2d and d2h, in GB/s.
constexpr double kHostSideBoundGbps = 1e6;
// Far more than any of these runs takes (a few seconds on an idle machine)
// and far less than the minutes they took when every sample waited on a
// callback or a wait that lied.
constexpr auto kQuickly = std::chrono::seconds(60);

std::string Faulty(const std::string& fault) {
  return std::string(SECTL_FAULTY_PLUGIN_DIR) + "/faulty_" + fault + ".so";
}

struct Timed {
  CommandResult result;
  Clock::duration took;
};

Timed RunTimed(const std::vector<std::string>& arguments) {
  const auto started = Clock::now();
  CommandResult result = RunSectl(arguments);
  return {std::move(result), Clock::now() - started};
}

json ParseJson(const CommandResult& result) {
  try {
    return json::parse(result.out);
  } catch (const json::exception& error) {
    ADD_FAILURE() << "not JSON: " << error.what() << "\n" << result.out << result.err;
    return json::object();
  }
}

bool Contains(const std::string& text, const std::string& fragment) {
  return text.find(fragment) != std::string::npos;
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

std::vector<std::string> Memcpy(const std::string& plugin, std::vector<std::string> more = {}) {
  std::vector<std::string> arguments = {"bench", "memcpy",   plugin, "--sizes",
                                        "1MiB",  "--budget", "0.05", "--no-progress"};
  arguments.insert(arguments.end(), more.begin(), more.end());
  return arguments;
}

// ---------------------------------------------------------------------------
// bench memcpy

TEST(BenchCompletionTest, AWaitThatReturnsBeforeTheCopiesIsNotMeasurableInEveryFormat) {
  SKIP_WHERE_THE_PLUGINS_RACE_IS_REPORTED();
  const std::string plot = TemporaryPath("not_measurable") + ".svg";
  const std::string html = TemporaryPath("not_measurable") + ".html";
  const Timed json_run = RunTimed(Memcpy(Faulty("block_returns_at_once"),
                                         {"--report", "json", "--plot", plot, "--html", html}));
  EXPECT_EQ(json_run.result.exit_code, 1) << json_run.result.err;
  EXPECT_LT(json_run.took, kQuickly);
  const json report = ParseJson(json_run.result);
  ASSERT_EQ(report["results"].size(), 3u) << report.dump(2);
  for (const json& entry : report["results"]) {
    ASSERT_TRUE(entry["not_measurable"].is_string()) << entry.dump(2);
    EXPECT_TRUE(Contains(entry["not_measurable"], "block_host_until_done returned before"))
        << entry["not_measurable"];
    EXPECT_TRUE(entry["median_gbps"].is_null()) << entry.dump(2);
    EXPECT_TRUE(entry["values_gbps"].empty());
  }
  EXPECT_TRUE(Contains(ReadFile(plot), "3 of 3 results not measurable")) << ReadFile(plot);
  EXPECT_TRUE(Contains(ReadFile(html), "not measurable: ") ||
              Contains(ReadFile(html), ">not measurable<"));
  std::filesystem::remove(plot);
  std::filesystem::remove(html);

  const Timed table = RunTimed(Memcpy(Faulty("block_returns_at_once")));
  EXPECT_EQ(table.result.exit_code, 1);
  EXPECT_TRUE(Contains(table.result.out,
                       "1 MiB  not measurable: block_host_until_done returned "
                       "before"))
      << table.result.out;
  EXPECT_FALSE(Contains(table.result.out, "GB/s, beyond")) << "caught by evidence, not the bound";

  const Timed csv = RunTimed(Memcpy(Faulty("block_returns_at_once"), {"--report", "csv"}));
  EXPECT_EQ(csv.result.exit_code, 1);
  EXPECT_TRUE(Contains(csv.result.out, ",not_measurable\r\n")) << csv.result.out;
  EXPECT_TRUE(Contains(csv.result.out, "block_host_until_done returned before")) << csv.result.out;
}

TEST(BenchCompletionTest, ACallbackThatNeverRunsCostsOneWaitAndTheCopiesAreTimedWithoutIt) {
  // TensorFlow's own test plugin's style: host_callback returns true and
  // drops the callback. On the synchronous minimal base, the gate held
  // nothing and the clock started after every copy: 8 PB/s, and minutes.
  // On the asynchronous cpu base, the gate held nothing either.
  for (const std::string fault : {"callback_never_called", "callback_accepted_never_run"}) {
    const Timed run = RunTimed(Memcpy(Faulty(fault), {"--report", "json"}));
    EXPECT_EQ(run.result.exit_code, 0) << fault << ": " << run.result.err;
    EXPECT_LT(run.took, kQuickly) << fault;
    const json report = ParseJson(run.result);
    ASSERT_EQ(report["results"].size(), 3u) << report.dump(2);
    const double ceiling = report["ceiling"][0]["median_gbps"].get<double>();
    for (const json& entry : report["results"]) {
      EXPECT_TRUE(entry["not_measurable"].is_null()) << entry.dump(2);
      EXPECT_FALSE(entry["enqueue_excluded"].get<bool>()) << "no gate held the stream";
      EXPECT_EQ(entry["verification"], "passed") << entry.dump(2);
      const double median = entry["median_gbps"].get<double>();
      // A copy through host memory at host memory's speed, not petabytes.
      EXPECT_GT(median, 0);
      EXPECT_LT(median, 5 * ceiling) << fault << ": " << entry.dump(2);
      ASSERT_FALSE(entry["warnings"].empty()) << entry.dump(2);
      EXPECT_TRUE(Contains(entry["warnings"][0], "host_callback accepted a callback and never ran"))
          << entry["warnings"];
    }
  }
}

TEST(BenchCompletionTest, TheCpuPluginStillMeasuresWithItsGate) {
  const Timed run = RunTimed(Memcpy(ReferencePlugin("sectl_cpu"), {"--report", "json"}));
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  // The report is named: a range-for over a member of a temporary would
  // iterate freed memory.
  const json report = ParseJson(run.result);
  for (const json& entry : report["results"]) {
    EXPECT_TRUE(entry["not_measurable"].is_null()) << entry.dump(2);
    EXPECT_TRUE(entry["enqueue_excluded"].get<bool>()) << entry.dump(2);
    EXPECT_GT(entry["median_gbps"].get<double>(), 0);
    EXPECT_LT(entry["median_gbps"].get<double>(), kHostSideBoundGbps);
    for (const json& warning : entry["warnings"]) {
      EXPECT_FALSE(Contains(warning, "host_callback")) << warning;
    }
  }
}

TEST(BenchCompletionTest, CompareCallsANotMeasurableResultNotComparable) {
  SKIP_WHERE_THE_PLUGINS_RACE_IS_REPORTED();
  const std::string saved = TemporaryPath("bench_cpu_saved.json");
  const Timed baseline =
      RunTimed(Memcpy(ReferencePlugin("sectl_cpu"), {"--report", "json", "-o", saved}));
  ASSERT_EQ(baseline.result.exit_code, 0) << baseline.result.err;
  const Timed compared =
      RunTimed(Memcpy(Faulty("block_returns_at_once"), {"--compare", saved, "--tolerance", "5%"}));
  EXPECT_EQ(compared.result.exit_code, 1) << "not measurable fails the run itself";
  EXPECT_TRUE(Contains(compared.result.out, "not measurable in the new run"))
      << compared.result.out;
  EXPECT_FALSE(Contains(compared.result.out, "REGRESSION")) << compared.result.out;
  std::filesystem::remove(saved);
}

// ---------------------------------------------------------------------------
// bench latency

TEST(BenchCompletionTest, AnOperationThatNeverCompletesIsNotMeasurable) {
  struct Case {
    std::string fault;
    std::string operation;
    std::string why;
  };
  for (const Case& stalled :
       {Case{"callback_accepted_never_run", "host_callback_round_trip",
             "host_callback accepted a callback on an idle stream and never ran it"},
        Case{"event_never_completes", "event_record_to_complete",
             "get_event_status still answered PENDING"}}) {
    const Timed run = RunTimed({"bench", "latency", Faulty(stalled.fault), "--budget", "0.05",
                                "--no-progress", "--report", "json"});
    EXPECT_EQ(run.result.exit_code, 1) << stalled.fault << ": " << run.result.err;
    EXPECT_LT(run.took, kQuickly);
    const json report = ParseJson(run.result);
    for (const json& entry : report["latency"]) {
      if (entry["operation"] == stalled.operation) {
        ASSERT_TRUE(entry["not_measurable"].is_string()) << entry.dump(2);
        EXPECT_TRUE(Contains(entry["not_measurable"], stalled.why)) << entry["not_measurable"];
        EXPECT_TRUE(entry["median_ns"].is_null());
      } else {
        EXPECT_TRUE(entry["not_measurable"].is_null()) << entry.dump(2);
      }
    }
  }
  // The same plugin's copies are measurable: an event no copy waits for
  // does not fail bench memcpy.
  const Timed memcpy = RunTimed(Memcpy(Faulty("event_never_completes")));
  EXPECT_EQ(memcpy.result.exit_code, 0) << memcpy.result.out << memcpy.result.err;
}

// ---------------------------------------------------------------------------
// conform's throughput section

json Throughput(const std::vector<std::string>& conform_arguments, Clock::duration* took) {
  std::vector<std::string> arguments = {"conform"};
  arguments.insert(arguments.end(), conform_arguments.begin(), conform_arguments.end());
  arguments.insert(arguments.end(), {"--report", "json", "--throughput"});
  const Timed run = RunTimed(arguments);
  if (took != nullptr) *took = run.took;
  return ParseJson(run.result)["throughput"];
}

TEST(ConformThroughputTest, IsSkippedAtOnceWhenTheChecksFoundTheWaitBroken) {
  Clock::duration took{};
  const json throughput = Throughput(
      {Faulty("block_returns_at_once"), "--filter", "stream.block_host_until_done"}, &took);
  ASSERT_TRUE(throughput.is_object()) << throughput.dump(2);
  ASSERT_TRUE(throughput["skipped"].is_string()) << throughput.dump(2);
  EXPECT_EQ(throughput["skipped"],
            "every copy's completion rests on SP_StreamExecutor.block_host_until_done, which is "
            "broken: stream.block_host_until_done failed");
  EXPECT_TRUE(throughput["results"].empty()) << "nothing was started";
  EXPECT_LT(took, kQuickly);
}

TEST(ConformThroughputTest, FindsAWaitThatReturnsEarlyWhenNoCheckDid) {
  SKIP_WHERE_THE_PLUGINS_RACE_IS_REPORTED();
  const json throughput =
      Throughput({Faulty("block_returns_at_once"), "--filter", "device.*"}, nullptr);
  ASSERT_TRUE(throughput.is_object()) << throughput.dump(2);
  ASSERT_TRUE(throughput["skipped"].is_string()) << throughput.dump(2);
  EXPECT_TRUE(Contains(throughput["skipped"], "block_host_until_done returned before"))
      << throughput["skipped"];
  ASSERT_EQ(throughput["results"].size(), 3u);
  for (const json& result : throughput["results"]) {
    EXPECT_TRUE(result["not_measurable"].is_string()) << result.dump(2);
    EXPECT_TRUE(result["median_gbps"].is_null()) << result.dump(2);
  }
}

TEST(ConformThroughputTest, RoutesAroundACallbackTheChecksFoundBroken) {
  // callback.called_once fails on host_callback: the throughput times the
  // copies without its gate, at once, with numbers a machine can reach.
  for (const std::string& filter : {std::string("callback.called_once"), std::string("device.*")}) {
    Clock::duration took{};
    const json throughput =
        Throughput({Faulty("callback_never_called"), "--filter", filter}, &took);
    ASSERT_TRUE(throughput.is_object()) << throughput.dump(2);
    EXPECT_TRUE(throughput["skipped"].is_null()) << throughput.dump(2);
    EXPECT_TRUE(throughput["error"].is_null()) << throughput.dump(2);
    const double ceiling = throughput["ceiling_gbps"].get<double>();
    ASSERT_EQ(throughput["results"].size(), 3u);
    for (const json& result : throughput["results"]) {
      EXPECT_TRUE(result["not_measurable"].is_null()) << result.dump(2);
      EXPECT_LT(result["median_gbps"].get<double>(), 5 * ceiling) << result.dump(2);
    }
    EXPECT_LT(took, kQuickly) << filter;
  }
}

TEST(ConformThroughputTest, TheCpuPluginIsMeasured) {
  const json throughput =
      Throughput({ReferencePlugin("sectl_cpu"), "--filter", "device.count"}, nullptr);
  ASSERT_TRUE(throughput.is_object()) << throughput.dump(2);
  EXPECT_TRUE(throughput["skipped"].is_null());
  ASSERT_EQ(throughput["results"].size(), 3u);
  for (const json& result : throughput["results"]) {
    EXPECT_TRUE(result["not_measurable"].is_null()) << result.dump(2);
    EXPECT_GT(result["median_gbps"].get<double>(), 0) << result.dump(2);
    EXPECT_EQ(result["verification"], "passed");
  }
}

}  // namespace
}  // namespace sectl::testing
