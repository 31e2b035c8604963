// sectl-cuda-baseline: raw CUDA measured the way `sectl bench` measures a
// plugin, written as a sectl bench report. Compare the sectl_cuda plugin
// with it in one command each:
//
//   sectl-cuda-baseline -o baseline.json                       # cudaMemcpyAsync, pinned
//   sectl bench memcpy sectl_cuda.so --compare baseline.json --tolerance 5%
//   sectl-cuda-baseline --host-memory pageable -o pageable.json
//   sectl bench memcpy sectl_cuda.so --host-memory pageable --compare pageable.json
//   sectl-cuda-baseline latency -o raw_latency.json            # the calls behind each operation
//   sectl bench latency sectl_cuda.so --compare raw_latency.json
//
// Exit status: 0 success; 1 no usable CUDA device, or a measurement failed
// or a copy was not verified; 2 usage or internal error.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>

#include "base/atomic_file.h"
#include "baseline_options.h"
#include "bench/bench_json.h"

namespace {

using sectl::cuda_baseline::BaselineKind;
using sectl::cuda_baseline::BaselineRequest;

constexpr int kExitSuccess = 0;
constexpr int kExitDeviceProblem = 1;
constexpr int kExitUsageOrInternal = 2;

int ReportError(std::string_view message, int exit_code) {
  std::fprintf(stderr, "sectl-cuda-baseline: error: %.*s\n", static_cast<int>(message.size()),
               message.data());
  return exit_code;
}

// Whether every result was measured and, where verified, verified.
bool AllMeasured(const sectl::bench::BenchReport& report) {
  for (const auto& result : report.results) {
    if (result.error || result.verification.failed()) return false;
  }
  for (const auto& result : report.latency) {
    if (result.error) return false;
  }
  return true;
}

sectl::Expected<sectl::bench::BenchReport> Run(BaselineRequest& request,
                                               const std::vector<std::string>& command_line) {
  const bool progress = ::isatty(STDERR_FILENO) != 0;
  if (request.kind == BaselineKind::kLatency) {
    request.latency.command_line = command_line;
    request.latency.progress = progress;
    return sectl::cuda_baseline::RunLatencyBaseline(request.latency);
  }
  request.memcpy.command_line = command_line;
  request.memcpy.progress = progress;
  return sectl::cuda_baseline::RunBaseline(request.memcpy);
}

int Main(int argc, char** argv) {
  CLI::App app(
      "Raw CUDA measured as `sectl bench` measures a plugin, written as a sectl bench JSON "
      "report for --compare: the bandwidth of cudaMemcpyAsync with pinned or pageable host "
      "memory (memcpy, the default), or the CUDA calls behind each `sectl bench latency` "
      "operation (latency).\n\nExit status: 0 success; 1 no usable CUDA device, or a "
      "measurement failed or a copy was not verified; 2 usage or internal error.",
      "sectl-cuda-baseline");
  app.failure_message([](const CLI::App* command, const CLI::Error& error) {
    const std::string name = command->get_parent() != nullptr
                                 ? "sectl-cuda-baseline " + command->get_name()
                                 : command->get_name();
    return fmt::format("sectl-cuda-baseline: error: {} (see '{} --help')\n", error.what(), name);
  });
  sectl::cuda_baseline::CommandLine line;
  sectl::cuda_baseline::DeclareCommandLine(app, line);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? kExitSuccess : kExitUsageOrInternal;
  }

  auto request = sectl::cuda_baseline::ToRequest(line, app);
  if (!request) return ReportError(request.error().message(), kExitUsageOrInternal);
  auto report = Run(*request, std::vector<std::string>(argv, argv + argc));
  if (!report) {
    const bool usage = report.error().code() == sectl::ErrorCode::kInvalidArgument;
    return ReportError(report.error().message(), usage ? kExitUsageOrInternal : kExitDeviceProblem);
  }
  const std::string json = sectl::bench::BenchReportToJsonText(*report);
  if (request->output.empty()) {
    std::fwrite(json.data(), 1, json.size(), stdout);
  } else if (auto written = sectl::WriteFileAtomically(request->output, json); !written) {
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
