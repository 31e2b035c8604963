// The conformance report's writers and readers: JSON (round trip, and
// validity against the published schema), JUnit XML, the table for people,
// and merging the reports of several shards.
#include "report/conform_report.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>
#include <string>
#include <vector>

#include "base/text.h"
#include "base/text_layout.h"
#include "report/conform_json.h"
#include "report/conform_junit.h"
#include "report/conform_table.h"
#include "report/merge_reports.h"
#include "sectl_process.h"

namespace sectl::report {
namespace {

using nlohmann::json;
using sectl::testing::CommandResult;
using sectl::testing::RunCommand;

// What a plugin might print: a raw control character, a colour escape, and
// every character XML treats specially.
constexpr const char* kNastyLog = "init \x01 done\n\x1b[31mred\x1b[0m <&>\"' end\n";

bool Contains(const std::string& text, const std::string& fragment) {
  return text.find(fragment) != std::string::npos;
}

CheckResult Result(std::string id, CheckStatus status, std::string message = "") {
  CheckResult result;
  result.area = id.substr(0, id.find('.'));
  result.title = "checks " + id;
  result.id = std::move(id);
  result.status = status;
  result.message = std::move(message);
  result.duration_s = 0.25;
  return result;
}

ConformReport EmptyReport() {
  ConformReport report;
  report.tool.version = "0.3.0";
  report.plugin = {"/opt/vendor/libvendor_plugin.so",
                   "3a4f5b6c7d8e9f00112233445566778899aabbccddeeff00112233445566778f",
                   "SE_InitPlugin", "TensorFlow 2.10 or newer header"};
  report.host = {"Linux", "6.1.0-18-amd64", "x86_64", "Example CPU @ 3.0GHz", 16, 68719476736ULL};
  report.command_line = {"sectl", "conform", "/opt/vendor/libvendor_plugin.so", "--format", "json"};
  report.started_at = "2026-11-21T08:00:00Z";
  report.duration_s = 12.5;
  report.profile = "tensorflow";
  report.tf_version = "2.10";
  report.device = "ordinal 0";
  report.subject = "TensorFlow 2.10";
  return report;
}

// Every status, every baseline verdict, a repetition, nested details, a
// long journal and a log full of awkward characters.
ConformReport SampleReport() {
  ConformReport report = EmptyReport();
  CheckResult pass = Result("memcpy.htod.sizes", CheckStatus::kPass);
  pass.details = json::parse(R"({"sizes": [1, 4096, {"bytes": 1048576, "ok": true}],
                                 "device": {"ordinal": 0, "name": "dev0"}, "ratio": 0.1})");
  CheckResult regression = Result("memcpy.dtoh.sizes", CheckStatus::kFail,
                                  "byte 3 of a 4096-byte copy is 0xff, expected 0x00\n"
                                  "TensorFlow reads corrupted tensors");
  regression.baseline = BaselineVerdict::kRegression;
  regression.log = kNastyLog;
  CheckResult expected = Result("memcpy.dtod.sizes", CheckStatus::kFail, "copies are truncated");
  expected.repetition = 1;
  expected.baseline = BaselineVerdict::kExpected;
  expected.baseline_reason = "vendor bug 1234, fixed in 2.1";
  CheckResult warn = Result("stream.sync", CheckStatus::kWarn, "sync takes 2 s");
  warn.severity = CheckSeverity::kRecommended;
  CheckResult skip =
      Result("timer.create", CheckStatus::kSkip, "the plugin has no timer functions");
  skip.severity = CheckSeverity::kInfo;
  CheckResult crash = Result("device.create", CheckStatus::kCrash, "killed by SIGSEGV");
  crash.journal = {"call 1", "call 2", "call 3", "call 4", "call 5", "call 6", "call 7"};
  crash.baseline = BaselineVerdict::kExpired;
  crash.baseline_reason = "until 2026-01-01";
  CheckResult timeout = Result("event.record", CheckStatus::kTimeout, "no answer in 10 s");
  timeout.journal = {"SP_StreamExecutor.record_event"};
  CheckResult fixed = Result("stream.wait", CheckStatus::kPass);
  fixed.baseline = BaselineVerdict::kFixed;
  fixed.baseline_reason = "vendor bug 99";
  CheckResult error = Result("allocator.stats", CheckStatus::kError, "sectl ran out of memory");
  regression.culprits = {"SP_StreamExecutor.memcpy_dtoh"};
  regression.severity_reason = "TensorFlow 2.5 and later read every tensor back through it";
  CheckResult blocked = Result("fill.memset", CheckStatus::kBlocked,
                               "blocked: the process crashed with SIGSEGV in "
                               "SP_StreamExecutor.memcpy_dtoh (call #7)");
  blocked.culprits = {"SP_StreamExecutor.memcpy_dtoh"};
  blocked.blocked_by_checks = {"memcpy.dtoh.sizes"};
  report.results = {pass, regression, expected, warn, skip, crash, timeout, fixed, error, blocked};
  report.summary = Summarize(report.results);
  report.root_causes = SummarizeRootCauses(report.results);
  return report;
}

ConformReport PassingReport() {
  ConformReport report = EmptyReport();
  report.results = {Result("memcpy.htod.sizes", CheckStatus::kPass),
                    Result("timer.create", CheckStatus::kSkip, "no timers")};
  report.summary = Summarize(report.results);
  return report;
}

// A file that is removed when it goes out of scope.
class TempFile {
 public:
  explicit TempFile(const std::string& text)
      : path_(std::filesystem::temp_directory_path() /
              ("conform_report_test." + std::to_string(::getpid()) + "." +
               std::to_string(counter_++) + ".json")) {
    std::ofstream(path_) << text;
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() { std::filesystem::remove(path_); }

  std::string path() const { return path_.string(); }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

// Validates `document` against docs/conform-report.schema.json with the
// system's python3-jsonschema, as a user of the schema would.
CommandResult ValidateAgainstSchema(const std::string& document) {
  constexpr const char* kValidate =
      "import json,jsonschema,sys; "
      "jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))";
  const TempFile file(document);
  return RunCommand({SECTL_SYSTEM_PYTHON, "-c", kValidate, file.path(), SECTL_CONFORM_SCHEMA});
}

void ExpectRejectedBySchema(const json& document) {
  const CommandResult result = ValidateAgainstSchema(document.dump());
  EXPECT_NE(result.exit_code, 0) << document.dump();
  // Refused for the document, not because the validator could not run.
  EXPECT_TRUE(Contains(result.err, "ValidationError")) << result.err;
}

json SampleJson() { return json::parse(ConformReportToJson(SampleReport())); }

std::string FromJsonError(const std::string& text) {
  const Expected<ConformReport> report = ConformReportFromJson(text);
  if (report) return "(no error)";
  return report.error().message();
}

// ---------------------------------------------------------------------------
// JSON

TEST(ConformJson, RoundTripsExactly) {
  for (ConformReport report : {SampleReport(), PassingReport(), EmptyReport()}) {
    report.load_error =
        report.results.empty() ? std::optional<std::string>("no SE_InitPlugin") : std::nullopt;
    const std::string text = ConformReportToJson(report);
    const Expected<ConformReport> read = ConformReportFromJson(text);
    ASSERT_TRUE(read) << read.error().message();
    EXPECT_EQ(ConformReportToJson(*read), text);
    EXPECT_EQ(read->load_error, report.load_error);
  }
}

TEST(ConformJson, KeepsEveryField) {
  const ConformReport sample = SampleReport();
  const Expected<ConformReport> read = ConformReportFromJson(ConformReportToJson(sample));
  ASSERT_TRUE(read) << read.error().message();
  EXPECT_EQ(read->plugin.sha256, sample.plugin.sha256);
  EXPECT_EQ(read->host.memory_bytes, sample.host.memory_bytes);
  EXPECT_EQ(read->command_line, sample.command_line);
  EXPECT_EQ(read->summary.CountOf(CheckStatus::kFail), 2);
  ASSERT_EQ(read->results.size(), sample.results.size());
  for (size_t i = 0; i < sample.results.size(); ++i) {
    const CheckResult& want = sample.results[i];
    const CheckResult& got = read->results[i];
    EXPECT_EQ(got.id, want.id);
    EXPECT_EQ(got.status, want.status);
    EXPECT_EQ(got.severity, want.severity);
    EXPECT_EQ(got.details, want.details);
    EXPECT_EQ(got.log, want.log);
    EXPECT_EQ(got.journal, want.journal);
    EXPECT_EQ(got.repetition, want.repetition);
    EXPECT_EQ(got.baseline, want.baseline);
    EXPECT_EQ(got.duration_s, want.duration_s);
  }
}

// A report with the throughput section that ends a tensorflow-profile run.
ConformReport WithThroughput(ConformReport report) {
  report.throughput = Throughput{.bytes = 16 << 20,
                                 .ceiling_gbps = 12.5,
                                 .results = {{.direction = "h2d",
                                              .host_memory = "pinned",
                                              .median_gbps = 12.0,
                                              .ratio_to_ceiling = 0.96,
                                              .verification = "passed"},
                                             {.direction = "d2d",
                                              .host_memory = "none",
                                              .verification = "",
                                              .error = "preparing buffers: allocate failed"}}};
  return report;
}

TEST(ConformJson, KeepsTheThroughputSection) {
  const ConformReport sample = WithThroughput(PassingReport());
  const std::string text = ConformReportToJson(sample);
  const Expected<ConformReport> read = ConformReportFromJson(text);
  ASSERT_TRUE(read) << read.error().message();
  ASSERT_TRUE(read->throughput.has_value());
  EXPECT_EQ(read->throughput->bytes, sample.throughput->bytes);
  ASSERT_EQ(read->throughput->results.size(), 2u);
  EXPECT_EQ(read->throughput->results[0].median_gbps, 12.0);
  EXPECT_EQ(read->throughput->results[1].error, sample.throughput->results[1].error);
  EXPECT_EQ(ConformReportToJson(*read), text);
  EXPECT_EQ(ValidateAgainstSchema(text).exit_code, 0) << ValidateAgainstSchema(text).err;
}

TEST(ConformJson, ReadsReportsWrittenBeforeTheThroughputSection) {
  auto document = nlohmann::ordered_json::parse(ConformReportToJson(PassingReport()));
  document.erase("throughput");
  const Expected<ConformReport> read = ConformReportFromJson(document.dump());
  ASSERT_TRUE(read) << read.error().message();
  EXPECT_FALSE(read->throughput.has_value());
}

// A report of a run that routed around a host_callback seen not to run.
ConformReport WithLearnedBeforeChecks(ConformReport report) {
  report.learned_before_checks = {
      {"SP_StreamExecutor.host_callback",
       "host_callback accepted a callback on an idle stream (returned true) and had not run it "
       "1 s later"},
      {"SP_StreamExecutor.allocate", "allocate returned no memory for 65536 bytes"}};
  return report;
}

TEST(ConformJson, KeepsWhatWasLearnedBeforeTheChecks) {
  const ConformReport sample = WithLearnedBeforeChecks(SampleReport());
  const std::string text = ConformReportToJson(sample);
  EXPECT_EQ(json::parse(text)["learned_before_checks"][0]["function"],
            "SP_StreamExecutor.host_callback");
  const Expected<ConformReport> read = ConformReportFromJson(text);
  ASSERT_TRUE(read) << read.error().message();
  ASSERT_EQ(read->learned_before_checks.size(), 2u);
  EXPECT_EQ(read->learned_before_checks[1].function, "SP_StreamExecutor.allocate");
  EXPECT_EQ(read->learned_before_checks[1].problem, sample.learned_before_checks[1].problem);
  EXPECT_EQ(ConformReportToJson(*read), text);
  EXPECT_EQ(ValidateAgainstSchema(text).exit_code, 0) << ValidateAgainstSchema(text).err;

  json unknown_key = json::parse(text);
  unknown_key["learned_before_checks"][0]["when"] = "before";
  ExpectRejectedBySchema(unknown_key);
}

TEST(ConformJson, ReadsReportsWrittenBeforeAnythingWasLearnedBeforeTheChecks) {
  auto document =
      nlohmann::ordered_json::parse(ConformReportToJson(WithLearnedBeforeChecks(SampleReport())));
  document.erase("learned_before_checks");
  const Expected<ConformReport> read = ConformReportFromJson(document.dump());
  ASSERT_TRUE(read) << read.error().message();
  EXPECT_TRUE(read->learned_before_checks.empty());
  EXPECT_EQ(ValidateAgainstSchema(document.dump()).exit_code, 0);
}

TEST(ConformTable, ShowsThroughputBeforeTheVerdict) {
  const std::string table = RenderConformTable(WithThroughput(PassingReport()), {});
  EXPECT_TRUE(Contains(table, "Throughput at 16 MiB")) << table;
  EXPECT_TRUE(Contains(table, "h2d pinned")) << table;
  EXPECT_TRUE(Contains(table, "d2d           not measured: preparing buffers")) << table;
  EXPECT_LT(table.find("Throughput"), table.find("conformant")) << table;
}

// A throughput section that could not honestly measure: one path whose
// completion was signalled early, and a section skipped outright.
TEST(ConformThroughput, NotMeasurableAndSkippedAreSaidNotNumbered) {
  constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  ConformReport report = WithThroughput(PassingReport());
  report.throughput->results[0].median_gbps = kNone;
  report.throughput->results[0].ratio_to_ceiling = kNone;
  report.throughput->results[0].not_measurable =
      "block_host_until_done returned before the copy's bytes had arrived";
  const std::string text = ConformReportToJson(report);
  EXPECT_EQ(ValidateAgainstSchema(text).exit_code, 0) << ValidateAgainstSchema(text).err;
  const auto document = nlohmann::json::parse(text);
  EXPECT_TRUE(document["throughput"]["results"][0]["median_gbps"].is_null());
  const Expected<ConformReport> read = ConformReportFromJson(text);
  ASSERT_TRUE(read) << read.error().message();
  EXPECT_EQ(read->throughput->results[0].not_measurable,
            report.throughput->results[0].not_measurable);
  EXPECT_FALSE(read->throughput->results[1].not_measurable);
  const std::string table = RenderConformTable(report, {});
  EXPECT_TRUE(Contains(table, "h2d pinned    not measurable: block_host_until_done returned"))
      << table;
  EXPECT_FALSE(Contains(table, "nan")) << table;

  report.throughput->skipped =
      "every copy's completion rests on SP_StreamExecutor.block_host_until_done, which is "
      "broken: stream.block_host_until_done failed";
  const std::string skipped = ConformReportToJson(report);
  EXPECT_EQ(ValidateAgainstSchema(skipped).exit_code, 0) << ValidateAgainstSchema(skipped).err;
  const Expected<ConformReport> read_skipped = ConformReportFromJson(skipped);
  ASSERT_TRUE(read_skipped) << read_skipped.error().message();
  EXPECT_EQ(read_skipped->throughput->skipped, report.throughput->skipped);
  EXPECT_TRUE(Contains(RenderConformTable(report, {}),
                       "skipped, not measurable: every copy's completion rests on"))
      << RenderConformTable(report, {});
}

TEST(ConformJson, WritesTheDocumentedKeysInOrder) {
  const std::string text = ConformReportToJson(SampleReport());
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.rfind("{\n  \"schema_version\": 6,\n  \"kind\": \"sectl.conform\",\n  "
                       "\"verdict\": \"not_conformant\",\n",
                       0),
            0u);
  const auto document = nlohmann::ordered_json::parse(text);
  std::vector<std::string> keys;
  for (const auto& item : document.items()) keys.push_back(item.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"schema_version",
                                            "kind",
                                            "verdict",
                                            "tool",
                                            "plugin",
                                            "host",
                                            "command_line",
                                            "confinement",
                                            "started_at",
                                            "duration_s",
                                            "profile",
                                            "tf_version",
                                            "device",
                                            "subject",
                                            "load_error",
                                            "interrupted",
                                            "summary",
                                            "root_causes",
                                            "results",
                                            "throughput",
                                            "selection",
                                            "missing_shards",
                                            "learned_before_checks"}));
  EXPECT_TRUE(document["load_error"].is_null());
  EXPECT_TRUE(document["interrupted"].is_null());
  EXPECT_EQ(document["results"][0]["baseline"], "");
  EXPECT_EQ(document["results"][1]["baseline"], "regression");
  EXPECT_EQ(document["results"][4]["status"], "skip");
  EXPECT_EQ(document["results"][4]["severity"], "info");
}

