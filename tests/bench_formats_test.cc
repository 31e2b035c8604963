// The bench report's formats: JSON (round trip, the published schema, a
// strict reader of untrusted files), CSV, the table and the SVG plot.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>
#include <string>
#include <vector>

#include "base/text_layout.h"
#include "bench/bench_csv.h"
#include "bench/bench_html.h"
#include "bench/bench_json.h"
#include "bench/bench_plot.h"
#include "bench/bench_series.h"
#include "bench/bench_table.h"
#include "bench_sample_reports.h"
#include "sectl_process.h"

namespace sectl::bench {
namespace {

using nlohmann::json;
using sectl::testing::CommandResult;
using sectl::testing::RunCommand;
using namespace sectl::bench::testing;

bool Contains(const std::string& text, const std::string& fragment) {
  return text.find(fragment) != std::string::npos;
}

int CountOf(const std::string& text, const std::string& fragment) {
  int count = 0;
  for (size_t at = text.find(fragment); at != std::string::npos;
       at = text.find(fragment, at + fragment.size())) {
    ++count;
  }
  return count;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return lines;
}

// A file that is removed when it goes out of scope.
class TempFile {
 public:
  explicit TempFile(const std::string& text)
      : path_(std::filesystem::temp_directory_path() /
              ("bench_formats_test." + std::to_string(::getpid()) + "." +
               std::to_string(counter_++))) {
    std::ofstream(path_, std::ios::binary) << text;
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() { std::filesystem::remove(path_); }

  std::string path() const { return path_.string(); }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

// ---------------------------------------------------------------------------
// JSON

json SampleJson() { return json::parse(BenchReportToJsonText(SampleMemcpyReport())); }

std::string ParseError(const std::string& text) {
  const Expected<BenchReport> report = ParseBenchReport(text);
  return report ? "(no error)" : report.error().message();
}

std::string ReadError(const json& document) { return ParseError(document.dump()); }

// Validates `document` against docs/bench-report.schema.json with the
// system's python3-jsonschema, as a user of the schema would.
CommandResult ValidateAgainstSchema(const std::string& document) {
  constexpr const char* kValidate =
      "import json,jsonschema,sys; "
      "jsonschema.Draft202012Validator.check_schema(json.load(open(sys.argv[2]))); "
      "jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))";
  const TempFile file(document);
  return RunCommand({SECTL_SYSTEM_PYTHON, "-c", kValidate, file.path(), SECTL_BENCH_SCHEMA});
}

void ExpectRejectedBySchema(const json& document) {
  const CommandResult result = ValidateAgainstSchema(document.dump());
  EXPECT_NE(result.exit_code, 0) << document.dump();
  // Refused for the document, not because the validator could not run.
  EXPECT_TRUE(Contains(result.err, "ValidationError")) << result.err;
}

TEST(BenchJson, RoundTripsExactly) {
  for (const BenchReport& report :
       {SampleMemcpyReport(), SampleLatencyReport(), Provenance("memcpy")}) {
    const std::string text = BenchReportToJsonText(report);
    const Expected<BenchReport> read = ParseBenchReport(text);
    ASSERT_TRUE(read) << read.error().message();
    EXPECT_EQ(BenchReportToJsonText(*read), text);
  }
}

TEST(BenchJson, KeepsEveryField) {
  const BenchReport sample = SampleMemcpyReport();
  const Expected<BenchReport> read = ParseBenchReport(BenchReportToJsonText(sample));
  ASSERT_TRUE(read) << read.error().message();
  EXPECT_EQ(read->kind, "memcpy");
  EXPECT_EQ(read->tool_name, "sectl");
  EXPECT_EQ(read->plugin_sha256, sample.plugin_sha256);
  EXPECT_EQ(read->device_ordinal, 1);
  EXPECT_EQ(read->device_name, kNastyName);
  EXPECT_EQ(read->host.memory_bytes, sample.host.memory_bytes);
  EXPECT_EQ(read->command_line, sample.command_line);
  ASSERT_EQ(read->results.size(), sample.results.size());
  for (size_t i = 0; i < sample.results.size(); ++i) {
    const BandwidthResult& want = sample.results[i];
    const BandwidthResult& got = read->results[i];
    EXPECT_EQ(got.direction, want.direction);
    EXPECT_EQ(got.host_memory, want.host_memory);
    EXPECT_EQ(got.mode, want.mode);
    EXPECT_EQ(got.bytes, want.bytes);
    EXPECT_EQ(got.gbps.median, want.gbps.median);
    EXPECT_EQ(got.gbps.p5, want.gbps.p5);
    EXPECT_EQ(got.gbps.samples, want.gbps.samples);
    EXPECT_EQ(got.plugin_timer_gbps.has_value(), want.plugin_timer_gbps.has_value());
    EXPECT_EQ(got.stable, want.stable);
    EXPECT_EQ(got.verification, want.verification);
    EXPECT_EQ(got.warnings, want.warnings);
    EXPECT_EQ(got.error, want.error);
  }
  EXPECT_EQ(read->results[0].plugin_timer_gbps->median, 1.25);
  // Not a number goes out as null and comes back as not a number.
  EXPECT_TRUE(std::isnan(read->results[8].ratio_to_ceiling));
  ASSERT_EQ(read->ceiling.size(), 3u);
  EXPECT_EQ(read->ceiling[2].bytes, 64 * kMiB);

  const Expected<BenchReport> latency =
      ParseBenchReport(BenchReportToJsonText(SampleLatencyReport()));
  ASSERT_TRUE(latency) << latency.error().message();
  EXPECT_EQ(latency->kind, "latency");
  ASSERT_EQ(latency->latency.size(), 3u);
  EXPECT_EQ(latency->latency[1].ns.median, 12000);
  EXPECT_EQ(latency->latency[2].error, "the plugin has no record_event");
}

TEST(BenchJson, WritesTheDocumentedKeysInOrder) {
  const std::string text = BenchReportToJsonText(SampleMemcpyReport());
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.rfind("{\n  \"schema_version\": 4,\n  \"kind\": \"sectl.bench.memcpy\",\n", 0), 0u)
      << text;
  const auto document = nlohmann::ordered_json::parse(text);
  std::vector<std::string> keys;
  for (const auto& item : document.items()) keys.push_back(item.key());
  EXPECT_EQ(keys,
            (std::vector<std::string>{"schema_version", "kind", "tool", "plugin", "host",
                                      "command_line", "started_at", "duration_s", "threads", "runs",
                                      "stopped", "units", "results", "ceiling", "latency"}));
  std::vector<std::string> result_keys;
  for (const auto& item : document["results"][0].items()) result_keys.push_back(item.key());
  EXPECT_EQ(result_keys, (std::vector<std::string>{"direction",
                                                   "host_memory",
                                                   "mode",
                                                   "bytes",
                                                   "median_gbps",
                                                   "p5_gbps",
                                                   "p95_gbps",
                                                   "min_gbps",
                                                   "max_gbps",
                                                   "spread",
                                                   "samples",
                                                   "values_gbps",
                                                   "plugin_timer",
                                                   "ceiling_gbps",
                                                   "ratio_to_ceiling",
                                                   "warmup_copies",
                                                   "copies_per_sample",
                                                   "stable",
                                                   "enqueue_excluded",
                                                   "verification",
                                                   "verification_status",
                                                   "verification_reason",
                                                   "warnings",
                                                   "error",
                                                   "not_measurable"}));
  EXPECT_EQ(document["units"]["bandwidth"], "GB/s (1e9 bytes/s)");
  EXPECT_EQ(document["results"][0]["direction"], "h2d");
  EXPECT_EQ(document["results"][2]["host_memory"], "none");
  EXPECT_TRUE(document["results"][1]["plugin_timer"].is_null());
  EXPECT_TRUE(document["results"][8]["ratio_to_ceiling"].is_null());
  EXPECT_EQ(document["results"][7]["error"], "the plugin has no sync_memcpy_dtoh\x07");
}

// A run that stopped before its last step says why; a report from before
// schema version 4 has no "stopped", and its run went through.
TEST(BenchJson, KeepsWhyARunStoppedAndReadsOlderReportsWithout) {
  BenchReport stopped = SampleLatencyReport();
  stopped.stopped = "the run's deadline of 4 s (--deadline) passed before get_event_status";
  const Expected<BenchReport> read = ParseBenchReport(BenchReportToJsonText(stopped));
  ASSERT_TRUE(read) << read.error().message();
  EXPECT_EQ(read->stopped, stopped.stopped);
  EXPECT_EQ(ParseBenchReport(BenchReportToJsonText(SampleLatencyReport()))->stopped, std::nullopt);

  json version_3 = json::parse(BenchReportToJsonText(stopped));
  version_3["schema_version"] = 3;
  version_3.erase("stopped");
  const Expected<BenchReport> old = BenchReportFromJson(version_3);
  ASSERT_TRUE(old) << old.error().message();
  EXPECT_EQ(old->stopped, std::nullopt);
  json missing = json::parse(BenchReportToJsonText(stopped));
  missing.erase("stopped");
  EXPECT_EQ(ReadError(missing), "malformed bench report: stopped: missing");
}

TEST(BenchJson, ValidatesAgainstThePublishedSchema) {
  // Results that are no measurement too: their numbers are null.
  BenchReport not_measurable = SampleMemcpyReport();
  MarkNotMeasurable(not_measurable.results[3], "block_host_until_done returned early");
  BenchReport never_completed = SampleLatencyReport();
  MarkNotMeasurable(never_completed.latency[1], "host_callback never ran the callback");
  BenchReport stopped = SampleMemcpyReport();
  stopped.stopped = "2 steps took longer than --timeout 2 s each";
  for (const BenchReport& report :
       {SampleMemcpyReport(), SampleLatencyReport(), Provenance("memcpy"), not_measurable,
        never_completed, stopped}) {
    const CommandResult result = ValidateAgainstSchema(BenchReportToJsonText(report));
    EXPECT_EQ(result.exit_code, 0) << result.err;
  }
}

TEST(BenchJson, SchemaRejectsDrift) {
  json unknown_direction = SampleJson();
  unknown_direction["results"][0]["direction"] = "h2h";
  ExpectRejectedBySchema(unknown_direction);

  json unknown_key = SampleJson();
  unknown_key["results"][0]["colour"] = "green";
  ExpectRejectedBySchema(unknown_key);

  json extra_top_level = SampleJson();
  extra_top_level["verdict"] = "fast";
  ExpectRejectedBySchema(extra_top_level);

  json missing = SampleJson();
  missing["results"][3].erase("median_gbps");
  ExpectRejectedBySchema(missing);

  json newer = SampleJson();
  newer["schema_version"] = 5;
  ExpectRejectedBySchema(newer);

  json stopped_number = SampleJson();
  stopped_number["stopped"] = 2;
  ExpectRejectedBySchema(stopped_number);

  json binary_gigabytes = SampleJson();
  binary_gigabytes["units"]["bandwidth"] = "GiB/s";
  ExpectRejectedBySchema(binary_gigabytes);

  json bad_timer = SampleJson();
  bad_timer["results"][0]["plugin_timer"] = json::object({{"median_gbps", 1}});
  ExpectRejectedBySchema(bad_timer);
}

TEST(BenchJson, RefusesWhatIsNotJsonSayingWhere) {
  const std::string error = ParseError("{\n  \"kind\":\n  nope\n}");
  EXPECT_TRUE(Contains(error, "not a sectl bench report: not JSON")) << error;
  EXPECT_TRUE(Contains(error, "line 3, column")) << error;
  EXPECT_TRUE(Contains(ParseError("[1, 2]"), "the document is array, not an object"))
      << ParseError("[1, 2]");
  EXPECT_TRUE(Contains(ParseError(""), "not JSON")) << ParseError("");
}

TEST(BenchJson, RefusesAnotherKindOfReport) {
  json conform = SampleJson();
  conform["kind"] = "sectl.conform";
  EXPECT_EQ(ReadError(conform), "not a sectl bench report: its kind is \"sectl.conform\"");

  json no_kind = SampleJson();
  no_kind.erase("kind");
  EXPECT_EQ(ReadError(no_kind), "not a sectl bench report: it has no \"kind\" string");

  json unknown_bench = SampleJson();
  unknown_bench["kind"] = "sectl.bench.flops";
  EXPECT_TRUE(
      Contains(ReadError(unknown_bench), "unknown kind of bench report \"sectl.bench.flops\""))
      << ReadError(unknown_bench);
}

TEST(BenchJson, NamesTheSchemaVersionFoundAndKnown) {
  json newer = SampleJson();
  newer["schema_version"] = 5;
  EXPECT_EQ(ReadError(newer),
            "bench report has schema_version 5; this sectl reads schema_version 1 to 4");
}

TEST(BenchJson, NamesAMissingMemberByPath) {
  json missing = SampleJson();
  missing["results"][3].erase("median_gbps");
  EXPECT_EQ(ReadError(missing), "malformed bench report: results[3].median_gbps: missing");

  json no_host = SampleJson();
  no_host.erase("host");
  EXPECT_EQ(ReadError(no_host), "malformed bench report: host: missing");

  json no_cpu = SampleJson();
  no_cpu["host"].erase("logical_cpus");
  EXPECT_EQ(ReadError(no_cpu), "malformed bench report: host.logical_cpus: missing");

  json no_timer_samples = SampleJson();
  no_timer_samples["results"][0]["plugin_timer"].erase("samples");
  EXPECT_EQ(ReadError(no_timer_samples),
            "malformed bench report: results[0].plugin_timer.samples: missing");
}

TEST(BenchJson, NamesAMistypedMemberByPath) {
  json text_median = SampleJson();
  text_median["results"][3]["median_gbps"] = "fast";
  EXPECT_EQ(ReadError(text_median),
            "malformed bench report: results[3].median_gbps: expected a number or null, found "
            "string");

  json negative = SampleJson();
  negative["results"][1]["bytes"] = -4096;
  EXPECT_EQ(ReadError(negative),
            "malformed bench report: results[1].bytes: expected a non-negative integer, found "
            "number -4096");

  json fractional = SampleJson();
  fractional["results"][1]["samples"] = 2.5;
  EXPECT_TRUE(Contains(ReadError(fractional), "results[1].samples: expected a non-negative"))
      << ReadError(fractional);

  json too_large = SampleJson();
  too_large["results"][1]["samples"] = 1ULL << 40;
  EXPECT_TRUE(Contains(ReadError(too_large), "results[1].samples: 1099511627776 is too large"))
      << ReadError(too_large);

  json direction = SampleJson();
  direction["results"][2]["direction"] = "sideways";
  EXPECT_EQ(ReadError(direction),
            "malformed bench report: results[2].direction: \"sideways\" is not a direction "
            "(\"h2d\", \"d2h\", \"d2d\")");

  json stable = SampleJson();
  stable["results"][0]["stable"] = "yes";
  EXPECT_TRUE(Contains(ReadError(stable), "results[0].stable: expected true or false"));

  json timer = SampleJson();
  timer["results"][0]["plugin_timer"] = 3;
  EXPECT_TRUE(Contains(ReadError(timer), "results[0].plugin_timer: expected an object or null"));

  json warnings = SampleJson();
  warnings["results"][5]["warnings"][0] = false;
  EXPECT_EQ(ReadError(warnings),
            "malformed bench report: results[5].warnings[0]: expected a string, found boolean");

  json not_a_result = SampleJson();
  not_a_result["latency"] = json::array({1});
  EXPECT_EQ(ReadError(not_a_result),
            "malformed bench report: latency[0]: expected an object, found number 1");

  json unit = SampleJson();
  unit["units"]["bandwidth"] = "GiB/s";
  EXPECT_EQ(ReadError(unit),
            "malformed bench report: units.bandwidth: expected \"GB/s (1e9 bytes/s)\", found "
            "\"GiB/s\"");

  json error = SampleJson();
  error["results"][0]["error"] = 0;
  EXPECT_TRUE(Contains(ReadError(error), "results[0].error: expected a string or null"));
}

TEST(BenchJson, NeverThrowsOnHostileInput) {
  const std::vector<std::string> hostile = {
      std::string(100000, '[') + std::string(100000, ']'),
      R"({"kind": "sectl.bench.memcpy", "schema_version": 1e400})",
      R"({"kind": "sectl.bench.memcpy", "schema_version": -1})",
      R"({"kind": "sectl.bench.memcpy", "schema_version": 18446744073709551615})",
      R"({"kind": "sectl.bench.memcpy", "schema_version": 1, "results": {}})",
      "{\"kind\": \"\xff\xfe\"}",
      std::string("{\"kind\": \"sectl.bench.\0\"}", 24),
      "{\"kind\": 7}",
      "null",
      "\"sectl.bench.memcpy\"",
  };
  for (const std::string& text : hostile) {
    Expected<BenchReport> report = Expected<BenchReport>(BenchReport{});
    EXPECT_NO_THROW(report = ParseBenchReport(text)) << text.substr(0, 80);
    EXPECT_FALSE(report) << text.substr(0, 80);
    if (!report) {
      EXPECT_FALSE(Contains(report.error().message(), "\n")) << report.error().message();
    }
  }
  // A sample with each member in turn replaced by a value of the wrong type.
  const json sample = SampleJson();
  for (const auto& item : sample["results"][0].items()) {
    for (const json& wrong : {json(nullptr), json("x"), json(-1), json::array(), json::object()}) {
      json document = sample;
      document["results"][0][item.key()] = wrong;
      EXPECT_NO_THROW(static_cast<void>(ParseBenchReport(document.dump()))) << item.key();
    }
  }
}

TEST(ReadBenchReport, NamesTheFile) {
  const TempFile good(BenchReportToJsonText(SampleMemcpyReport()));
  const Expected<BenchReport> read = ReadBenchReport(good.path());
  ASSERT_TRUE(read) << read.error().message();
  EXPECT_EQ(read->results.size(), 9u);

  const Expected<BenchReport> missing = ReadBenchReport("/nonexistent/old.json");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message(), "/nonexistent/old.json: no such file");
  EXPECT_EQ(missing.error().code(), ErrorCode::kNotFound);

