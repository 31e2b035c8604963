// Each fault in copies and fills is caught by exactly its check.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "faulty_plugin_test.h"
#include "sectl_process.h"

namespace sectl::testing {
namespace {

class CopyFaults : public ::testing::TestWithParam<FaultCase> {};

// Under AddressSanitizer every copy of dtoh_reads_past_end that overruns a
// heap block is stopped there, not only the one memcpy.dtoh puts before a
// guard page: the sanitized build catches this fault more widely.
//
// memcpy.zero_size tests every form, memcpy_dtoh among them, and sets and
// reads its allocation through the stream copies first (the synchronous ones
// are those seen crashing in the field): memcpy_dtoh's read past the end of
// that allocation crashes it too, blamed on memcpy_dtoh all the same.
#if defined(SECTL_SANITIZED)
const std::vector<std::string> kOverrunAlsoCaughtBySanitizers = {"callback.after_earlier_work",
                                                                 "concurrency.streams_in_parallel",
                                                                 "memcpy.sync_dtoh",
                                                                 "memcpy.sync_htod",
                                                                 "memcpy.zero_size",
                                                                 "stream.in_order",
                                                                 "stream.status_ok_when_healthy"};
#else
const std::vector<std::string> kOverrunAlsoCaughtBySanitizers = {"memcpy.zero_size"};
#endif
const FaultCase kDtohReadsPastEnd{
    "dtoh_reads_past_end", "memcpy.dtoh", "crash", {}, kOverrunAlsoCaughtBySanitizers};

TEST_P(CopyFaults, AreCaughtByExactlyTheirCheck) { ExpectCaughtByExactlyItsCheck(GetParam()); }

INSTANTIATE_TEST_SUITE_P(
    Faults, CopyFaults,
    ::testing::Values(FaultCase{"htod_drops_last_byte", "memcpy.htod", "fail"},
                      FaultCase{"corrupt_dtoh", "memcpy.dtoh", "fail"},
                      // The byte past the end lands on the guard page after the host buffer.
                      kDtohReadsPastEnd,  // more checks catch it in sanitized builds
                      FaultCase{"dtod_ignores_offset", "memcpy.dtod", "fail"},
                      FaultCase{"sync_htod_truncates", "memcpy.sync_htod", "fail"},
                      FaultCase{"sync_dtoh_stale", "memcpy.sync_dtoh", "fail"},
                      // Required only where TensorFlow calls sync_memcpy_dtod (up to 2.15).
                      FaultCase{
                          "sync_dtod_wrong", "memcpy.sync_dtod", "fail", {"--tf-version", "2.10"}},
                      // TensorFlow never copies 0 bytes: a crash there is a warning.
                      FaultCase{"zero_size_crash", "memcpy.zero_size", "warn"},
                      FaultCase{"mem_zero_partial", "fill.mem_zero", "fail"},
                      // TensorFlow never calls memset itself: a recommendation.
                      FaultCase{"memset_wrong_pattern", "fill.memset", "warn"},
                      FaultCase{"memset32_element_count", "fill.memset32", "fail"}),
    [](const auto& info) { return info.param.fault; });

// ---- Severities grounded in TensorFlow's sources (docs/tensorflow-source-notes.md)

// The one result of `sectl conform --filter CHECK` on faulty_<fault>.so under
// --tf-version `generation`, with the run's exit status.
struct FilteredRun {
  nlohmann::json result;
  int exit_code = -1;
};

FilteredRun RunOneCheck(const std::string& fault, const std::string& check,
                        const std::string& generation) {
  const CommandResult run =
      RunSectl({"conform", FaultyPlugin(fault), "--filter", check, "--tf-version", generation,
                "--report", "json", "--no-throughput"});
  const auto report = nlohmann::json::parse(run.out, nullptr, false);
  for (const auto& result : report.value("results", nlohmann::json::array())) {
    if (result.value("id", "") == check) return {result, run.exit_code};
  }
  ADD_FAILURE() << "no result for " << check << ": " << run.out << run.err;
  return {};
}

// TensorFlow 2.5 to 2.15 call sync_memcpy_dtod without a null check; the
// newest stream_executor.cc never calls it.
TEST(CopySeverities, SyncDtodIsRequiredOnlyWhereTensorFlowCallsIt) {
  for (const char* generation : {"2.5", "2.7", "2.10"}) {
    const FilteredRun run = RunOneCheck("sync_dtod_wrong", "memcpy.sync_dtod", generation);
    EXPECT_EQ(run.result.value("status", ""), "fail") << generation << run.result.dump(2);
    EXPECT_EQ(run.result.value("severity", ""), "required") << generation << run.result.dump(2);
    EXPECT_EQ(run.exit_code, 1) << generation;
  }
  const FilteredRun latest = RunOneCheck("sync_dtod_wrong", "memcpy.sync_dtod", "latest");
  EXPECT_EQ(latest.result.value("severity", ""), "recommended") << latest.result.dump(2);
  EXPECT_EQ(latest.exit_code, 0) << latest.result.dump(2);
  EXPECT_NE(latest.result.value("severity_reason", "").find("sync_memcpy_dtod(&device_"),
            std::string::npos)
      << "the reason quotes TensorFlow's call: " << latest.result.dump(2);
}

// pluggable_device_util.cc copies a tensor only `if (total_bytes > 0)`.
TEST(CopySeverities, ZeroSizeCopiesAreRecommendedUnderEveryGeneration) {
  const CommandResult explained = RunSectl({"explain", "memcpy.zero_size", "--format", "json"});
  const auto check = nlohmann::json::parse(explained.out, nullptr, false);
  ASSERT_TRUE(check.is_array() && check.size() == 1U) << explained.out << explained.err;
  EXPECT_EQ(check[0]["severity"], "recommended") << check.dump(2);
  EXPECT_NE(check[0]["severity_reason"].get<std::string>().find("total_bytes > 0"),
            std::string::npos)
      << check.dump(2);
  EXPECT_EQ(check[0]["severity_reason"].get<std::string>().find("like any other"),
            std::string::npos)
      << check.dump(2);
  // (The minimal plugin under it needs TensorFlow 2.7's SP_StreamExecutor.)
  for (const char* generation : {"2.7", "latest"}) {
    const FilteredRun run = RunOneCheck("zero_size_crash", "memcpy.zero_size", generation);
    // It crashed, in calls TensorFlow never makes: a warning that says so.
    EXPECT_EQ(run.result.value("status", ""), "warn") << generation << run.result.dump(2);
    EXPECT_EQ(run.result.value("observed_status", ""), "crash") << run.result.dump(2);
    EXPECT_EQ(run.result.value("severity", ""), "recommended") << generation << run.result.dump(2);
    EXPECT_EQ(run.exit_code, 0) << generation;
  }
}

class FieldCopyFaults : public ::testing::TestWithParam<FieldCase> {};

TEST_P(FieldCopyFaults, AreCaughtBehindOtherBrokenFunctions) { ExpectFieldVerdicts(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Field, FieldCopyFaults,
                         ::testing::Values(
                             // Every check that seeds buffers with the crashing sync_memcpy_htod is
                             // run again with memcpy_htod plus a wait: memcpy.htod then finds its
                             // interior defect, and the copies and fills that work pass.
                             FieldCase{"sync_htod_crash",
                                       {{"memcpy.sync_htod", "crash"},
                                        {"memcpy.htod", "fail"},
                                        {"memcpy.dtoh", "pass"},
                                        {"memcpy.dtod", "pass"},
                                        {"memcpy.sync_dtoh", "pass"},
                                        {"fill.mem_zero", "pass"},
                                        {"fill.memset32", "pass"}},
                                       {"SP_StreamExecutor.sync_memcpy_htod"}},
                             // Fills that do nothing are found although host callbacks are broken
                             // (which every check that tests host_callback reports).
                             FieldCase{"mem_zero_noop",
                                       {{"fill.mem_zero", "fail"},
                                        {"callback.enqueued", "fail"},
                                        {"callback.called_once", "fail"},
                                        {"callback.after_earlier_work", "fail"},
                                        {"callback.error_reaches_stream", "fail"}},
                                       {"SP_StreamExecutor.host_callback"}},
                             // TensorFlow never calls the 8-bit memset: a warning.
                             FieldCase{"memset_noop",
                                       {{"fill.memset", "warn"},
                                        {"callback.enqueued", "fail"},
                                        {"callback.called_once", "fail"},
                                        {"callback.after_earlier_work", "fail"},
                                        {"callback.error_reaches_stream", "fail"}},
                                       {"SP_StreamExecutor.host_callback"}}),
                         [](const auto& info) { return info.param.fault; });

// Issue 29, item 5: a plugin whose only defect is that both device-to-host
// copies corrupt a byte. Every observation writes through a host-to-device
// copy and reads back through a device-to-host one, so the evidence cannot
// tell a corrupt read from a corrupt write: the root causes say so, once,
// instead of blaming whichever copy a check tests (or the allocator), and
// the first problem is never cut inside its parentheses.
TEST(CorruptEveryDtoH, RootCausesSayWhatTheEvidenceCannotTellApart) {
  const std::vector<std::string> arguments = {"conform",         FaultyPlugin("corrupt_every_dtoh"),
                                              "--filter",        "memcpy.*:fill.*",
                                              "--no-throughput", "--color=never"};
  std::vector<std::string> as_json = arguments;
  as_json.insert(as_json.end(), {"--report", "json"});
  const CommandResult run = RunSectl(as_json);
  EXPECT_EQ(run.exit_code, 1) << run.err;
  const auto report = nlohmann::json::parse(run.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << run.out << run.err;
  const nlohmann::json& causes = report["root_causes"];
  ASSERT_EQ(causes.size(), 1u) << causes.dump(2);
  const nlohmann::json& cause = causes[0];
  EXPECT_EQ(cause["function"], "SP_StreamExecutor.memcpy_dtoh") << cause.dump(2);
  std::vector<std::string> others = cause["cannot_tell_from"];
  std::sort(others.begin(), others.end());
  EXPECT_EQ(others, (std::vector<std::string>{"SP_StreamExecutor.memcpy_htod",
                                              "SP_StreamExecutor.sync_memcpy_dtoh",
                                              "SP_StreamExecutor.sync_memcpy_htod"}))
      << cause.dump(2);
  EXPECT_NE(cause["cannot_tell_why"].get<std::string>().find("read back through a device-to-host"),
            std::string::npos)
      << cause.dump(2);
  const std::string first_problem = cause["first_problem"];
  EXPECT_EQ(std::count(first_problem.begin(), first_problem.end(), '('),
            std::count(first_problem.begin(), first_problem.end(), ')'))
      << first_problem;
  // A check that tests several copies (memcpy.zero_size, recommended: a
  // warning that observed a failure) joins the same root cause rather than
  // failing without a culprit.
  const std::vector<std::string> failed = cause["failed"];
  EXPECT_NE(std::find(failed.begin(), failed.end(), "memcpy.zero_size"), failed.end())
      << cause.dump(2);
  // No check blames the allocator or a host-to-device copy on its own.
  for (const auto& result : report["results"]) {
    for (const auto& culprit : result["culprits"]) {
      EXPECT_EQ(culprit, "SP_StreamExecutor.memcpy_dtoh") << result.dump(2);
    }
  }

  const CommandResult table = RunWithColumns(arguments, "80");
  EXPECT_EQ(table.exit_code, 1) << table.err;
  const size_t section = table.out.find("Root causes\n");
  ASSERT_NE(section, std::string::npos) << table.out;
  const std::string causes_text =
      table.out.substr(section, table.out.find("\n\n", section) - section);
  EXPECT_NE(causes_text.find("  cannot tell SP_StreamExecutor.memcpy_dtoh from sync_memcpy_dtoh,"),
            std::string::npos)
      << causes_text;
  EXPECT_NE(causes_text.find("every observation wrote through a host-to-device copy"),
            std::string::npos)
      << causes_text;
  EXPECT_EQ(std::count(causes_text.begin(), causes_text.end(), '('),
            std::count(causes_text.begin(), causes_text.end(), ')'))
      << causes_text;
  // One root cause: the other suspects are named in its line, not as causes.
  size_t cause_lines = 0;
  for (const std::string& line : LinesOf(causes_text)) {
    cause_lines += line.starts_with("  ") && !line.starts_with("   ");
  }
  EXPECT_EQ(cause_lines, 1u) << causes_text;
}

}  // namespace
}  // namespace sectl::testing