TEST(ConformJson, ValidatesAgainstThePublishedSchema) {
  ConformReport not_loaded = EmptyReport();
  not_loaded.load_error = "dlopen: undefined symbol: TF_NewStatus";
  ConformReport merged_with_a_gap = SampleReport();
  merged_with_a_gap.selection = RunSelection{.filter = "*-compat.*", .seed = 42};
  merged_with_a_gap.missing_shards = {"1/2"};
  for (const ConformReport& report : {SampleReport(), not_loaded, merged_with_a_gap}) {
    const CommandResult result = ValidateAgainstSchema(ConformReportToJson(report));
    EXPECT_EQ(result.exit_code, 0) << result.err;
  }
}

TEST(ConformJson, SchemaRejectsDrift) {
  json unknown_status = SampleJson();
  unknown_status["results"][0]["status"] = "passed";
  ExpectRejectedBySchema(unknown_status);

  json unknown_key = SampleJson();
  unknown_key["results"][0]["colour"] = "green";
  ExpectRejectedBySchema(unknown_key);

  json extra_top_level = SampleJson();
  extra_top_level["colour"] = "green";
  ExpectRejectedBySchema(extra_top_level);

  json unknown_verdict = SampleJson();
  unknown_verdict["verdict"] = "passed";
  ExpectRejectedBySchema(unknown_verdict);

  json missing = SampleJson();
  missing.erase("summary");
  ExpectRejectedBySchema(missing);

  json newer = SampleJson();
  newer["schema_version"] = 7;
  ExpectRejectedBySchema(newer);

  json deviceless = SampleJson();
  deviceless.erase("device");
  ExpectRejectedBySchema(deviceless);

  json unblamed = SampleJson();
  unblamed["root_causes"][0].erase("blocked");
  ExpectRejectedBySchema(unblamed);
}