  const std::string directory = std::filesystem::temp_directory_path().string();
  const Expected<BenchReport> folder = ReadBenchReport(directory);
  ASSERT_FALSE(folder);
  EXPECT_TRUE(Contains(folder.error().message(), directory + ": is a directory"));

  const TempFile broken("{\n  \"kind\": \"sectl.bench.memcpy\",\n  oops\n}\n");
  const Expected<BenchReport> not_json = ReadBenchReport(broken.path());
  ASSERT_FALSE(not_json);
  EXPECT_TRUE(Contains(not_json.error().message(), broken.path() + ": not a sectl bench report: "
                                                                   "not JSON"))
      << not_json.error().message();
  EXPECT_TRUE(Contains(not_json.error().message(), "line 3, column")) << not_json.error().message();
}

// ---------------------------------------------------------------------------
// CSV

// The CSV as Python's csv module reads it: every row must have as many
// fields as the header. Prints the rows as JSON for the test to inspect.
json ParseCsvWithPython(const std::string& csv) {
  constexpr const char* kParse =
      "import csv,json,sys; "
      "rows=list(csv.reader(open(sys.argv[1], newline='', encoding='utf-8'), strict=True)); "
      "print(json.dumps(rows))";
  const TempFile file(csv);
  const CommandResult result = RunCommand({SECTL_SYSTEM_PYTHON, "-c", kParse, file.path()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return result.exit_code == 0 ? json::parse(result.out) : json::array();
}

TEST(BenchCsv, OneRowPerResultUnderTheHeader) {
  const BenchReport report = SampleMemcpyReport();
  const std::string csv = RenderBenchCsv(report);
  EXPECT_EQ(csv.rfind("direction,host_memory,mode,bytes,median_gbps,p5_gbps,p95_gbps,", 0), 0u)
      << csv;
  EXPECT_EQ(CountOf(csv, "\r\n"), 10) << "RFC 4180 ends lines with CRLF";
  const json rows = ParseCsvWithPython(csv);
  ASSERT_EQ(rows.size(), 10u);
  const json& header = rows[0];
  for (const json& row : rows) EXPECT_EQ(row.size(), header.size()) << row.dump();
  auto column = [&header](const std::string& name) {
    return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  EXPECT_EQ(rows[1][column("direction")], "h2d");
  EXPECT_EQ(rows[1][column("bytes")], "4096");
  EXPECT_EQ(std::stod(rows[1][column("median_gbps")].get<std::string>()), 1.2000000000000002);
  EXPECT_EQ(rows[1][column("plugin_timer_median_gbps")], "1.25");
  EXPECT_EQ(rows[2][column("plugin_timer_median_gbps")], "");
  EXPECT_EQ(rows[2][column("stable")], "false");
  EXPECT_EQ(rows[5][column("verification")], "failed: byte 17 is 0x00, expected 0x5a");
  EXPECT_EQ(rows[6][column("warnings")], "implausible: 15.0x the host memcpy ceiling");
  EXPECT_EQ(rows[8][column("error")], "the plugin has no sync_memcpy_dtoh\\x07");
  EXPECT_EQ(rows[9][column("ratio_to_ceiling")], "") << "not a number is an empty field";
}

TEST(BenchCsv, QuotesWhatCsvGivesAMeaningTo) {
  BenchReport report = SampleLatencyReport();
  report.latency[0].description = "copies \"tiny\", 4 bytes\r\nthen waits";
  const std::string csv = RenderBenchCsv(report);
  EXPECT_TRUE(Contains(csv, "\"copies \"\"tiny\"\", 4 bytes\nthen waits\"")) << csv;
  const json rows = ParseCsvWithPython(csv);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0][0], "operation");
  EXPECT_EQ(rows[0][2], "median_ns");
  EXPECT_EQ(rows[1][1], "copies \"tiny\", 4 bytes\nthen waits");
  EXPECT_EQ(rows[1][2], "850");
  // The numbers of an operation that could not be measured mean nothing.
  for (size_t field = 2; field <= 8; ++field) EXPECT_EQ(rows[3][field], "") << rows[3].dump();
  EXPECT_EQ(rows[3][10], "the plugin has no record_event");
  EXPECT_EQ(rows[3].back(), "") << "and it is not not-measurable";
}

// ---------------------------------------------------------------------------
// Table

TEST(BenchTable, OneBlockPerCopyPathWithARowPerSize) {
  const std::string table = RenderBenchTable(SampleMemcpyReport());
  const size_t h2d = table.find("\nh2d pinned async\n");
  const size_t d2h = table.find("\nd2h pageable sync\n");
  const size_t d2d = table.find("\nd2d async\n");
  ASSERT_NE(h2d, std::string::npos) << table;
  ASSERT_NE(d2h, std::string::npos) << table;
  ASSERT_NE(d2d, std::string::npos) << table;
  EXPECT_LT(h2d, d2h);
  EXPECT_LT(d2h, d2d);
  EXPECT_EQ(CountOf(table, "    4 KiB  "), 3) << table;
  EXPECT_EQ(CountOf(table, "   64 MiB  "), 3) << table;
  EXPECT_TRUE(Contains(table, "/opt/vendor/libvendor_plugin.so (sha256 3a4f5b6c7d8e…)")) << table;
  EXPECT_TRUE(Contains(table, "MY_DEVICE device 1")) << table;
  EXPECT_TRUE(Contains(table, "GB/s (10^9 bytes/s)")) << table;
  // The h2d rows: median, p5–p95, the plugin's timer where it has one,
  // the ceiling and the ratio to it.
  EXPECT_TRUE(
      Contains(table, "\n       size    median           p5–p95     timer   ceiling   ratio\n"))
      << table;
  EXPECT_TRUE(
      Contains(table, "\n      4 KiB      1.20        1.08–1.26      1.25      20.0      6%  "))
      << table;
  EXPECT_TRUE(
      Contains(table, "\n     64 MiB      12.0        10.8–12.6         —      20.0     60%  "))
      << table;
  EXPECT_TRUE(Contains(table, "timer: the median by the plugin's own timers")) << table;
  EXPECT_TRUE(Contains(table, "not measured: the plugin has no sync_memcpy_dtoh\\x07")) << table;
}

TEST(BenchTable, BarsShareOneScale) {
  const std::string table = RenderBenchTable(SampleMemcpyReport());
  // d2d 64 MiB has the largest median (300): a full bar of 32 blocks; h2d
  // 64 MiB (12) gets 12/300 of it, 1.28 blocks, drawn as one and a quarter.
  for (const std::string& line : Lines(table)) {
    if (line.starts_with("     64 MiB") && Contains(line, "300")) {
      EXPECT_EQ(CountOf(line, "█"), 32) << line;
    }
    if (line.starts_with("     64 MiB") && Contains(line, "  12.0  ")) {
      EXPECT_EQ(CountOf(line, "█"), 1) << line;
      EXPECT_TRUE(Contains(line, "█▎")) << line;
    }
  }
}

TEST(BenchTable, MarksResultsNotToBeTrustedAndExplainsTheMarks) {
  const std::string table = RenderBenchTable(SampleMemcpyReport());
  std::string unstable_row;
  std::string failed_row;
  std::string implausible_row;
  std::string ordinary_row;
  for (const std::string& line : Lines(table)) {
    if (line.starts_with("      4 KiB") && Contains(line, "0.600")) unstable_row = line;
    if (line.starts_with("      1 MiB") && Contains(line, "  3.60  ")) failed_row = line;
    if (line.starts_with("      1 MiB") && Contains(line, "  180  ")) implausible_row = line;
    if (line.starts_with("      1 MiB") && Contains(line, "  7.20  ")) ordinary_row = line;
  }
  EXPECT_TRUE(Contains(unstable_row, " ~ ")) << table;
  EXPECT_TRUE(Contains(failed_row, " X ")) << table;
  EXPECT_TRUE(Contains(implausible_row, " !? ")) << table;
  EXPECT_FALSE(ordinary_row.empty()) << table;
  EXPECT_FALSE(Contains(ordinary_row, "~")) << ordinary_row;
  EXPECT_TRUE(Contains(table, "! implausible: 15.0x the host memcpy ceiling")) << table;
  EXPECT_TRUE(Contains(table, "X verification failed: byte 17 is 0x00")) << table;
  EXPECT_TRUE(Contains(table, "\n  ~  unstable")) << table;
  EXPECT_TRUE(Contains(table, "\n  X  verification FAILED")) << table;
  EXPECT_TRUE(Contains(table, "\n  !  implausible")) << table;
  EXPECT_TRUE(Contains(table, "\n  ?  not verified")) << table;

  // Marks that do not appear are not explained.
  BenchReport clean = Provenance("memcpy");
  clean.results = {
      Bandwidth(Direction::kHostToDevice, HostMemory::kPinned, CopyMode::kAsync, 4096, 1.0)};
  EXPECT_FALSE(Contains(RenderBenchTable(clean), "Markers:")) << RenderBenchTable(clean);
  EXPECT_FALSE(Contains(RenderBenchTable(clean), "timer")) << "no timer column without timers";
}

TEST(BenchTable, PluginTextCannotDriveTheTerminal) {
  const std::string table = RenderBenchTable(SampleMemcpyReport());
  EXPECT_FALSE(Contains(table, "\x1b")) << table;
  EXPECT_FALSE(Contains(table, "\x01")) << table;
  EXPECT_FALSE(Contains(table, "\x07")) << table;
  EXPECT_TRUE(Contains(table, "\"dev\\x01 \\x1b[31mred\\x1b[0m <&>\"', end\\nnext\"")) << table;
}

// A run that stopped says so under the header, before any result, and the
// HTML page's verdict says so too.
TEST(BenchTable, ARunThatStoppedSaysSoFirst) {
  for (BenchReport report : {SampleMemcpyReport(), SampleLatencyReport()}) {
    report.stopped = "2 steps took longer than --timeout 2 s each, though every call came back";
    const std::string table = RenderBenchTable(report, {.width = 80});
    const size_t stopped = table.find("\n\nTHE BENCH STOPPED EARLY: 2 steps took longer than");
    ASSERT_NE(stopped, std::string::npos) << table;
    EXPECT_LT(stopped, table.find(report.kind == "latency" ? "operation" : "size")) << table;
    EXPECT_TRUE(Contains(RenderBenchTable(report), "sectl bench exits with status 1")) << table;
    // The memcpy sample copied wrong bytes: that heads its page, and the
    // run's facts say it stopped.
    const std::string page = RenderBenchHtml(report, nullptr);
    EXPECT_TRUE(
        Contains(page, report.kind == "latency" ? "Stopped early<div" : "<dt>Stopped early</dt>"))
        << page;
  }
  EXPECT_FALSE(Contains(RenderBenchTable(SampleMemcpyReport()), "STOPPED"));
  EXPECT_FALSE(Contains(RenderBenchHtml(SampleLatencyReport(), nullptr), "Stopped early"));
}

// The sizes a stopped run did not measure: the first says why, the rest of
// the path is one line.
TEST(BenchTable, SizesNotMeasuredForOneReasonAreOneLine) {
  BenchReport report = Provenance("memcpy");
  for (uint64_t bytes = 4 * kKiB; bytes <= 64 * kKiB; bytes *= 2) {
    report.results.push_back(
        Bandwidth(Direction::kHostToDevice, HostMemory::kPinned, CopyMode::kAsync, bytes, 10));
    if (bytes > 4 * kKiB) {
      report.results.back().error = "the bench stopped before this step: its deadline passed";
    }
  }
  report.results[1].error = "allocate failed";
  for (const size_t width : {size_t{0}, size_t{80}}) {
    const std::string table = RenderBenchTable(report, {.width = width});
    EXPECT_TRUE(Contains(table, "\n      8 KiB  not measured: allocate failed\n")) << table;
    EXPECT_TRUE(Contains(table, "\n     16 KiB  not measured: the bench stopped before this "))
        << table;
    EXPECT_TRUE(Contains(table,
                         "passed\n          …  not measured, the same: 2 more sizes, 32 "
                         "KiB to 64 KiB\n"))
        << table;
    EXPECT_FALSE(Contains(table, "    32 KiB  not")) << table;
    EXPECT_FALSE(Contains(table, "\n\n\n")) << "no empty chart: " << table;
  }
}

TEST(BenchTable, ListsLatencyOperations) {
  const std::string table = RenderBenchTable(SampleLatencyReport());
  EXPECT_TRUE(Contains(table, "sectl bench latency")) << table;
  EXPECT_TRUE(Contains(table, "median ns")) << table;
  EXPECT_TRUE(Contains(table,
                       "  enqueue_tiny_copy                850        1200      1000  "
                       "memcpy_htod of 4 bytes, enqueue only"))
      << table;
  EXPECT_TRUE(Contains(table,
                       "event_record_to_complete  not measured: the plugin has no "
                       "record_event"))
      << table;
}

std::vector<std::string> TableLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t end = text.find('\n'); end != std::string::npos;
       start = end + 1, end = text.find('\n', start)) {
    lines.push_back(text.substr(start, end - start));
  }
  return lines;
}

// The lines of the latency table from the row of `operation` to the next
// row (a line starting "  " and a letter).
std::vector<std::string> LatencyRow(const std::string& table, const std::string& operation) {
  std::vector<std::string> row;
  for (const std::string& line : TableLines(table)) {
    if (!row.empty() && (line.empty() || (line.size() > 2 && line[2] != ' '))) break;
    if (!row.empty() || line.starts_with("  " + operation + " ")) row.push_back(line);
  }
  return row;
}

// At 120 columns the description wraps in its own column; at 80, where
// that column would be a few characters wide, it goes under the numbers.
// Either way no line is wider than the terminal.
TEST(BenchTable, LatencyDescriptionsWrapUnderTheirColumnOrGoUnderTheRow) {
  BenchReport report = SampleLatencyReport();
  report.latency[1].operation = "host_callback_round_trip_on_an_idle_stream";
  report.latency[1].description =
      "host_callback enqueued on an idle stream until it runs, the stream's own work done first";
  report.latency[2].error =
      "the plugin has no record_event, and TensorFlow then cannot tell when a stream reaches a "
      "point, so EventMgr never frees a tensor";
  // "  " + the longest name + "  " + three numbers: where the description starts.
  const size_t column = 2 + 42 + 2 + 10 + 2 + 10 + 2 + 8 + 2;
  const size_t error_column = 2 + 42 + 2;
  for (const size_t width : {80u, 120u}) {
    const std::string table = RenderBenchTable(report, {.width = width});
    for (const std::string& line : TableLines(table)) {
      EXPECT_LE(DisplayWidth(line), width) << line << "\nin\n" << table;
    }
    const std::vector<std::string> row =
        LatencyRow(table, "host_callback_round_trip_on_an_idle_stream");
    ASSERT_GE(row.size(), 2u) << table;
    if (width == 120) {
      EXPECT_EQ(DisplayWidth(row[0].substr(0, row[0].find("host_callback enqueued"))), column)
          << table;
      for (size_t i = 1; i < row.size(); ++i) {
        EXPECT_EQ(row[i].find_first_not_of(' '), column) << row[i] << "\nin\n" << table;
      }
    } else {
      EXPECT_TRUE(row[0].ends_with("200")) << "the samples column ends the row: " << table;
      EXPECT_TRUE(row[1].starts_with("    host_callback enqueued")) << table;
      for (size_t i = 2; i < row.size(); ++i) {
        EXPECT_EQ(row[i].find_first_not_of(' '), 6u) << row[i] << "\nin\n" << table;
      }
    }
    // Why nothing was measured starts where the numbers would, and wraps there.
    const std::vector<std::string> error = LatencyRow(table, "event_record_to_complete");
    ASSERT_GE(error.size(), 2u) << table;
    EXPECT_EQ(error[0].find("not measured: the plugin"), error_column) << table;
    for (size_t i = 1; i < error.size(); ++i) {
      EXPECT_EQ(error[i].find_first_not_of(' '), error_column) << error[i] << "\nin\n" << table;
    }
  }
}

// ---------------------------------------------------------------------------
// SVG

struct ParsedSvg {
  pugi::xml_document document;
  pugi::xml_node svg;
};

void ParseSvg(const std::string& text, ParsedSvg& parsed) {
  const pugi::xml_parse_result result = parsed.document.load_string(text.c_str());
  ASSERT_TRUE(result) << result.description() << "\n" << text;
  parsed.svg = parsed.document.child("svg");
  ASSERT_TRUE(parsed.svg) << text;
}

std::vector<pugi::xml_node> AllNamed(const pugi::xml_node& root, const std::string& name) {
  std::vector<pugi::xml_node> nodes;
  for (const pugi::xpath_node& found : root.select_nodes(("//" + name).c_str())) {
    nodes.push_back(found.node());
  }
  return nodes;
}

TEST(BenchPlot, IsAWellFormedSelfContainedSvg) {
  const std::string text = RenderBandwidthSvg(SampleMemcpyReport());
  ParsedSvg plot;
  ASSERT_NO_FATAL_FAILURE(ParseSvg(text, plot));
  EXPECT_STREQ(plot.svg.attribute("xmlns").value(), "http://www.w3.org/2000/svg");
  EXPECT_TRUE(plot.svg.attribute("viewBox"));
  EXPECT_TRUE(AllNamed(plot.svg, "script").empty());
  EXPECT_TRUE(AllNamed(plot.svg, "image").empty());
  EXPECT_TRUE(AllNamed(plot.svg, "use").empty());
  EXPECT_FALSE(Contains(text, "href")) << "no links to other files";
  EXPECT_FALSE(Contains(text, "@font-face"));
  const bool forbidden_control = std::any_of(text.begin(), text.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r';
  });
  EXPECT_FALSE(forbidden_control);
}

