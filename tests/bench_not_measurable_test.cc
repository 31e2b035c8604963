// Results that are no measurement: the physical bound that must flag the
// impossible and never the real, and "not measurable" in every format of a
// bench report and in the compare gate.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "bench/bench_compare.h"
#include "bench/bench_csv.h"
#include "bench/bench_html.h"
#include "bench/bench_json.h"
#include "bench/bench_plot.h"
#include "bench/bench_table.h"
#include "bench/physical_bounds.h"
#include "bench_sample_reports.h"

namespace sectl::bench {
namespace {

using namespace sectl::bench::testing;

constexpr char kWhy[] =
    "block_host_until_done returned before the copy's bytes had arrived (h2d pinned async 1 "
    "MiB): right after it returned, the destination still differed";

bool Contains(const std::string& text, const std::string& fragment) {
  return text.find(fragment) != std::string::npos;
}

// ---------------------------------------------------------------------------
// The bound

TEST(PhysicalBounds, RealHardwareIsNeverFlagged) {
  // An H100's and a B200's device-to-device copies, and the fastest memory
  // a copy could ever come out of on one device short of a wafer.
  EXPECT_FALSE(WhyPhysicallyImpossible(Direction::kDeviceToDevice, 1'400, "the host's clock"));
  EXPECT_FALSE(WhyPhysicallyImpossible(Direction::kDeviceToDevice, 3'000, "the host's clock"));
  EXPECT_FALSE(WhyPhysicallyImpossible(Direction::kDeviceToDevice, 20'000, "the host's clock"));
  // A Cerebras WSE-3's on-wafer SRAM, 21 PB/s.
  EXPECT_FALSE(WhyPhysicallyImpossible(Direction::kDeviceToDevice, 21e6, "the host's clock"));
  // Pinned h2d over NVLink-C2C on a GH200 (~400 GB/s), far above one host
  // thread's memcpy; an APU's unified HBM (MI300A, 5.3 TB/s); a copy from
  // L1 on every core of a two-socket server.
  for (const Direction direction : {Direction::kHostToDevice, Direction::kDeviceToHost}) {
    EXPECT_FALSE(WhyPhysicallyImpossible(direction, 450, "the host's clock"));
    EXPECT_FALSE(WhyPhysicallyImpossible(direction, 5'300, "the host's clock"));
    EXPECT_FALSE(WhyPhysicallyImpossible(direction, 250'000, "the host's clock"));
  }
}

TEST(PhysicalBounds, TheImpossibleIsFlaggedSayingWhy) {
  // The numbers: h2d pinned at 11.7 PB/s, and 15 PB/s.
  const auto h2d =
      WhyPhysicallyImpossible(Direction::kHostToDevice, 11'663'183.42, "the host's clock");
  ASSERT_TRUE(h2d);
  EXPECT_TRUE(Contains(*h2d, "the host's clock says 11663183 GB/s, beyond 1 PB/s for h2d")) << *h2d;
  EXPECT_TRUE(WhyPhysicallyImpossible(Direction::kDeviceToHost, 15'063'454, "the plugin's timer"));
  const auto d2d = WhyPhysicallyImpossible(Direction::kDeviceToDevice, 2e8, "the host's clock");
  ASSERT_TRUE(d2d);
  EXPECT_TRUE(Contains(*d2d, "beyond 100 PB/s for d2d")) << *d2d;
  // A zero interval is no rate at all.
  EXPECT_TRUE(WhyPhysicallyImpossible(Direction::kDeviceToDevice,
                                      std::numeric_limits<double>::infinity(), "the host's clock"));
  EXPECT_TRUE(WhyPhysicallyImpossible(
      Direction::kHostToDevice, std::numeric_limits<double>::quiet_NaN(), "the host's clock"));
}

TEST(PhysicalBounds, TheBoundsAreTheDocumentedOnes) {
  EXPECT_EQ(PhysicalBoundGbps(Direction::kHostToDevice), 1e6);
  EXPECT_EQ(PhysicalBoundGbps(Direction::kDeviceToHost), 1e6);
  EXPECT_EQ(PhysicalBoundGbps(Direction::kDeviceToDevice), 1e8);
}

// ---------------------------------------------------------------------------
// Reports

// Two sizes of h2d: the first measured, the second not measurable.
BenchReport WithANotMeasurableResult() {
  BenchReport report = Provenance("memcpy");
  report.results = {
      Bandwidth(Direction::kHostToDevice, HostMemory::kPinned, CopyMode::kAsync, 4 * kKiB, 2),
      Bandwidth(Direction::kHostToDevice, HostMemory::kPinned, CopyMode::kAsync, kMiB, 9)};
  report.results[1].plugin_timer_gbps = Gbps(8);
  MarkNotMeasurable(report.results[1], kWhy);
  report.ceiling = {{.bytes = 4 * kKiB, .gbps = Gbps(20)}, {.bytes = kMiB, .gbps = Gbps(20)}};
  return report;
}

BenchReport WithANotMeasurableOperation() {
  BenchReport report = SampleLatencyReport();
  MarkNotMeasurable(report.latency[1],
                    "host_callback accepted a callback on an idle stream and never ran it");
  return report;
}

TEST(NotMeasurable, MarkingDropsEveryNumberOfThePlugin) {
  const BenchReport report = WithANotMeasurableResult();
  const BandwidthResult& result = report.results[1];
  EXPECT_EQ(result.not_measurable, kWhy);
  EXPECT_TRUE(std::isnan(result.gbps.median));
  EXPECT_TRUE(result.gbps.values.empty());
  EXPECT_FALSE(result.plugin_timer_gbps);
  EXPECT_TRUE(std::isnan(result.ratio_to_ceiling));
  EXPECT_EQ(result.ceiling_gbps, 20) << "the host's own memcpy was measured";
  EXPECT_FALSE(HasNumbers(result));
  EXPECT_TRUE(HasNumbers(report.results[0]));
  EXPECT_TRUE(AnyNotMeasurable(report));
  EXPECT_FALSE(AnyNotMeasurable(SampleMemcpyReport()));
  EXPECT_TRUE(AnyNotMeasurable(WithANotMeasurableOperation()));
}

TEST(NotMeasurable, JsonSaysWhyWithNullNumbersAndReadsBack) {
  const std::string text = BenchReportToJsonText(WithANotMeasurableResult());
  const auto document = nlohmann::json::parse(text);
  const auto& entry = document["results"][1];
  EXPECT_EQ(entry["not_measurable"], kWhy);
  for (const char* key :
       {"median_gbps", "p5_gbps", "p95_gbps", "min_gbps", "max_gbps", "ratio_to_ceiling"}) {
    EXPECT_TRUE(entry[key].is_null()) << key << ": " << entry[key];
  }
  EXPECT_TRUE(entry["plugin_timer"].is_null());
  EXPECT_TRUE(entry["values_gbps"].empty());
  EXPECT_TRUE(document["results"][0]["not_measurable"].is_null());

  const Expected<BenchReport> read = ParseBenchReport(text);
  ASSERT_TRUE(read) << read.error().message();
  EXPECT_EQ(read->results[1].not_measurable, kWhy);
  EXPECT_FALSE(HasNumbers(read->results[1]));
  EXPECT_FALSE(read->results[0].not_measurable);

  const Expected<BenchReport> latency =
      ParseBenchReport(BenchReportToJsonText(WithANotMeasurableOperation()));
  ASSERT_TRUE(latency) << latency.error().message();
  EXPECT_TRUE(latency->latency[1].not_measurable);
  EXPECT_TRUE(std::isnan(latency->latency[1].ns.median));
}

TEST(NotMeasurable, AVersionTwoReportIsStillRead) {
  // Written before not_measurable existed: every result was a measurement.
  auto document = nlohmann::json::parse(BenchReportToJsonText(SampleMemcpyReport()));
  document["schema_version"] = 2;
  for (auto& entry : document["results"]) entry.erase("not_measurable");
  const Expected<BenchReport> read = ParseBenchReport(document.dump());
  ASSERT_TRUE(read) << read.error().message();
  EXPECT_EQ(read->results.size(), SampleMemcpyReport().results.size());
  for (const BandwidthResult& result : read->results) EXPECT_FALSE(result.not_measurable);
}

TEST(NotMeasurable, TheTableSaysWhyInsteadOfANumber) {
  const std::string table = RenderBenchTable(WithANotMeasurableResult());
  EXPECT_TRUE(Contains(table, std::string("1 MiB  not measurable: ") + kWhy)) << table;
  EXPECT_FALSE(Contains(table, "nan")) << table;
  EXPECT_TRUE(Contains(table, "sectl bench exits with status 1")) << table;

  const std::string latency = RenderBenchTable(WithANotMeasurableOperation());
  EXPECT_TRUE(Contains(latency,
                       "host_callback_round_trip  not measurable: host_callback accepted a "
                       "callback on an idle stream and never ran it"))
      << latency;
}

TEST(NotMeasurable, CsvHasAColumnForWhyAndNoNumbers) {
  const std::string csv = RenderBenchCsv(WithANotMeasurableResult());
  const std::string header = csv.substr(0, csv.find("\r\n"));
  EXPECT_TRUE(header.ends_with(",error,not_measurable")) << header;
  const size_t second_row = csv.find("\r\n", csv.find("\r\n") + 2) + 2;
  const std::string row = csv.substr(second_row, csv.find("\r\n", second_row) - second_row);
  EXPECT_TRUE(row.starts_with("h2d,pinned,async,1048576,,,,,,,,")) << row;
  EXPECT_TRUE(Contains(row, kWhy)) << row;
  EXPECT_FALSE(Contains(row, "nan")) << row;

  const std::string latency = RenderBenchCsv(WithANotMeasurableOperation());
  EXPECT_TRUE(Contains(latency, ",,,,,,,1,,host_callback accepted")) << latency;
}

TEST(NotMeasurable, TheHtmlPageAndThePlotSayWhy) {
  const std::string html = RenderBenchHtml(WithANotMeasurableResult(), nullptr);
  EXPECT_TRUE(Contains(html, "Not measurable")) << "the verdict at the top";
  EXPECT_TRUE(Contains(html, ">not measurable<")) << "the row's note";
  EXPECT_TRUE(Contains(html, "block_host_until_done returned before the copy"));
  EXPECT_FALSE(Contains(html, ">nan<"));

  const std::string svg = RenderBandwidthSvg(WithANotMeasurableResult());
  EXPECT_TRUE(Contains(svg, "1 of 2 results not measurable, not plotted")) << svg;
  EXPECT_TRUE(Contains(svg, "not-measurable-caption"));

  const std::string latency = RenderBenchHtml(WithANotMeasurableOperation(), nullptr);
  EXPECT_TRUE(Contains(latency, "not measurable: host_callback accepted")) << latency;
}

// ---------------------------------------------------------------------------
// The compare gate

TEST(NotMeasurable, IsNeverARegressionNorAPass) {
  // Now not measurable, measured before: no regression (the run fails for
  // what it is, not for being slower).
  BenchReport old_report = WithANotMeasurableResult();
  old_report.results[1] =
      Bandwidth(Direction::kHostToDevice, HostMemory::kPinned, CopyMode::kAsync, kMiB, 9);
  const Expected<Comparison> now_broken =
      CompareBenchReports(old_report, WithANotMeasurableResult(), 0.10);
  ASSERT_TRUE(now_broken) << now_broken.error().message();
  const ComparisonRow& row = now_broken->rows[1];
  EXPECT_EQ(row.verdict, ChangeVerdict::kNotComparable);
  EXPECT_TRUE(row.note.starts_with("not measurable in the new run: block_host_until_done"))
      << row.note;
  EXPECT_FALSE(row.new_median);
  EXPECT_EQ(now_broken->regressions, 0);
  EXPECT_EQ(now_broken->within_tolerance, 1);
  EXPECT_EQ(now_broken->not_comparable, 1);

  // Not measurable before, a number now: nothing to hold it to, and no
  // pass either.
  const Expected<Comparison> was_broken =
      CompareBenchReports(WithANotMeasurableResult(), old_report, 0.10);
  ASSERT_TRUE(was_broken) << was_broken.error().message();
  EXPECT_EQ(was_broken->rows[1].verdict, ChangeVerdict::kNotComparable);
  EXPECT_TRUE(was_broken->rows[1].note.starts_with("not measurable in the old run"))
      << was_broken->rows[1].note;
  EXPECT_EQ(was_broken->improvements, 0);

  // Latency alike.
  const Expected<Comparison> latency =
      CompareBenchReports(SampleLatencyReport(), WithANotMeasurableOperation(), 0.10);
  ASSERT_TRUE(latency) << latency.error().message();
  EXPECT_EQ(latency->rows[1].verdict, ChangeVerdict::kNotComparable);
  EXPECT_EQ(latency->regressions, 0);
}

}  // namespace
}  // namespace sectl::bench