TEST(ConformJson, RefusesWhatIsNotJson) {
  EXPECT_TRUE(Contains(FromJsonError("{\"kind\": "), "not JSON")) << FromJsonError("{\"kind\": ");
  EXPECT_TRUE(Contains(FromJsonError("[1, 2]"), "not an object")) << FromJsonError("[1, 2]");
}

TEST(ConformJson, RefusesAnotherKindOfReport) {
  json probe = SampleJson();
  probe["kind"] = "sectl.probe";
  const std::string error = FromJsonError(probe.dump());
  EXPECT_TRUE(Contains(error, "\"sectl.probe\"")) << error;
  EXPECT_TRUE(Contains(error, "\"sectl.conform\"")) << error;
}

TEST(ConformJson, NamesTheSchemaVersionFoundAndSupported) {
  json newer = SampleJson();
  newer["schema_version"] = 7;
  const std::string error = FromJsonError(newer.dump());
  EXPECT_TRUE(Contains(error, "schema_version 7")) << error;
  EXPECT_TRUE(Contains(error, "reads schema_version 1 to 6")) << error;
}

// Version 1 had no blocked status, root causes or culprits; such reports
// (saved shards, old CI artifacts) are still read, the new members empty.
TEST(ConformJson, ReadsVersionOneReports) {
  json old = json::parse(ConformReportToJson(PassingReport()));
  old["schema_version"] = 1;
  old.erase("root_causes");
  old["summary"].erase("blocked");
  for (auto& result : old["results"]) {
    result.erase("culprits");
    result.erase("blocked_by_checks");
    result.erase("severity_reason");
  }
  const Expected<ConformReport> read = ConformReportFromJson(old.dump());
  ASSERT_TRUE(read) << read.error().message();
  EXPECT_EQ(read->results.size(), 2u);
  EXPECT_TRUE(read->results[0].culprits.empty());
}

TEST(ConformJson, KeepsTheDeviceAndSubject) {
  const Expected<ConformReport> read = ConformReportFromJson(ConformReportToJson(SampleReport()));
  ASSERT_TRUE(read) << read.error().message();
  EXPECT_EQ(read->device, "ordinal 0");
  EXPECT_EQ(read->subject, "TensorFlow 2.10");
}

// Version 5 named the device only in its command line and implied the
// subject: still read, the device unknown and the subject the profile's.
TEST(ConformJson, ReadsVersionFiveReportsWithoutDeviceOrSubject) {
  for (const auto& [profile, subject] :
       {std::pair{"tensorflow", "TensorFlow 2.10"},
        std::pair{"tvm-device-api", "TVM's DeviceAPI contract"},
        std::pair{"tvm-c-device", "TVM's C Device API (RFC 0031)"}}) {
    json old = json::parse(ConformReportToJson(PassingReport()));
    old["schema_version"] = 5;
    old["profile"] = profile;
    old.erase("device");
    old.erase("subject");
    const Expected<ConformReport> read = ConformReportFromJson(old.dump());
    ASSERT_TRUE(read) << read.error().message();
    EXPECT_EQ(read->device, "");
    EXPECT_EQ(read->subject, subject);
  }
}

TEST(ConformJson, KeepsRootCauses) {
  const ConformReport sample = SampleReport();
  const Expected<ConformReport> read = ConformReportFromJson(ConformReportToJson(sample));
  ASSERT_TRUE(read) << read.error().message();
  ASSERT_EQ(read->root_causes.size(), 1u);
  EXPECT_EQ(read->root_causes[0].function, "SP_StreamExecutor.memcpy_dtoh");
  EXPECT_EQ(read->root_causes[0].failed, std::vector<std::string>{"memcpy.dtoh.sizes"});
  EXPECT_EQ(read->root_causes[0].blocked, std::vector<std::string>{"fill.memset"});
  EXPECT_EQ(read->summary.CountOf(CheckStatus::kBlocked), 1);
  EXPECT_EQ(read->results.back().blocked_by_checks, std::vector<std::string>{"memcpy.dtoh.sizes"});
  EXPECT_EQ(read->results[1].severity_reason, sample.results[1].severity_reason);
}

TEST(RootCauses, OneLinePerFunctionTheWidestFirst) {
  CheckResult failed =
      Result("callback.enqueued", CheckStatus::kFail, "host_callback returned false");
  failed.culprits = {"SP_StreamExecutor.host_callback"};
  std::vector<CheckResult> results = {failed};
  for (const char* id : {"stream.in_order", "event.status_values"}) {
    CheckResult blocked = Result(id, CheckStatus::kBlocked, "host_callback returned false");
    blocked.culprits = {"SP_StreamExecutor.host_callback"};
    results.push_back(blocked);
  }
  CheckResult other = Result("timer.nanoseconds_unit", CheckStatus::kCrash, "SIGSEGV");
  other.culprits = {"SP_TimerFns.nanoseconds"};
  results.push_back(other);
  results.push_back(Result("memory.allocate", CheckStatus::kPass));
  const std::vector<RootCause> causes = SummarizeRootCauses(results);
  ASSERT_EQ(causes.size(), 2u);
  EXPECT_EQ(causes[0].function, "SP_StreamExecutor.host_callback");
  EXPECT_EQ(causes[0].first_problem, "host_callback returned false");
  EXPECT_EQ(causes[0].failed.size(), 1u);
  EXPECT_EQ(causes[0].blocked.size(), 2u);
  EXPECT_EQ(causes[1].function, "SP_TimerFns.nanoseconds");
}

TEST(RootCauses, AFunctionThatOnlyBlockedIsStillNamed) {
  CheckResult blocked = Result("fill.memset", CheckStatus::kBlocked, "allocate returned no memory");
  blocked.culprits = {"SP_StreamExecutor.allocate"};
  const std::vector<RootCause> causes = SummarizeRootCauses({blocked});
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0].first_problem, "allocate returned no memory");
  EXPECT_TRUE(causes[0].failed.empty());
}

// A "; " inside parentheses separates items of one problem: the part of
// a message about a function is never cut inside them.
TEST(RootCauses, APartAboutAFunctionIsNeverCutInsideParentheses) {
  CheckResult failed = Result("memcpy.dtoh", CheckStatus::kFail,
                              "no pair round-tripped (sync_memcpy_htod and memcpy_dtoh: byte 0 "
                              "differs; memcpy_htod and sync_memcpy_dtoh: byte 0 differs); "
                              "memcpy_dtoh wrote past the end");
  failed.culprits = {"SP_StreamExecutor.memcpy_dtoh", "SP_StreamExecutor.sync_memcpy_dtoh"};
  const std::vector<RootCause> causes = SummarizeRootCauses({failed});
  ASSERT_EQ(causes.size(), 2u);
  EXPECT_EQ(causes[0].first_problem,
            "no pair round-tripped (sync_memcpy_htod and memcpy_dtoh: byte 0 differs; "
            "memcpy_htod and sync_memcpy_dtoh: byte 0 differs)");
  EXPECT_EQ(causes[1].first_problem, causes[0].first_problem);
  EXPECT_EQ(causes[0].first_problem_check, "memcpy.dtoh");
}

// A check whose every observation went through several suspects names
// them together; a function another check caught alone comes first, and a
// suspect caught alone is no longer "cannot tell".
TEST(RootCauses, SuspectsTheEvidenceCannotSeparateAreNamedTogetherAfterDirectEvidence) {
  CheckResult round_trips =
      Result("memcpy.dtoh", CheckStatus::kFail, "no pair of copies round-tripped");
  round_trips.culprits = {"SP_StreamExecutor.memcpy_dtoh"};
  round_trips.details["cannot_tell"] = {
      {"functions",
       {"SP_StreamExecutor.memcpy_dtoh", "SP_StreamExecutor.sync_memcpy_dtoh",
        "SP_StreamExecutor.memcpy_htod"}},
      {"why", "every observation reads back through a device-to-host copy"}};
  CheckResult blocked = Result("fill.memset", CheckStatus::kBlocked, "no pair round-tripped");
  blocked.culprits = {"SP_StreamExecutor.memcpy_dtoh"};
  CheckResult direct = Result("memory.allocate", CheckStatus::kFail, "allocate returned null");
  direct.culprits = {"SP_StreamExecutor.allocate"};
  direct.severity = CheckSeverity::kRecommended;

  std::vector<RootCause> causes = SummarizeRootCauses({round_trips, blocked, direct});
  ASSERT_EQ(causes.size(), 2u);
  EXPECT_EQ(causes[0].function, "SP_StreamExecutor.allocate");
  EXPECT_TRUE(causes[0].cannot_tell_from.empty());
  EXPECT_EQ(causes[1].function, "SP_StreamExecutor.memcpy_dtoh");
  EXPECT_EQ(causes[1].cannot_tell_from,
            (std::vector<std::string>{"SP_StreamExecutor.sync_memcpy_dtoh",
                                      "SP_StreamExecutor.memcpy_htod"}));
  EXPECT_EQ(causes[1].cannot_tell_why,
            "every observation reads back through a device-to-host copy");
  EXPECT_EQ(DescribeSuspects(causes[1]),
            "cannot tell SP_StreamExecutor.memcpy_dtoh from sync_memcpy_dtoh or memcpy_htod");
  EXPECT_EQ(causes[1].blocked, std::vector<std::string>{"fill.memset"});

  ConformReport report = EmptyReport();
  report.results = {round_trips, blocked, direct};
  report.summary = Summarize(report.results);
  report.root_causes = causes;
  const std::string table = RenderConformTable(report, {});
  EXPECT_TRUE(
      Contains(table,
               "  cannot tell SP_StreamExecutor.memcpy_dtoh from sync_memcpy_dtoh or "
               "memcpy_htod (required) — fails 1 required check, blocks 1 required check\n"))
      << table;
  EXPECT_TRUE(Contains(table, "      every observation reads back through a device-to-host copy\n"))
      << table;
  const json written = json::parse(ConformReportToJson(report));
  EXPECT_EQ(written["root_causes"][1]["cannot_tell_from"].size(), 2u) << written.dump(2);

  // Another check that caught memcpy_dtoh alone settles it.
  CheckResult alone = Result("memcpy.dtoh_interior", CheckStatus::kFail, "byte 3 differs");
  alone.culprits = {"SP_StreamExecutor.memcpy_dtoh"};
  causes = SummarizeRootCauses({round_trips, alone});
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_TRUE(causes[0].cannot_tell_from.empty());
  EXPECT_EQ(DescribeSuspects(causes[0]), "SP_StreamExecutor.memcpy_dtoh");
}