TEST(BenchPlot, DrawsEachCopyPathTheCeilingAndTheAxes) {
  ParsedSvg plot;
  ASSERT_NO_FATAL_FAILURE(ParseSvg(RenderBandwidthSvg(SampleMemcpyReport()), plot));
  const std::vector<pugi::xml_node> series = AllNamed(plot.svg, "g[@class='series']");
  ASSERT_EQ(series.size(), 3u);
  EXPECT_STREQ(series[0].child("title").text().get(), "h2d pinned async");
  EXPECT_STREQ(series[2].child("title").text().get(), "d2d async");
  for (const pugi::xml_node& path : series) {
    EXPECT_TRUE(path.child("polyline")) << path.child("title").text().get();
    EXPECT_TRUE(path.child("polygon")) << "the p5–p95 band";
  }
  // One marker per measured result: d2h 64 MiB could not be measured.
  EXPECT_EQ(AllNamed(plot.svg, "g[@class='series']/circle").size(), 8u);
  EXPECT_EQ(std::distance(series[1].children("circle").begin(), series[1].children("circle").end()),
            2);
  // Markers move right as sizes grow (log x) and up as bandwidth grows.
  const std::vector<pugi::xml_node> h2d(series[0].children("circle").begin(),
                                        series[0].children("circle").end());
  ASSERT_EQ(h2d.size(), 3u);
  EXPECT_LT(h2d[0].attribute("cx").as_double(), h2d[1].attribute("cx").as_double());
  EXPECT_LT(h2d[1].attribute("cx").as_double(), h2d[2].attribute("cx").as_double());
  EXPECT_GT(h2d[0].attribute("cy").as_double(), h2d[2].attribute("cy").as_double());
  // Hollow markers for flagged results; tooltips with the numbers.
  EXPECT_STREQ(series[1].child("circle").attribute("fill").value(), "#ffffff");
  EXPECT_TRUE(Contains(h2d[2].child("title").text().get(), "h2d pinned async 64 MiB: median 12.0"))
      << h2d[2].child("title").text().get();

  const std::vector<pugi::xml_node> dashed =
      AllNamed(plot.svg, "polyline[@stroke-dasharray='6 4']");
  ASSERT_EQ(dashed.size(), 1u) << "the ceiling";
  EXPECT_STREQ(dashed[0].child("title").text().get(), "host memcpy ceiling (median)");

  std::vector<std::string> labels;
  for (const pugi::xml_node& text : AllNamed(plot.svg, "text"))
    labels.emplace_back(text.text().get());
  for (const char* label :
       {"4 KiB", "16 KiB", "1 MiB", "64 MiB", "0", "100", "300", "copy size (log scale)",
        "bandwidth, GB/s (10^9 bytes/s)", "h2d pinned async", "host memcpy ceiling"}) {
    EXPECT_NE(std::find(labels.begin(), labels.end(), label), labels.end()) << label;
  }
}

