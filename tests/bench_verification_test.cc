// `sectl bench memcpy` blames a broken copy form alone: a direction fails
// verification only when its own copy is shown wrong through ways in and
// out of the device that were themselves verified, and is "not verified"
// when none is left. The JSON, the table, the plot and conform's throughput
// section all say which.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_json.h"
#include "bench/bench_plot.h"
#include "bench/bench_report.h"
#include "bench/bench_table.h"
#include "bench_sample_reports.h"
#include "sectl_process.h"

namespace sectl::testing {
namespace {

using bench::BandwidthResult;
using bench::BenchReport;
using bench::Verification;
using bench::VerificationStatus;
using nlohmann::json;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string ReadTextFile(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::string FaultyPlugin(const std::string& fault) {
  return std::string(SECTL_FAULTY_PLUGIN_DIR) + "/faulty_" + fault + ".so";
}

// "h2d async" -> the result's verification, for a bench run's JSON.
using Verdicts = std::map<std::string, json>;

Verdicts BenchVerdicts(const std::string& plugin, const std::vector<std::string>& extra,
                       int expected_exit, std::string* stdout_text = nullptr) {
  std::vector<std::string> arguments = {"bench", "memcpy",        plugin,     "--sizes",
                                        "64KiB", "--mode",        "both",     "--budget",
                                        "0.01",  "--no-progress", "--report", "json"};
  arguments.insert(arguments.end(), extra.begin(), extra.end());
  const CommandResult result = RunSectl(arguments);
  EXPECT_EQ(result.exit_code, expected_exit) << result.err;
  if (stdout_text != nullptr) *stdout_text = result.out;
  Verdicts verdicts;
  try {
    const json report = json::parse(result.out);
    for (const json& entry : report["results"]) {
      // The minimal plugin has no sync_memcpy_dtod (optional).
      if (entry["direction"] == "d2d" && entry["mode"] == "sync" && entry["error"].is_string()) {
        continue;
      }
      EXPECT_TRUE(entry["error"].is_null()) << entry.dump();
      verdicts[entry["direction"].get<std::string>() + " " + entry["mode"].get<std::string>()] =
          entry;
    }
  } catch (const json::exception& error) {
    ADD_FAILURE() << "not JSON: " << error.what() << "\n" << result.out << result.err;
  }
  EXPECT_GE(verdicts.size(), 5u) << result.out;
  return verdicts;
}

std::string StatusOf(const Verdicts& verdicts, const std::string& path) {
  const auto found = verdicts.find(path);
  if (found == verdicts.end()) return "missing";
  return found->second.value("verification_status", "absent");
}

std::string ReasonOf(const Verdicts& verdicts, const std::string& path) {
  const auto found = verdicts.find(path);
  if (found == verdicts.end()) return "";
  return found->second.value("verification_reason", "");
}

// ---------------------------------------------------------------------------
// Against plugins

TEST(BenchVerification, ACorrectPluginVerifiesEveryPathTheUsualWay) {
  const Verdicts verdicts = BenchVerdicts(ReferencePlugin("sectl_cpu"), {}, 0);
  for (const auto& [path, entry] : verdicts) {
    EXPECT_EQ(entry["verification"], "passed") << path;
    EXPECT_EQ(entry["verification_status"], "passed") << path;
    EXPECT_EQ(entry["verification_reason"], "") << path;
  }
}

TEST(BenchVerification, ACorruptingMemcpyDtohFailsD2hAloneAndTheRestIsReadThroughTheSyncForm) {
  // memcpy_dtoh flips a byte; sync_memcpy_dtoh is right.
  const Verdicts verdicts = BenchVerdicts(FaultyPlugin("corrupt_dtoh"), {}, 1);
  EXPECT_EQ(StatusOf(verdicts, "d2h async"), "failed");
  EXPECT_TRUE(Contains(ReasonOf(verdicts, "d2h async"), "byte 0 of 65536"))
      << ReasonOf(verdicts, "d2h async");
  EXPECT_TRUE(Contains(ReasonOf(verdicts, "d2h async"), "memcpy_dtoh misread what"))
      << ReasonOf(verdicts, "d2h async");
  EXPECT_EQ(StatusOf(verdicts, "d2h sync"), "passed");
  for (const std::string path : {"h2d async", "h2d sync", "d2d async"}) {
    EXPECT_EQ(StatusOf(verdicts, path), "passed") << path;
    EXPECT_TRUE(Contains(ReasonOf(verdicts, path), "read back through sync_memcpy_dtoh"))
        << path << ": " << ReasonOf(verdicts, path);
  }
}

TEST(BenchVerification, WhenEveryWayToReadTheDeviceIsWrongOnlyD2hFails) {
  const Verdicts verdicts = BenchVerdicts(FaultyPlugin("corrupt_every_dtoh"), {}, 1);
  for (const std::string path : {"d2h async", "d2h sync"}) {
    EXPECT_EQ(StatusOf(verdicts, path), "failed") << path;
    // memcpy_htod, sync_memcpy_htod, memset and memset32 all read back wrong.
    EXPECT_TRUE(Contains(ReasonOf(verdicts, path), "wrote alike")) << ReasonOf(verdicts, path);
  }
  for (const std::string path : {"h2d async", "h2d sync", "d2d async"}) {
    EXPECT_EQ(StatusOf(verdicts, path), "not_verified") << path;
    EXPECT_TRUE(Contains(ReasonOf(verdicts, path),
                         "d2h returns wrong bytes whichever way the device is read"))
        << path << ": " << ReasonOf(verdicts, path);
    EXPECT_TRUE(verdicts.at(path)["verification"].get<std::string>().starts_with("not verified: "))
        << verdicts.at(path);
  }
}

TEST(BenchVerification, AShortMemcpyHtodFailsH2dAloneAndD2hIsRecheckedWithGoodData) {
  // memcpy_htod drops the last byte. It also wrote the data d2h and d2d
  // start from: where that is wrong, it is written anew through a verified
  // writer and the copy checked again.
  const Verdicts verdicts = BenchVerdicts(FaultyPlugin("htod_drops_last_byte"), {}, 1);
  EXPECT_EQ(StatusOf(verdicts, "h2d async"), "failed");
  EXPECT_TRUE(Contains(ReasonOf(verdicts, "h2d async"), "byte 65535 of 65536"))
      << ReasonOf(verdicts, "h2d async");
  EXPECT_EQ(StatusOf(verdicts, "h2d sync"), "passed");
  for (const std::string path : {"d2h async", "d2h sync", "d2d async"}) {
    EXPECT_EQ(StatusOf(verdicts, path), "passed") << path << ": " << ReasonOf(verdicts, path);
  }
}

TEST(BenchVerification, WhenEveryCopyToTheDeviceIsWrongTheFillsVerifyTheOtherDirections) {
  const Verdicts verdicts = BenchVerdicts(FaultyPlugin("corrupt_every_htod"), {}, 1);
  for (const std::string path : {"h2d async", "h2d sync"}) {
    EXPECT_EQ(StatusOf(verdicts, path), "failed") << path;
    EXPECT_TRUE(Contains(ReasonOf(verdicts, path), "byte 0 of 65536")) << ReasonOf(verdicts, path);
  }
  for (const std::string path : {"d2h async", "d2h sync", "d2d async"}) {
    EXPECT_EQ(StatusOf(verdicts, path), "passed") << path << ": " << ReasonOf(verdicts, path);
    EXPECT_TRUE(Contains(ReasonOf(verdicts, path), "memset"))
        << path << ": " << ReasonOf(verdicts, path);
  }
}

TEST(BenchVerification, NoVerifyIsSkippedNotFailed) {
  const Verdicts verdicts = BenchVerdicts(FaultyPlugin("corrupt_dtoh"), {"--no-verify"}, 0);
  for (const auto& [path, entry] : verdicts) EXPECT_EQ(entry["verification_status"], "skipped");
}

TEST(BenchVerification, ThePlotOfACorruptingPluginHasRedCrosses) {
  const std::string plot = (std::filesystem::temp_directory_path() /
                            ("corrupt_dtoh." + std::to_string(::getpid()) + ".svg"))
                               .string();
  BenchVerdicts(FaultyPlugin("corrupt_dtoh"), {"--plot", plot}, 1);
  const std::string svg = ReadTextFile(plot);
  std::filesystem::remove(plot);
  EXPECT_TRUE(Contains(svg, "class=\"failed-cross\"")) << svg;
  EXPECT_TRUE(Contains(svg, "the bytes read back differ")) << svg;
  EXPECT_TRUE(Contains(svg, "1 of 6 results failed verification")) << svg;
}

TEST(BenchVerification, ConformsThroughputSectionBlamesTheSameDirection) {
  const CommandResult result = RunSectl({"conform", FaultyPlugin("corrupt_dtoh"), "--filter",
                                         "device.*", "--report", "json", "--throughput"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json throughput = json::parse(result.out)["throughput"];
  ASSERT_EQ(throughput["results"].size(), 3u) << throughput;
  for (const json& path : throughput["results"]) {
    const std::string verification = path["verification"];
    if (path["direction"] == "d2h") {
      EXPECT_TRUE(verification.starts_with("failed: byte 0")) << verification;
    } else {
      EXPECT_EQ(verification, "passed") << path;
    }
  }
}

// ---------------------------------------------------------------------------
// The report formats

BenchReport ReportWith(VerificationStatus status, const std::string& reason) {
  BenchReport report = bench::testing::SampleMemcpyReport();
  for (BandwidthResult& result : report.results) {
    result.verification = {VerificationStatus::kPassed, ""};
    result.stable = true;
    result.warnings.clear();
  }
  report.results[1].verification = {status, reason};
  return report;
}

TEST(BenchVerificationFormats, JsonCarriesTheStatusAndReasonAndReadsOldReports) {
  const BenchReport report = ReportWith(VerificationStatus::kNotVerified,
                                        "d2h, the only way to read the device, "
                                        "returns wrong bytes");
  const std::string text = bench::BenchReportToJsonText(report);
  const json document = json::parse(text);
  EXPECT_EQ(document["results"][1]["verification_status"], "not_verified");
  EXPECT_EQ(document["results"][1]["verification"],
            "not verified: d2h, the only way to read the device, returns wrong bytes");
  const auto read = bench::ParseBenchReport(text);
  ASSERT_TRUE(read) << read.error().message();
  EXPECT_EQ(read->results[1].verification, report.results[1].verification);

  // A report from before the status had its own field.
  json old = document;
  for (json& result : old["results"]) {
    result.erase("verification_status");
    result.erase("verification_reason");
  }
  old["results"][1]["verification"] = "failed: byte 3 of 16: expected 0x01, found 0x02";
  const auto old_read = bench::ParseBenchReport(old.dump());
  ASSERT_TRUE(old_read) << old_read.error().message();
  EXPECT_EQ(old_read->results[1].verification,
            (Verification{VerificationStatus::kFailed, "byte 3 of 16: expected 0x01, found 0x02"}));
  EXPECT_EQ(old_read->results[0].verification, (Verification{VerificationStatus::kPassed, ""}));
}

TEST(BenchVerificationFormats, TheTableMarksAndExplainsAnUnverifiedCopy) {
  const std::string table = bench::RenderBenchTable(
      ReportWith(VerificationStatus::kNotVerified, "no way to read the device back"));
  EXPECT_TRUE(Contains(table, "? not verified: no way to read the device back")) << table;
  EXPECT_TRUE(Contains(table, "  ?  not verified")) << table;
  EXPECT_FALSE(Contains(table, "X verification")) << table;
}

TEST(BenchVerificationFormats, AFailedCopyHasARedCrossAndACaptionDistinctFromUnstable) {
  const std::string failed = bench::RenderBandwidthSvg(
      ReportWith(VerificationStatus::kFailed, "byte 0 of 4096: expected 0x01, found 0xfe"));
  EXPECT_TRUE(Contains(failed, "class=\"failed-cross\"")) << failed;
  EXPECT_TRUE(Contains(failed, "stroke=\"#D00000\"")) << failed;
  EXPECT_TRUE(Contains(failed, "verification failed:")) << failed;
  EXPECT_TRUE(Contains(failed, "the bytes read back differ")) << failed;
  EXPECT_TRUE(Contains(failed, "class=\"marker verification-failed\"")) << failed;

  // Unstable alone: a hollow marker, and nothing red.
  BenchReport unstable = ReportWith(VerificationStatus::kPassed, "");
  unstable.results[1].stable = false;
  const std::string hollow = bench::RenderBandwidthSvg(unstable);
  EXPECT_FALSE(Contains(hollow, "failed-cross")) << hollow;
  EXPECT_FALSE(Contains(hollow, "#D00000")) << hollow;
  EXPECT_FALSE(Contains(hollow, "verification-caption")) << hollow;
  EXPECT_TRUE(Contains(hollow, "fill=\"#ffffff\"")) << hollow;
}

TEST(BenchVerificationFormats, AnUnverifiedCopyHasASquareMarkerAndNoCross) {
  const std::string svg = bench::RenderBandwidthSvg(
      ReportWith(VerificationStatus::kNotVerified, "no way to read the device back"));
  EXPECT_TRUE(Contains(svg, "class=\"marker verification-not-verified\"")) << svg;
  EXPECT_TRUE(Contains(svg, "not verified (hover for why)")) << svg;
  EXPECT_TRUE(Contains(svg, "1 of 9 results not verified")) << svg;
  EXPECT_FALSE(Contains(svg, "failed-cross")) << svg;
}

}  // namespace
}  // namespace sectl::testing