TEST(ConformTable, StartsWithTheRootCauses) {
  const std::string table = RenderConformTable(SampleReport(), {});
  const size_t causes = table.find("Root causes");
  ASSERT_NE(causes, std::string::npos) << table;
  EXPECT_TRUE(Contains(table,
                       "SP_StreamExecutor.memcpy_dtoh (required) — fails 1 required check, "
                       "blocks 1 required check"))
      << table;
  EXPECT_LT(causes, table.find("PASS")) << table;
  EXPECT_TRUE(Contains(table, "BLOCKED")) << table;
  EXPECT_TRUE(Contains(table, "required because: TensorFlow 2.5 and later")) << table;
  EXPECT_FALSE(Contains(RenderConformTable(PassingReport(), {}), "Root causes"));
}

// "conformant" is a proof: a required check that could not run proved
// nothing, so it stands in the way as a failure does.
TEST(ConformReport, ABlockedRequiredCheckMakesTheRunNotConformant) {
  ConformReport report = PassingReport();
  report.results.push_back(Result("stream.in_order", CheckStatus::kBlocked, "blocked"));
  EXPECT_EQ(JudgeReport(report), Verdict::kNotConformant);
  EXPECT_EQ(RequiredFailures(report), 1);
  EXPECT_EQ(DescribeRequiredFailures(report), "1 required check blocked, so not verified");
}

TEST(ConformReport, AnyErrorOfSectlMakesTheRunInconclusive) {
  ConformReport report = PassingReport();
  CheckResult error = Result("fill.memset", CheckStatus::kError, "sectl ran out of memory");
  error.severity = CheckSeverity::kRecommended;
  report.results.push_back(error);
  EXPECT_EQ(JudgeReport(report), Verdict::kInconclusive);
}

// One word per outcome: a status that fails the run is found only on
// required checks.
TEST(SettleStatus, ARecommendedFailureIsAWarningThatSaysWhatItObserved) {
  CheckResult result = Result("fill.memset", CheckStatus::kFail, "writes 4 bytes per byte");
  result.severity = CheckSeverity::kRecommended;
  SettleStatus(result);
  EXPECT_EQ(result.status, CheckStatus::kWarn);
  EXPECT_EQ(result.observed_status, CheckStatus::kFail);
  EXPECT_EQ(result.message, "recommended: fails: writes 4 bytes per byte");
  // Settling twice changes nothing.
  SettleStatus(result);
  EXPECT_EQ(result.message, "recommended: fails: writes 4 bytes per byte");

  CheckResult crash = Result("compat.tf_2_5", CheckStatus::kCrash, "SIGSEGV");
  crash.severity = CheckSeverity::kInfo;
  SettleStatus(crash);
  EXPECT_EQ(crash.status, CheckStatus::kWarn);
  EXPECT_EQ(crash.message, "info: crashed: SIGSEGV");
}

TEST(SettleStatus, ARecommendedBlockedCheckIsASkipThatSaysItWasNotRun) {
  CheckResult result = Result("lifecycle.recreate", CheckStatus::kBlocked, "blocked: x");
  result.severity = CheckSeverity::kRecommended;
  SettleStatus(result);
  EXPECT_EQ(result.status, CheckStatus::kSkip);
  EXPECT_EQ(result.observed_status, CheckStatus::kBlocked);
  EXPECT_EQ(result.message, "recommended: not run: blocked: x");
}

TEST(SettleStatus, LeavesRequiredResultsAndEverythingElseAlone) {
  for (CheckStatus status : kAllStatuses) {
    CheckResult required = Result("memcpy.htod", status, "m");
    SettleStatus(required);
    EXPECT_EQ(required.status, status);
    EXPECT_FALSE(required.observed_status);
  }
  for (CheckStatus status :
       {CheckStatus::kPass, CheckStatus::kWarn, CheckStatus::kSkip, CheckStatus::kError}) {
    CheckResult recommended = Result("fill.memset", status, "m");
    recommended.severity = CheckSeverity::kRecommended;
    SettleStatus(recommended);
    EXPECT_EQ(recommended.status, status);
    EXPECT_EQ(recommended.message, "m");
  }
}

TEST(ConformJson, SettlesTheStatusesOfOlderReportsAsTheyAreRead) {
  ConformReport report = PassingReport();
  CheckResult recommended = Result("fill.memset", CheckStatus::kFail, "wrong bytes");
  recommended.severity = CheckSeverity::kRecommended;
  recommended.culprits = {"SP_StreamExecutor.memset"};
  report.results.push_back(recommended);
  json old = json::parse(ConformReportToJson(report));
  old["schema_version"] = 4;
  for (auto& result : old["results"]) result.erase("observed_status");
  const Expected<ConformReport> read = ConformReportFromJson(old.dump());
  ASSERT_TRUE(read) << read.error().message();
  EXPECT_EQ(read->results.back().status, CheckStatus::kWarn);
  EXPECT_EQ(read->results.back().observed_status, CheckStatus::kFail);
  EXPECT_EQ(read->summary.CountOf(CheckStatus::kFail), 0);
  EXPECT_EQ(read->summary.CountOf(CheckStatus::kWarn), 1);
  EXPECT_EQ(JudgeReport(*read), Verdict::kConformant);
}

// The create_stream that aborts: the check testing it may be anything, but
// a function whose defect blocks required checks fails the run itself.
TEST(RootCauses, TakeTheHighestSeverityOfWhatTheyBlock) {
  CheckResult crashed = Result("lifecycle.recreate", CheckStatus::kCrash, "SIGABRT");
  crashed.severity = CheckSeverity::kRecommended;
  crashed.culprits = {"SP_StreamExecutor.create_stream"};
  SettleStatus(crashed);
  std::vector<CheckResult> results = {crashed};
  for (int i = 0; i < 28; ++i) {
    CheckResult blocked =
        Result(fmt::format("memcpy.check{}", i), CheckStatus::kBlocked, "blocked: SIGABRT");
    blocked.culprits = {"SP_StreamExecutor.create_stream"};
    results.push_back(blocked);
  }
  CheckResult recommended = Result("fill.memset", CheckStatus::kBlocked, "blocked: SIGABRT");
  recommended.severity = CheckSeverity::kRecommended;
  recommended.culprits = {"SP_StreamExecutor.create_stream"};
  SettleStatus(recommended);
  results.push_back(recommended);
  CheckResult leak = Result("lifecycle.no_growth", CheckStatus::kWarn, "leaks");
  leak.severity = CheckSeverity::kRecommended;
  leak.culprits = {"SP_StreamExecutor.destroy_event"};
  results.push_back(leak);

  const std::vector<RootCause> causes = SummarizeRootCauses(results);
  ASSERT_EQ(causes.size(), 2u);
  EXPECT_EQ(causes[0].function, "SP_StreamExecutor.create_stream");
  EXPECT_EQ(causes[0].severity, CheckSeverity::kRequired);
  EXPECT_EQ(causes[0].failed, std::vector<std::string>{"lifecycle.recreate"});
  EXPECT_EQ(causes[0].required_failed, 0);
  EXPECT_EQ(causes[0].blocked.size(), 29u);
  EXPECT_EQ(causes[0].required_blocked, 28);
  EXPECT_EQ(DescribeReach(causes[0]),
            "fails 1 check (not required), blocks 28 required checks and 1 not required");
  EXPECT_EQ(causes[1].severity, CheckSeverity::kInfo);  // it only warned
  EXPECT_EQ(DescribeReach(causes[1]), "1 warning");
}

