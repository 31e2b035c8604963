// sectl-cuda-baseline: the bandwidth of raw cudaMemcpyAsync, measured the
// way `sectl bench memcpy` measures a plugin, written as a sectl bench
// report. Compare the sectl_cuda plugin with it in one command:
//
//   sectl-cuda-baseline -o baseline.json
//   sectl bench memcpy sectl_cuda.so --compare baseline.json --tolerance 5%
//
// Exit status: 0 success; 1 no usable CUDA device, or a copy failed or was
// not verified; 2 usage or internal error.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include "base/atomic_file.h"
#include "base/byte_sizes.h"
#include "baseline_run.h"
#include "bench/bench_json.h"

namespace {

using sectl::cuda_baseline::BaselineOptions;

constexpr int kExitSuccess = 0;
constexpr int kExitDeviceProblem = 1;
constexpr int kExitUsageOrInternal = 2;

struct CommandLine {
  std::string sizes = "4KiB:256MiB";  // `sectl bench memcpy`'s default
  std::string directions = "all";
  int device = 0;
  double budget_seconds = 0.25;
  bool no_verify = false;
  std::string output;
};

int ReportError(std::string_view message, int exit_code) {
  std::fprintf(stderr, "sectl-cuda-baseline: error: %.*s\n", static_cast<int>(message.size()),
               message.data());
  return exit_code;
}

// "h2d,d2d" or "all".
sectl::Expected<std::vector<sectl::bench::Direction>> ParseDirections(const std::string& text) {
  using sectl::bench::kAllDirections;
  if (text == "all") return std::vector(std::begin(kAllDirections), std::end(kAllDirections));
  std::vector<sectl::bench::Direction> directions;
  std::string_view rest = text;
  while (true) {
    const size_t comma = rest.find(',');
    const std::string_view name = rest.substr(0, comma);
    const auto direction = sectl::bench::ParseDirection(name);
    if (!direction) {
      return sectl::Fail(sectl::ErrorCode::kInvalidArgument,
                         fmt::format("--direction {}: unknown value \"{}\"", text, name));
    }
    directions.push_back(*direction);
    if (comma == std::string_view::npos) return directions;
    rest.remove_prefix(comma + 1);
  }
}

sectl::Expected<BaselineOptions> ToOptions(const CommandLine& line) {
  BaselineOptions options;
  auto sizes = sectl::ParseSizeList(line.sizes);
  if (!sizes) return tl::unexpected(sizes.error().WithContext("--sizes"));
  options.sizes = std::move(*sizes);
  auto directions = ParseDirections(line.directions);
  if (!directions) return tl::unexpected(directions.error());
  options.directions = std::move(*directions);
  if (!(line.budget_seconds > 0)) {
    return sectl::Fail(
        sectl::ErrorCode::kInvalidArgument,
        fmt::format("--budget {}: must be a positive number of seconds", line.budget_seconds));
  }
  options.copy.plan.budget = std::chrono::duration<double>(line.budget_seconds);
  options.copy.verify = !line.no_verify;
  options.device = line.device;
  options.progress = ::isatty(STDERR_FILENO) != 0;
  return options;
}

// Whether every result was measured and, where verified, verified.
bool AllMeasured(const sectl::bench::BenchReport& report) {
  for (const auto& result : report.results) {
    if (result.error || result.verification.failed()) return false;
  }
  return true;
}

int Main(int argc, char** argv) {
  CLI::App app(
      "The bandwidth of raw cudaMemcpyAsync with pinned host memory, measured as `sectl bench "
      "memcpy` measures a plugin, written as a sectl bench JSON report for --compare.\n\nExit "
      "status: 0 success; 1 no usable CUDA device, or a copy failed or was not verified; 2 usage "
      "or internal error.",
      "sectl-cuda-baseline");
  app.failure_message([](const CLI::App* command, const CLI::Error& error) {
    return fmt::format("sectl-cuda-baseline: error: {} (see '{} --help')\n", error.what(),
                       command->get_name());
  });
  CommandLine line;
  app.add_option("--sizes", line.sizes,
                 "Sizes as for sectl bench memcpy: 4KiB,1MiB or 4KiB:256MiB (doubling) or "
                 "4KiB:256MiB:x4")
      ->capture_default_str();
  app.add_option("--direction", line.directions, "h2d, d2h, d2d, a comma-separated list, or all")
      ->capture_default_str();
  app.add_option("--device", line.device, "CUDA device ordinal")->capture_default_str();
  app.add_option("--budget", line.budget_seconds,
                 "Seconds per measurement, at most, once the median is stable")
      ->capture_default_str();
  app.add_flag("--no-verify", line.no_verify, "Do not verify the copied data");
  app.add_option("-o,--output", line.output,
                 "Write the JSON report to FILE (atomically) instead of stdout");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? kExitSuccess : kExitUsageOrInternal;
  }

  auto options = ToOptions(line);
  if (!options) return ReportError(options.error().message(), kExitUsageOrInternal);
  options->command_line.assign(argv, argv + argc);
  auto report = sectl::cuda_baseline::RunBaseline(*options);
  if (!report) {
    const bool usage = report.error().code() == sectl::ErrorCode::kInvalidArgument;
    return ReportError(report.error().message(), usage ? kExitUsageOrInternal : kExitDeviceProblem);
  }
  const std::string json = sectl::bench::BenchReportToJsonText(*report);
  if (line.output.empty()) {
    std::fwrite(json.data(), 1, json.size(), stdout);
  } else if (auto written = sectl::WriteFileAtomically(line.output, json); !written) {
    return ReportError(written.error().message(), kExitUsageOrInternal);
  }
  return AllMeasured(*report) ? kExitSuccess : kExitDeviceProblem;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Main(argc, argv);
  } catch (const std::exception& error) {
    return ReportError(std::string("internal error: ") + error.what(), kExitUsageOrInternal);
  }
}