TEST(BenchPlot, EscapesPluginTextInTheTitle) {
  ParsedSvg plot;
  ASSERT_NO_FATAL_FAILURE(ParseSvg(RenderBandwidthSvg(SampleMemcpyReport()), plot));
  bool found = false;
  for (const pugi::xml_node& text : AllNamed(plot.svg, "text")) {
    const std::string content = text.text().get();
    if (Contains(content, "Copy bandwidth")) {
      found = true;
      EXPECT_TRUE(Contains(content, OneLine(kNastyName))) << content;
    }
  }
  EXPECT_TRUE(found);
}

TEST(BenchPlot, SaysWhenThereIsNothingToPlot) {
  for (const BenchReport& report : {SampleLatencyReport(), Provenance("memcpy")}) {
    const std::string text = RenderBandwidthSvg(report);
    ParsedSvg plot;
    ASSERT_NO_FATAL_FAILURE(ParseSvg(text, plot));
    EXPECT_TRUE(Contains(text, "no bandwidth")) << text;
    EXPECT_TRUE(AllNamed(plot.svg, "g[@class='series']/circle").empty());
  }
}

TEST(BenchPlot, OneSizeStillGetsAnAxis) {
  BenchReport report = Provenance("memcpy");
  report.results = {
      Bandwidth(Direction::kHostToDevice, HostMemory::kPinned, CopyMode::kAsync, 64 * kMiB, 0.0)};
  ParsedSvg plot;
  ASSERT_NO_FATAL_FAILURE(ParseSvg(RenderBandwidthSvg(report), plot));
  const pugi::xml_node marker = plot.svg.select_node("//circle").node();
  ASSERT_TRUE(marker);
  EXPECT_TRUE(std::isfinite(marker.attribute("cx").as_double()));
  EXPECT_TRUE(std::isfinite(marker.attribute("cy").as_double()));
}

}  // namespace
}  // namespace sectl::bench