TEST(ConformJson, NamesAMissingKey) {
  json missing = SampleJson();
  missing["results"][3].erase("status");
  EXPECT_EQ(FromJsonError(missing.dump()), "malformed conform report: results[3].status: missing");

  json no_host = SampleJson();
  no_host.erase("host");
  EXPECT_EQ(FromJsonError(no_host.dump()), "malformed conform report: host: missing");
}

TEST(ConformJson, NamesAMistypedKey) {
  json mistyped = SampleJson();
  mistyped["results"][0]["duration_s"] = "fast";
  EXPECT_EQ(FromJsonError(mistyped.dump()),
            "malformed conform report: results[0].duration_s: expected a number, found string");

  json negative = SampleJson();
  negative["host"]["logical_cpus"] = -1;
  EXPECT_TRUE(Contains(FromJsonError(negative.dump()), "host.logical_cpus"))
      << FromJsonError(negative.dump());

  json not_a_list = SampleJson();
  not_a_list["command_line"] = "sectl conform";
  EXPECT_TRUE(Contains(FromJsonError(not_a_list.dump()), "command_line: expected an array"));

  json bad_load_error = SampleJson();
  bad_load_error["load_error"] = false;
  EXPECT_TRUE(
      Contains(FromJsonError(bad_load_error.dump()), "load_error: expected a string or null"));
}

TEST(ConformJson, NamesAnUnknownStatus) {
  json unknown = SampleJson();
  unknown["results"][2]["status"] = "passed";
  const std::string error = FromJsonError(unknown.dump());
  EXPECT_TRUE(Contains(error, "results[2].status")) << error;
  EXPECT_TRUE(Contains(error, "\"passed\" is not a status")) << error;

  json severity = SampleJson();
  severity["results"][0]["severity"] = "optional";
  EXPECT_TRUE(Contains(FromJsonError(severity.dump()), "is not a severity"));

  json verdict = SampleJson();
  verdict["results"][0]["baseline"] = "flaky";
  EXPECT_TRUE(Contains(FromJsonError(verdict.dump()), "is not a baseline verdict"));
}

TEST(ConformJson, ErrorsAreOneLine) {
  for (const std::string& text : {std::string("{\n\n  nope"), std::string("\"just a string\"")}) {
    EXPECT_FALSE(Contains(FromJsonError(text), "\n")) << FromJsonError(text);
  }
}

// ---------------------------------------------------------------------------
// JUnit

struct ParsedJunit {
  pugi::xml_document document;
  pugi::xml_node suites;
};

void ParseJunit(const std::string& xml, ParsedJunit& parsed) {
  const pugi::xml_parse_result result = parsed.document.load_string(xml.c_str());
  ASSERT_TRUE(result) << result.description() << "\n" << xml;
  parsed.suites = parsed.document.child("testsuites");
  ASSERT_TRUE(parsed.suites) << xml;
}

pugi::xml_node Testcase(const pugi::xml_node& suites, const std::string& name) {
  return suites.find_node([&name](const pugi::xml_node& node) {
    return std::string(node.name()) == "testcase" && node.attribute("name").value() == name;
  });
}

TEST(ConformJunit, CountsMatchTheReport) {
  const std::string xml = RenderConformJunit(SampleReport());
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", 0), 0u) << xml;
  ParsedJunit junit;
  ASSERT_NO_FATAL_FAILURE(ParseJunit(xml, junit));
  EXPECT_STREQ(junit.suites.attribute("name").value(), "sectl");
  // 10 results: the regression, the crash, the timeout and the blocked
  // required check fail; the error is an error; the skip and the expected
  // failure are skipped.
  EXPECT_EQ(junit.suites.attribute("tests").as_int(), 10);
  EXPECT_EQ(junit.suites.attribute("failures").as_int(), 4);
  EXPECT_EQ(junit.suites.attribute("errors").as_int(), 1);
  EXPECT_EQ(junit.suites.attribute("skipped").as_int(), 2);
  EXPECT_STREQ(junit.suites.attribute("timestamp").value(), "2026-11-21T08:00:00Z");

  int testcases = 0;
  int suites = 0;
  for (const pugi::xml_node& suite : junit.suites.children("testsuite")) {
    ++suites;
    int in_suite = 0;
    for (const pugi::xml_node& testcase : suite.children("testcase")) {
      ++in_suite;
      EXPECT_EQ(std::string(testcase.attribute("classname").value()),
                std::string("sectl.") + suite.attribute("name").value());
    }
    EXPECT_EQ(suite.attribute("tests").as_int(), in_suite);
    testcases += in_suite;
  }
  EXPECT_EQ(testcases, 10);
  EXPECT_EQ(suites, 7);  // memcpy, stream, timer, device, event, allocator, fill
}

TEST(ConformJunit, MapsEachStatus) {
  ParsedJunit junit;
  ASSERT_NO_FATAL_FAILURE(ParseJunit(RenderConformJunit(SampleReport()), junit));
  const pugi::xml_node fail = Testcase(junit.suites, "memcpy.dtoh.sizes").child("failure");
  EXPECT_STREQ(fail.attribute("type").value(), "fail");
  EXPECT_STREQ(fail.attribute("message").value(),
               "byte 3 of a 4096-byte copy is 0xff, expected 0x00");
  EXPECT_TRUE(Contains(fail.text().get(), "TensorFlow reads corrupted tensors"));

  const pugi::xml_node crash = Testcase(junit.suites, "device.create").child("failure");
  EXPECT_STREQ(crash.attribute("type").value(), "crash");
  EXPECT_TRUE(Contains(crash.text().get(), "call 7"));
  EXPECT_STREQ(Testcase(junit.suites, "event.record").child("failure").attribute("type").value(),
               "timeout");
  EXPECT_STREQ(Testcase(junit.suites, "allocator.stats").child("error").attribute("type").value(),
               "error");
  EXPECT_TRUE(Testcase(junit.suites, "timer.create").child("skipped"));
  // A required check that was blocked proved nothing: a failure of the run.
  const pugi::xml_node blocked = Testcase(junit.suites, "fill.memset").child("failure");
  EXPECT_STREQ(blocked.attribute("type").value(), "blocked");
  EXPECT_TRUE(Contains(blocked.attribute("message").value(), "SP_StreamExecutor.memcpy_dtoh"));

  const pugi::xml_node warn = Testcase(junit.suites, "stream.sync");
  EXPECT_FALSE(warn.child("failure"));
  EXPECT_TRUE(Contains(warn.child("system-out").text().get(), "sync takes 2 s"));
  EXPECT_FALSE(Testcase(junit.suites, "memcpy.htod.sizes").first_child());
}

// The JUnit file marks the run failed exactly when the exit status does: a
// settled warning passes, a settled blocked check is skipped, and missing
// shards fail a test of their own.
TEST(ConformJunit, FailsExactlyWhenTheVerdictDoes) {
  ConformReport report = PassingReport();
  CheckResult recommended = Result("fill.memset", CheckStatus::kFail, "wrong bytes");
  recommended.severity = CheckSeverity::kRecommended;
  SettleStatus(recommended);
  CheckResult not_run = Result("lifecycle.recreate", CheckStatus::kBlocked, "blocked");
  not_run.severity = CheckSeverity::kRecommended;
  SettleStatus(not_run);
  report.results.push_back(recommended);
  report.results.push_back(not_run);
  report.summary = Summarize(report.results);
  ASSERT_EQ(JudgeReport(report), Verdict::kConformant);
  ParsedJunit junit;
  ASSERT_NO_FATAL_FAILURE(ParseJunit(RenderConformJunit(report), junit));
  EXPECT_STREQ(junit.suites.attribute("failures").value(), "0");
  EXPECT_STREQ(junit.suites.attribute("errors").value(), "0");
  EXPECT_TRUE(Testcase(junit.suites, "lifecycle.recreate").child("skipped"));

  report.missing_shards = {"1/2"};
  ASSERT_EQ(JudgeReport(report), Verdict::kIncomplete);
  ASSERT_NO_FATAL_FAILURE(ParseJunit(RenderConformJunit(report), junit));
  EXPECT_STREQ(junit.suites.attribute("failures").value(), "1");
  EXPECT_TRUE(Contains(
      Testcase(junit.suites, "run.complete").child("failure").attribute("message").value(), "1/2"));
}

TEST(ConformJunit, AnExpectedFailureIsSkipped) {
  ParsedJunit junit;
  ASSERT_NO_FATAL_FAILURE(ParseJunit(RenderConformJunit(SampleReport()), junit));
  // The repetition is part of the name.
  const pugi::xml_node expected = Testcase(junit.suites, "memcpy.dtod.sizes#1");
  ASSERT_TRUE(expected);
  EXPECT_FALSE(expected.child("failure"));
  EXPECT_STREQ(expected.child("skipped").attribute("message").value(),
               "expected failure (baseline): vendor bug 1234, fixed in 2.1");
}

TEST(ConformJunit, PluginOutputCannotBreakTheXml) {
  const std::string xml = RenderConformJunit(SampleReport());
  const bool forbidden_control = std::any_of(xml.begin(), xml.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r';
  });
  EXPECT_FALSE(forbidden_control) << xml;
  ParsedJunit junit;
  ASSERT_NO_FATAL_FAILURE(ParseJunit(xml, junit));
  const std::string out =
      Testcase(junit.suites, "memcpy.dtoh.sizes").child("system-out").text().get();
  EXPECT_TRUE(Contains(out, "init \\x01 done")) << out;
  EXPECT_TRUE(Contains(out, "\\x1b[31mred")) << out;
  EXPECT_TRUE(Contains(out, "<&>\"' end")) << out;
}

