// sectl-cuda-baseline's command line and reports, on any machine: the flags
// read into what to measure, and reports that pair up with `sectl bench`'s
// result by result (the whole point of the baseline), checked against real
// `sectl bench` reports of the bundled cpu plugin. Without a GPU every raw
// measurement is a result with its error, which is still a result to pair;
// with one, the same tests measure for real.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "baseline_options.h"
#include "baseline_run.h"
#include "bench/bench_compare.h"
#include "bench/bench_json.h"
#include "bench/latency_bench.h"
#include "raw_copy.h"
#include "raw_latency.h"
#include "sectl_process.h"

namespace sectl::cuda_baseline {
namespace {

using bench::Direction;
using bench::HostMemory;

// Parses `arguments` as sectl-cuda-baseline would.
Expected<BaselineRequest> Parse(std::vector<std::string> arguments) {
  CLI::App app("test", "sectl-cuda-baseline");
  CommandLine line;
  DeclareCommandLine(app, line);
  arguments.insert(arguments.begin(), "sectl-cuda-baseline");
  std::vector<char*> argv;
  argv.reserve(arguments.size());
  for (std::string& argument : arguments) argv.push_back(argument.data());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& error) {
    return Fail(ErrorCode::kInvalidArgument, error.what());
  }
  return ToRequest(line, app);
}

TEST(CudaBaselineCommandLine, DefaultsAreSectlBenchMemcpys) {
  const auto request = Parse({});
  ASSERT_TRUE(request) << request.error().message();
  EXPECT_EQ(request->kind, BaselineKind::kMemcpy);
  EXPECT_EQ(request->memcpy.host_memories, std::vector<HostMemory>{HostMemory::kPinned});
  EXPECT_EQ(request->memcpy.directions.size(), 3u);
  // 4 KiB to 256 MiB, doubling.
  ASSERT_EQ(request->memcpy.sizes.size(), 17u);
  EXPECT_EQ(request->memcpy.sizes.front(), 4096u);
  EXPECT_EQ(request->memcpy.sizes.back(), uint64_t{256} << 20);
  EXPECT_DOUBLE_EQ(request->memcpy.copy.plan.budget.count(), 0.25);
  EXPECT_TRUE(request->memcpy.copy.verify);
  EXPECT_TRUE(request->output.empty());
}

TEST(CudaBaselineCommandLine, HostMemoryChoosesPinnedPageableOrBoth) {
  const std::vector<std::pair<std::string, std::vector<HostMemory>>> cases = {
      {"pinned", {HostMemory::kPinned}},
      {"pageable", {HostMemory::kPageable}},
      {"both", {HostMemory::kPinned, HostMemory::kPageable}},
      {"pageable,pinned", {HostMemory::kPageable, HostMemory::kPinned}}};
  for (const auto& [value, memories] : cases) {
    const auto request = Parse({"--host-memory", value});
    ASSERT_TRUE(request) << value << ": " << request.error().message();
    EXPECT_EQ(request->memcpy.host_memories, memories) << value;
  }
  for (const std::string value : {"none", "sideways", ""}) {
    const auto request = Parse({"--host-memory", value});
    ASSERT_FALSE(request) << value;
    EXPECT_NE(request.error().message().find("--host-memory"), std::string::npos)
        << request.error().message();
  }
}

TEST(CudaBaselineCommandLine, LatencyTakesDeviceBudgetAndOutput) {
  const auto request = Parse({"latency", "--budget", "0.5", "--device", "1", "-o", "raw.json"});
  ASSERT_TRUE(request) << request.error().message();
  EXPECT_EQ(request->kind, BaselineKind::kLatency);
  EXPECT_DOUBLE_EQ(request->latency.plan.budget.count(), 0.5);
  EXPECT_EQ(request->latency.device, 1);
  EXPECT_EQ(request->output, "raw.json");

  // Before the subcommand's name, too.
  const auto before = Parse({"-o", "raw.json", "latency"});
  ASSERT_TRUE(before) << before.error().message();
  EXPECT_EQ(before->kind, BaselineKind::kLatency);
  EXPECT_EQ(before->output, "raw.json");
}

TEST(CudaBaselineCommandLine, MemcpyFlagsAreRefusedForLatency) {
  for (const std::vector<std::string>& arguments :
       {std::vector<std::string>{"--sizes", "4KiB", "latency"},
        {"--host-memory", "pageable", "latency"},
        {"--no-verify", "latency"},
        {"latency", "--direction", "h2d"}}) {
    const auto request = Parse(arguments);
    ASSERT_FALSE(request) << arguments[0];
    EXPECT_NE(
        request.error().message().find(arguments[0] == "latency" ? arguments[1] : arguments[0]),
        std::string::npos)
        << request.error().message();
  }
}

TEST(CudaBaselineCommandLine, BudgetMustBePositive) {
  for (const std::string budget : {"0", "-1"}) {
    for (const bool latency : {false, true}) {
      std::vector<std::string> arguments = {"--budget", budget};
      if (latency) arguments.insert(arguments.begin(), "latency");
      const auto request = Parse(arguments);
      ASSERT_FALSE(request) << budget;
      EXPECT_NE(request.error().message().find("--budget"), std::string::npos);
    }
  }
}

TEST(CudaBaselinePaths, InSectlBenchsOrderWithD2dOnce) {
  BaselineOptions options;
  options.directions = {std::begin(bench::kAllDirections), std::end(bench::kAllDirections)};
  options.host_memories = {HostMemory::kPinned, HostMemory::kPageable};
  const std::vector<RawCopyPath> paths = PlanRawPaths(options);
  ASSERT_EQ(paths.size(), 5u);
  const std::vector<std::pair<Direction, HostMemory>> expected = {
      {Direction::kHostToDevice, HostMemory::kPinned},
      {Direction::kHostToDevice, HostMemory::kPageable},
      {Direction::kDeviceToHost, HostMemory::kPinned},
      {Direction::kDeviceToHost, HostMemory::kPageable},
      {Direction::kDeviceToDevice, HostMemory::kNone}};
  for (size_t i = 0; i < paths.size(); ++i) {
    EXPECT_EQ(paths[i].direction, expected[i].first) << i;
    EXPECT_EQ(paths[i].host_memory, expected[i].second) << i;
  }
}

TEST(CudaBaselinePaths, OnlyPageableCopiesGoUngated) {
  EXPECT_TRUE(CanGate({Direction::kHostToDevice, HostMemory::kPinned}));
  EXPECT_TRUE(CanGate({Direction::kDeviceToHost, HostMemory::kPinned}));
  EXPECT_TRUE(CanGate({Direction::kDeviceToDevice, HostMemory::kNone}));
  EXPECT_FALSE(CanGate({Direction::kHostToDevice, HostMemory::kPageable}));
  EXPECT_FALSE(CanGate({Direction::kDeviceToHost, HostMemory::kPageable}));
}

// A `sectl bench` report of the bundled cpu plugin, from the sectl binary.
bench::BenchReport SectlBenchReport(const std::vector<std::string>& arguments) {
  std::vector<std::string> command = {"bench"};
  command.insert(command.end(), arguments.begin(), arguments.end());
  command.insert(command.end(), {"--budget", "0.01", "--report", "json"});
  const testing::CommandResult result = testing::RunSectl(command);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  auto report = bench::ParseBenchReport(result.out);
  EXPECT_TRUE(report) << (report ? "" : report.error().message());
  return report ? *report : bench::BenchReport{};
}

// `report` as the baseline writes it and --compare reads it back.
bench::BenchReport RoundTrip(const bench::BenchReport& report) {
  auto read = bench::ParseBenchReport(bench::BenchReportToJsonText(report));
  EXPECT_TRUE(read) << (read ? "" : read.error().message());
  return read ? *read : bench::BenchReport{};
}

// Every row of comparing `raw` with `sectl` pairs a result of each.
void ExpectEveryResultPaired(const bench::BenchReport& raw, const bench::BenchReport& sectl,
                             size_t results) {
  const auto comparison = bench::CompareBenchReports(RoundTrip(raw), sectl, 0.05);
  ASSERT_TRUE(comparison) << comparison.error().message();
  EXPECT_EQ(comparison->rows.size(), results);
  EXPECT_EQ(comparison->only_in_old, 0);
  EXPECT_EQ(comparison->only_in_new, 0);
  for (const bench::ComparisonRow& row : comparison->rows) {
    EXPECT_NE(row.verdict, bench::ChangeVerdict::kOnlyInOld) << bench::RowName(row);
    EXPECT_NE(row.verdict, bench::ChangeVerdict::kOnlyInNew) << bench::RowName(row);
  }
}

// A memcpy report as RunBaseline makes it, with this machine's device or
// none (then each result carries its error).
bench::BenchReport RawMemcpyReport(const BaselineOptions& options) {
  bench::BenchReport report;
  report.kind = "memcpy";
  report.tool_name = "sectl-cuda-baseline";
  for (const uint64_t bytes : options.sizes) {
    for (const RawCopyPath& path : PlanRawPaths(options)) {
      report.results.push_back(MeasureRawCopy(path, bytes, 1.0, options.copy));
    }
  }
  return report;
}

TEST(CudaBaselineReport, MemcpyResultsPairWithSectlBenchByHostMemory) {
  for (const std::string memory : {"pinned", "pageable", "both"}) {
    auto request = Parse({"--host-memory", memory, "--sizes", "4KiB,64KiB", "--budget", "0.01"});
    ASSERT_TRUE(request) << request.error().message();
    const bench::BenchReport raw = RawMemcpyReport(request->memcpy);
    const bench::BenchReport sectl =
        SectlBenchReport({"memcpy", "--host-memory", memory, "--sizes", "4KiB,64KiB"});
    // Per size: h2d and d2h for each host memory, and d2d.
    const size_t per_size = memory == "both" ? 5 : 3;
    EXPECT_EQ(raw.results.size(), 2 * per_size) << memory;
    ExpectEveryResultPaired(raw, sectl, 2 * per_size);
  }
}

TEST(CudaBaselineReport, LatencyOperationsAreSectlBenchLatencys) {
  const std::vector<std::string_view> sectl = bench::LatencyOperationNames();
  EXPECT_EQ(RawLatencyOperationNames(), sectl);
}

TEST(CudaBaselineReport, LatencyResultsPairWithSectlBenchLatency) {
  bench::BenchReport raw;
  raw.kind = "latency";
  bench::SamplingPlan plan;
  plan.budget = std::chrono::duration<double>(0.01);
  MeasureRawLatencies(plan, /*progress=*/false, raw);
  ASSERT_EQ(raw.latency.size(), bench::LatencyOperationNames().size());
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    // Without a device, each says why it was not measured.
    for (const bench::LatencyResult& result : raw.latency) {
      ASSERT_TRUE(result.error) << result.operation;
      EXPECT_NE(result.error->find("setting up: "), std::string::npos) << *result.error;
    }
  }
  ExpectEveryResultPaired(raw, SectlBenchReport({"latency"}), raw.latency.size());
}

}  // namespace
}  // namespace sectl::cuda_baseline