TEST(ConformJunit, ALoadErrorIsAFailedTest) {
  ConformReport report = EmptyReport();
  report.load_error = "dlopen: undefined symbol\x07 TF_NewStatus";
  ParsedJunit junit;
  ASSERT_NO_FATAL_FAILURE(ParseJunit(RenderConformJunit(report), junit));
  EXPECT_EQ(junit.suites.attribute("tests").as_int(), 1);
  EXPECT_EQ(junit.suites.attribute("failures").as_int(), 1);
  const pugi::xml_node load = Testcase(junit.suites, "plugin.load");
  ASSERT_TRUE(load);
  EXPECT_STREQ(load.attribute("classname").value(), "sectl.plugin");
  EXPECT_STREQ(load.child("failure").attribute("message").value(),
               "dlopen: undefined symbol\\x07 TF_NewStatus");
}

// ---------------------------------------------------------------------------
// Table

TEST(ConformTable, ListsEveryResultUnderItsArea) {
  const ConformReport report = SampleReport();
  const std::string table = RenderConformTable(report, {});
  for (const char* area :
       {"\nmemcpy\n", "\nstream\n", "\ntimer\n", "\ndevice\n", "\nevent\n", "\nallocator\n"}) {
    EXPECT_TRUE(Contains(table, area)) << area << "\n" << table;
  }
  for (const CheckResult& result : report.results) {
    EXPECT_TRUE(Contains(table, result.id)) << result.id << "\n" << table;
  }
  // Areas in the order they were first seen.
  EXPECT_LT(table.find("\nmemcpy\n"), table.find("\nstream\n"));
  EXPECT_LT(table.find("\nevent\n"), table.find("\nallocator\n"));
  // Status tags are padded to one width, so the ids line up.
  EXPECT_TRUE(Contains(table, "\n  PASS    memcpy.htod.sizes  checks memcpy.htod.sizes\n"))
      << table;
  EXPECT_TRUE(Contains(table, "\n  TIMEOUT event.record       checks event.record\n")) << table;
  EXPECT_TRUE(Contains(table, "/opt/vendor/libvendor_plugin.so"));
  EXPECT_TRUE(Contains(table, "3a4f5b6c7d8e"));
  EXPECT_TRUE(Contains(table, "tensorflow"));
}

TEST(ConformTable, ShowsWhatWentWrong) {
  const std::string table = RenderConformTable(SampleReport(), {});
  EXPECT_TRUE(Contains(table, "[repetition 1]")) << table;
  for (const char* label : {"[expected]", "[REGRESSION]", "[fixed]", "[expired]"}) {
    EXPECT_TRUE(Contains(table, label)) << label << "\n" << table;
  }
  EXPECT_TRUE(Contains(table, "TensorFlow reads corrupted tensors"));
  EXPECT_TRUE(Contains(table, "the plugin has no timer functions"));
  // The last five journal lines of the crash, not the first.
  EXPECT_TRUE(Contains(table, "call 7"));
  EXPECT_TRUE(Contains(table, "call 3"));
  EXPECT_FALSE(Contains(table, "call 2\n")) << table;
  EXPECT_TRUE(Contains(table, "init \\x01 done")) << table;
}

// One broken basic, as faulty_create_stream_aborts has it: the check that
// tests create_stream crashed, and every check that only uses it is blocked
// with the same message, plugin log and calls.
ConformReport OneBrokenBasicReport() {
  ConformReport report = EmptyReport();
  const std::string crash_message =
      "the process crashed with SIGABRT in SP_StreamExecutor.create_stream (call #7)";
  const std::string log = "vendor runtime 1.2 starting\nvendor: no stream slots left\n";
  const std::vector<std::string> journal = {
      "#6 SP_PlatformFns.get_device_count(0x1, 0x2) -> OK, 146 ns",
      "#7 SP_StreamExecutor.create_stream(0x1, 0x2, 0x3) -> never returned"};
  CheckResult tester = Result("stream.create_destroy", CheckStatus::kCrash, crash_message);
  tester.culprits = {"SP_StreamExecutor.create_stream"};
  tester.log = log;
  tester.journal = journal;
  report.results.push_back(tester);
  for (const std::string id : {"callback.enqueued", "event.status_values", "fill.mem_zero",
                               "concurrency.streams_in_parallel", "stream.in_order"}) {
    CheckResult blocked = Result(id, CheckStatus::kBlocked, "blocked: " + crash_message);
    blocked.title = "a title long enough that it would wrap at eighty columns, were it shown";
    blocked.culprits = {"SP_StreamExecutor.create_stream"};
    blocked.blocked_by_checks = {"stream.create_destroy"};
    blocked.log = log;
    blocked.journal = journal;
    report.results.push_back(blocked);
  }
  report.summary = Summarize(report.results);
  report.root_causes = SummarizeRootCauses(report.results);
  return report;
}

size_t CountOf(const std::string& text, const std::string& fragment) {
  size_t count = 0;
  for (size_t at = text.find(fragment); at != std::string::npos; at = text.find(fragment, at + 1)) {
    ++count;
  }
  return count;
}

// A blocked check is one line that points at the root causes, at any
// width; what stopped it (message, plugin log, calls) is told once; -v
// keeps each check's own account.
TEST(ConformTable, ABlockedCheckIsOneLine) {
  const ConformReport report = OneBrokenBasicReport();
  for (const size_t width : {size_t{0}, size_t{80}, size_t{120}}) {
    const std::string table = RenderConformTable(report, {.width = width});
    const std::vector<std::string> lines = sectl::testing::LinesOf(table);
    for (const CheckResult& result : report.results) {
      if (result.status != CheckStatus::kBlocked) continue;
      const auto row = std::find_if(lines.begin(), lines.end(), [&](const std::string& line) {
        return Contains(line, "BLOCKED " + result.id + " ");
      });
      ASSERT_NE(row, lines.end()) << result.id << "\n" << table;
      EXPECT_TRUE(Contains(*row, "blocked by ")) << *row;
      EXPECT_TRUE(Contains(*row, "create_stream")) << *row;
      if (width > 0) {
        EXPECT_LE(sectl::DisplayWidth(*row), width) << *row;
      }
      // The next line is the next row or the end of the area: nothing of
      // the check's own under it.
      ASSERT_NE(row + 1, lines.end());
      EXPECT_TRUE((row + 1)->empty() || (row + 1)->starts_with("  BLOCKED ")) << *(row + 1);
    }
    EXPECT_EQ(CountOf(table, "vendor: no stream slots left"), 1U) << table;
    EXPECT_EQ(CountOf(table, "create_stream(0x1, 0x2, 0x3) -> never returned"), 1U) << table;
    EXPECT_EQ(CountOf(table, "blocked: the process crashed"), 0U) << table;
    EXPECT_EQ(CountOf(table, "were it shown"), 0U) << table;
  }
  // Wide enough, the row names the function in full and where to look.
  EXPECT_TRUE(Contains(RenderConformTable(report, {}),
                       "blocked by SP_StreamExecutor.create_stream: see Root causes\n"));
  const std::string verbose = RenderConformTable(report, {.verbose = true});
  EXPECT_EQ(CountOf(verbose, "blocked: the process crashed with SIGABRT"), 5U) << verbose;
}

// When only blocked checks speak of a function (no check that tests it
// failed), their rows are one line each and the root cause tells the first
// one's plugin calls and log, once.
TEST(ConformTable, ACauseOnlyBlockedChecksSpeakOfTellsTheirStoryOnce) {
  ConformReport report = OneBrokenBasicReport();
  report.results.erase(report.results.begin());  // the crashed tester
  report.summary = Summarize(report.results);
  report.root_causes = SummarizeRootCauses(report.results);
  ASSERT_EQ(report.root_causes.size(), 1U);
  EXPECT_EQ(report.root_causes[0].first_problem_check, "callback.enqueued");
  const std::string table = RenderConformTable(report, {.width = 80});
  const size_t causes = table.find("Root causes");
  const size_t first_area = table.find("\ncallback\n");
  ASSERT_NE(causes, std::string::npos) << table;
  ASSERT_NE(first_area, std::string::npos) << table;
  EXPECT_EQ(CountOf(table, "vendor: no stream slots left"), 1U) << table;
  EXPECT_EQ(CountOf(table, "create_stream(0x1, 0x2, 0x3) -> never returned"), 1U) << table;
  const size_t log_at = table.find("vendor: no stream slots left");
  EXPECT_TRUE(causes < log_at && log_at < first_area) << table;
}

// Skipped checks with ids longer than the id column (which a narrow
// terminal cuts to 28): each title wraps under its own first character, not
// under the id column's end; one that would be left too narrow a column goes
// under the row; the skip reason under the id, its continuation lines 2 in.
TEST(ConformTable, TitlesWrapUnderThemselvesWhereALongIdPushedThemRight) {
  ConformReport report = EmptyReport();
  const std::string reason =
      "the platform does not set supports_unified_memory (optional), so TensorFlow never asks "
      "for unified memory";
  for (const std::string id :
       {"memory.alignment", "memory.usage_tracks_allocations", "concurrency.streams_in_parallel",
        "stream.an_id_so_long_that_it_leaves_no_room_for_its_title"}) {
    CheckResult skipped = Result(id, CheckStatus::kSkip, reason);
    skipped.title =
        "The free memory device_memory_usage reports drops when memory is allocated and rises "
        "when it is freed";
    report.results.push_back(skipped);
  }
  report.summary = Summarize(report.results);
  for (const size_t width : {size_t{80}, size_t{120}}) {
    const std::string table = RenderConformTable(report, {.width = width});
    const std::vector<std::string> lines = sectl::testing::LinesOf(table);
    for (const std::string& line : lines) {
      EXPECT_LE(sectl::DisplayWidth(line), width) << line << "\nin\n" << table;
    }
    for (const CheckResult& result : report.results) {
      const auto row = std::find_if(lines.begin(), lines.end(), [&](const std::string& line) {
        return line == "  SKIP    " + result.id || line.starts_with("  SKIP    " + result.id + " ");
      });
      ASSERT_NE(row, lines.end()) << result.id << "\n" << table;
      const size_t title = row->find("The free memory");
      // Where the title starts, and the lines of the row until the reason.
      size_t column = title;
      auto line = row + 1;
      if (title == std::string::npos) {
        ASSERT_TRUE(line->starts_with("          The free memory")) << table;
        column = 10;
        ++line;
      }
      for (; line != lines.end() && !line->starts_with("          the platform"); ++line) {
        const size_t hanging = column == 10 ? 12 : column;
        EXPECT_EQ(line->find_first_not_of(' '), hanging) << *line << "\nin\n" << table;
      }
      ASSERT_NE(line, lines.end()) << table;
      // The reason goes on 2 columns further in than it starts.
      ASSERT_NE(line + 1, lines.end()) << table;
      if (width == 80) EXPECT_TRUE((line + 1)->starts_with("            ")) << table;
    }
  }
}

TEST(ConformTable, VerboseShowsDetailsOfPassesToo) {
  ConformReport report = PassingReport();
  report.results[0].message = "all 17 sizes copied intact";
  EXPECT_FALSE(Contains(RenderConformTable(report, {}), "all 17 sizes"));
  EXPECT_TRUE(Contains(RenderConformTable(report, {.verbose = true}), "all 17 sizes"));
}

TEST(ConformTable, NamesTheDeviceAndWhatThePluginIsJudgedAgainst) {
  const std::string tensorflow = RenderConformTable(SampleReport(), {});
  EXPECT_TRUE(Contains(tensorflow, "\nDevice      ordinal 0\n")) << tensorflow;
  EXPECT_TRUE(Contains(tensorflow, "\nTensorFlow  2.10\n")) << tensorflow;

  // A TVM backend is judged by TVM's contract, not by "TensorFlow latest".
  ConformReport tvm = SampleReport();
  tvm.profile = "tvm-device-api";
  tvm.tf_version = "latest";
  tvm.subject = ProfileSubject(tvm.profile, tvm.tf_version);
  tvm.device = "ext_dev(0)";
  const std::string table = RenderConformTable(tvm, {});
  EXPECT_TRUE(Contains(table, "\nDevice      ext_dev(0)\n")) << table;
  EXPECT_TRUE(Contains(table, "\nContract    TVM's DeviceAPI contract\n")) << table;
  EXPECT_FALSE(Contains(table, "TensorFlow  latest")) << table;
}

TEST(ConformTable, EndsWithTheVerdict) {
  const std::string failing = RenderConformTable(SampleReport(), {});
  EXPECT_TRUE(
      Contains(failing,
               "10 checks: 2 pass, 2 fail, 1 warn, 1 skip, 1 crash, 1 timeout, 1 error, "
               "1 blocked — "
               "NOT CONFORMANT (3 required checks failed, 1 blocked); baseline: 1 regression, "
               "1 fixed, 1 expected, 1 expired\n"))
      << failing;
  const std::string passing = RenderConformTable(PassingReport(), {});
  EXPECT_TRUE(Contains(passing, "2 checks: 1 pass, 1 skip — conformant\n")) << passing;
}

TEST(ConformTable, SaysProminentlyThatThePluginDidNotLoad) {
  ConformReport report = EmptyReport();
  report.load_error = "SE_InitPlugin returned TF_INTERNAL";
  const std::string table = RenderConformTable(report, {});
  EXPECT_TRUE(Contains(table, "THE PLUGIN DID NOT LOAD: SE_InitPlugin returned TF_INTERNAL"))
      << table;
  EXPECT_TRUE(Contains(table, "NOT CONFORMANT (the plugin did not load)")) << table;
}

TEST(ConformTable, ColourOnlyWhenAskedFor) {
  EXPECT_FALSE(Contains(RenderConformTable(SampleReport(), {}), "\x1b")) << "no ANSI escapes";
  const std::string coloured = RenderConformTable(SampleReport(), {.color = true});
  EXPECT_TRUE(Contains(coloured, "\x1b[32mPASS")) << coloured;
  EXPECT_TRUE(Contains(coloured, "\x1b[31mFAIL")) << coloured;
  EXPECT_TRUE(Contains(coloured, "\x1b[35mERROR")) << coloured;
  // The plugin's own escapes stay escaped even in colour.
  EXPECT_FALSE(Contains(coloured, "\x1b[31mred")) << coloured;
}

TEST(EscapeControlCharacters, KeepsTextAndEscapesControls) {
  EXPECT_EQ(EscapeControlCharacters("a\tb\nc"), "a\tb\nc");
  EXPECT_EQ(EscapeControlCharacters("line\r\nnext"), "line\nnext");
  EXPECT_EQ(EscapeControlCharacters(std::string("nul\0!", 5)), "nul\\x00!");
  EXPECT_EQ(EscapeControlCharacters("\x1b[1m\x7f"), "\\x1b[1m\\x7f");
  EXPECT_EQ(EscapeControlCharacters("déjà vu — ✓"), "déjà vu — ✓");
  EXPECT_EQ(EscapeControlCharacters("\xc2\x9b"), "\\x9b");  // C1 CSI
  EXPECT_EQ(EscapeControlCharacters("bad \xff byte"), "bad \uFFFD byte");
  EXPECT_EQ(EscapeControlCharacters("\xc0\xaf"), "\uFFFD\uFFFD");  // overlong '/'
  EXPECT_EQ(EscapeControlCharacters("\xef\xbf\xbe"), "\uFFFD");    // U+FFFE
}

// Bidirectional overrides and isolates reorder what a reader sees ("Trojan
// Source"); U+2028/U+2029 break lines where nothing counts a line.
TEST(EscapeControlCharacters, WritesOutCharactersThatChangeTheLayout) {
  EXPECT_EQ(EscapeControlCharacters("pass\u202Eliaf"), "pass\\u{202e}liaf");
  EXPECT_EQ(EscapeControlCharacters("\u2066x\u2069"), "\\u{2066}x\\u{2069}");
  EXPECT_EQ(EscapeControlCharacters("a\u2028b\u2029c"), "a\\u{2028}b\\u{2029}c");
  EXPECT_EQ(EscapeControlCharacters("\u200F"), "\\u{200f}");
  EXPECT_EQ(EscapeControlCharacters("\u2027\u202F"), "\u2027\u202F");  // neighbours are kept
}

TEST(CutLongText, KeepsShortTextAndCutsLongTextAtACharacter) {
  EXPECT_EQ(CutLongText("short", 8), "short");
  EXPECT_EQ(CutLongText("abcdefghij", 4), "abcd... (10 bytes in all; cut at 4)");
  // "é" is two bytes: a cut inside it backs off to before it.
  EXPECT_EQ(CutLongText("abé", 3), "ab... (4 bytes in all; cut at 3)");
  EXPECT_EQ(CutLongText(std::string(10'000'000, 'x'), 4096).size(),
            4096 + std::string_view("... (10000000 bytes in all; cut at 4096)").size());
}

// ---------------------------------------------------------------------------
// Merge

// The sample's results split between two shards.
std::vector<ConformReport> TwoShards() {
  const ConformReport sample = SampleReport();
  ConformReport first = sample;
  ConformReport second = sample;
  first.results.clear();
  second.results.clear();
  for (size_t i = 0; i < sample.results.size(); ++i) {
    (i % 2 == 0 ? first : second).results.push_back(sample.results[i]);
  }
  first.summary = Summarize(first.results);
  second.summary = Summarize(second.results);
  second.started_at = "2026-11-21T07:59:58Z";
  second.duration_s = 20;
  second.command_line = {"sectl", "conform", "--shard", "2/2"};
  return {first, second};
}

TEST(MergeReports, CombinesShards) {
  const Expected<ConformReport> merged = MergeReports(TwoShards());
  ASSERT_TRUE(merged) << merged.error().message();
  ASSERT_EQ(merged->results.size(), SampleReport().results.size());
  EXPECT_TRUE(std::is_sorted(merged->results.begin(), merged->results.end(),
                             [](const CheckResult& a, const CheckResult& b) {
                               return std::tie(a.id, a.repetition) < std::tie(b.id, b.repetition);
                             }));
  EXPECT_EQ(merged->summary.total(), 10);
  EXPECT_EQ(merged->summary.fail, 2);
  EXPECT_EQ(merged->summary.crash, 1);
  EXPECT_EQ(merged->started_at, "2026-11-21T07:59:58Z");
  EXPECT_EQ(merged->duration_s, 20);
  EXPECT_EQ(merged->command_line, SampleReport().command_line);
  EXPECT_FALSE(merged->load_error);
}

TEST(MergeReports, KeepsRepetitionsApartAndALoadError) {
  std::vector<ConformReport> shards = TwoShards();
  shards[0].results = {Result("memcpy.htod.sizes", CheckStatus::kPass)};
  shards[1].results = {Result("memcpy.htod.sizes", CheckStatus::kFail)};
  shards[1].results[0].repetition = 1;
  shards[1].load_error = "device 1 did not initialise";
  const Expected<ConformReport> merged = MergeReports(shards);
  ASSERT_TRUE(merged) << merged.error().message();
  ASSERT_EQ(merged->results.size(), 2u);
  EXPECT_EQ(merged->results[1].repetition, 1);
  EXPECT_EQ(merged->load_error, "device 1 did not initialise");
}

std::string MergeError(std::vector<ConformReport> reports) {
  const Expected<ConformReport> merged = MergeReports(std::move(reports));
  return merged ? "(merged)" : merged.error().message();
}

TEST(MergeReports, RefusesReportsOfDifferentPlugins) {
  std::vector<ConformReport> shards = TwoShards();
  shards[1].plugin.sha256 = "9bc0" + std::string(60, '0');
  const std::string error = MergeError(shards);
  EXPECT_TRUE(Contains(error, "reports are of different plugins (sha256 3a4f")) << error;
  EXPECT_TRUE(Contains(error, "9bc0")) << error;
}

TEST(MergeReports, RefusesDifferentRules) {
  std::vector<ConformReport> versions = TwoShards();
  versions[1].schema_version = 3;
  EXPECT_TRUE(Contains(MergeError(versions), "different schema versions (6 vs 3)"));

  std::vector<ConformReport> profiles = TwoShards();
  profiles[1].profile = "tvm-device-api";
  EXPECT_TRUE(Contains(MergeError(profiles), "different profiles"));

  std::vector<ConformReport> generations = TwoShards();
  generations[1].tf_version = "2.5";
  EXPECT_TRUE(Contains(MergeError(generations), "different TensorFlow versions (2.10 vs 2.5)"));
}

// Shards of the same plugin on different devices (--device 0 and 1, or
// TVM's cpu and ext_dev) are two runs, not one.
TEST(MergeReports, RefusesReportsOfDifferentDevices) {
  std::vector<ConformReport> ordinals = TwoShards();
  ordinals[1].device = "ordinal 1";
  EXPECT_TRUE(Contains(MergeError(ordinals),
                       "reports are of different devices under test (ordinal 0 vs ordinal 1)"))
      << MergeError(ordinals);

  std::vector<ConformReport> tvm = TwoShards();
  for (ConformReport& shard : tvm) {
    shard.profile = "tvm-device-api";
    shard.subject = ProfileSubject(shard.profile, shard.tf_version);
  }
  tvm[0].device = "cpu(0)";
  tvm[1].device = "ext_dev(0)";
  EXPECT_TRUE(Contains(MergeError(tvm), "different devices under test (cpu(0) vs ext_dev(0))"))
      << MergeError(tvm);
}

TEST(MergeReports, RefusesReportsJudgedAgainstDifferentSubjects) {
  std::vector<ConformReport> shards = TwoShards();
  shards[1].subject = "TVM's C Device API (RFC 0031)";
  EXPECT_TRUE(Contains(MergeError(shards),
                       "judge against different contracts (TensorFlow 2.10 vs TVM's C Device API"))
      << MergeError(shards);
}

// A shard read from a report older than schema_version 6 names no device:
// it merges with one that does, and the merged report keeps the device.
TEST(MergeReports, AReportThatNamesNoDeviceTakesTheOthers) {
  std::vector<ConformReport> shards = TwoShards();
  shards[0].device.clear();
  shards[1].device = "ordinal 1";
  const Expected<ConformReport> merged = MergeReports(shards);
  ASSERT_TRUE(merged) << merged.error().message();
  EXPECT_EQ(merged->device, "ordinal 1");
}

TEST(MergeReports, RefusesOverlappingShards) {
  std::vector<ConformReport> shards = TwoShards();
  shards[1].results.push_back(shards[0].results.front());
  const std::string error = MergeError(shards);
  EXPECT_TRUE(Contains(error, "overlap")) << error;
  EXPECT_TRUE(Contains(error, shards[0].results.front().id)) << error;
}

TEST(MergeReports, KeepsWhatAnyShardLearnedOncePerFunction) {
  std::vector<ConformReport> shards = TwoShards();
  shards[0].learned_before_checks = {{"SP_StreamExecutor.host_callback", "never ran"}};
  shards[1] = WithLearnedBeforeChecks(shards[1]);
  const Expected<ConformReport> merged = MergeReports(shards);
  ASSERT_TRUE(merged) << merged.error().message();
  ASSERT_EQ(merged->learned_before_checks.size(), 2u);
  EXPECT_EQ(merged->learned_before_checks[0].problem, "never ran");
  EXPECT_EQ(merged->learned_before_checks[1].function, "SP_StreamExecutor.allocate");
}

TEST(MergeReports, RefusesNothing) { EXPECT_EQ(MergeError({}), "no reports to merge"); }

// TwoShards as `--shard 0/N` and `--shard 1/N` of one run.
std::vector<ConformReport> ShardsOf(int count) {
  std::vector<ConformReport> shards = TwoShards();
  for (int index = 0; index < 2; ++index) {
    shards[index].selection = RunSelection{.shard_index = index, .shard_count = count};
  }
  return shards;
}

TEST(MergeReports, NamesTheShardsNotGiven) {
  std::vector<ConformReport> one_of_two = ShardsOf(2);
  one_of_two.pop_back();
  one_of_two[0].results = PassingReport().results;
  one_of_two[0].summary = Summarize(one_of_two[0].results);
  const Expected<ConformReport> merged = MergeReports(one_of_two);
  ASSERT_TRUE(merged) << merged.error().message();
  EXPECT_EQ(merged->missing_shards, std::vector<std::string>{"1/2"});
  EXPECT_EQ(JudgeReport(*merged), Verdict::kIncomplete);
  EXPECT_FALSE(IsConformant(*merged));
  const std::string table = RenderConformTable(*merged, {});
  EXPECT_TRUE(Contains(table, "INCOMPLETE (shard 1/2 missing: not judged)")) << table;
  EXPECT_EQ(json::parse(ConformReportToJson(*merged))["verdict"], "incomplete");

  const Expected<ConformReport> two_of_three = MergeReports(ShardsOf(3));
  ASSERT_TRUE(two_of_three) << two_of_three.error().message();
  EXPECT_EQ(two_of_three->missing_shards, std::vector<std::string>{"2/3"});

  const Expected<ConformReport> whole = MergeReports(ShardsOf(2));
  ASSERT_TRUE(whole) << whole.error().message();
  EXPECT_TRUE(whole->missing_shards.empty());
  EXPECT_EQ(whole->selection->shard_count, 1);
}

TEST(MergeReports, RefusesShardsOfDifferentRunsOrOneShardTwice) {
  std::vector<ConformReport> counts = ShardsOf(2);
  counts[1].selection->shard_count = 3;
  EXPECT_TRUE(Contains(MergeError(counts), "differently sharded runs")) << MergeError(counts);
  std::vector<ConformReport> twice = ShardsOf(2);
  twice[1].selection->shard_index = 0;
  EXPECT_EQ(MergeError(twice), "shard 0/2 is given twice");
}

TEST(ConformJson, KeepsTheSelectionAndItsSeed) {
  ConformReport report = PassingReport();
  report.selection = RunSelection{.filter = "memcpy.*",
                                  .shard_index = 1,
                                  .shard_count = 4,
                                  .repeat = 3,
                                  .seed = uint64_t{18446744073709551615u}};
  const std::string text = ConformReportToJson(report);
  const json document = json::parse(text);
  EXPECT_EQ(document["selection"]["seed"].get<uint64_t>(), 18446744073709551615u);
  EXPECT_EQ(document["selection"]["shuffle"], true);
  EXPECT_EQ(document["verdict"], "conformant");
  const Expected<ConformReport> read = ConformReportFromJson(text);
  ASSERT_TRUE(read) << read.error().message();
  ASSERT_TRUE(read->selection);
  EXPECT_EQ(read->selection->seed, report.selection->seed);
  EXPECT_EQ(read->selection->shard_count, 4);
  EXPECT_EQ(read->selection->filter, "memcpy.*");
}

}  // namespace
}  // namespace sectl::report
