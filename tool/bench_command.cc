#include "tool/bench_command.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <optional>

#include "abi/host_generations.h"
#include "base/byte_sizes.h"
#include "base/host_info.h"
#include "bench/bench_compare.h"
#include "bench/bench_csv.h"
#include "bench/bench_html.h"
#include "bench/bench_json.h"
#include "bench/bench_plot.h"
#include "bench/bench_table.h"
#include "bench/regression_confirmation.h"
#include "bench/run_bench.h"
#include "isolation/interruption.h"
#include "loader/plugin_library.h"
#include "tool/command_support.h"
#include "tool/exit_codes.h"
#include "tool/number_flags.h"
#include "tool/plugin_argument.h"
#include "tool/progress_bar.h"
#include "tool/report_output.h"

namespace sectl::tool {
namespace {

using bench::BenchReport;

// More runs than anyone waits for; a typo (1000) should not start them.
constexpr int kMostRepeatRuns = 100;
// A copy of N bytes holds about this many N-byte host buffers at once: the
// host side, the pattern it is checked against, the bytes read back.
constexpr uint64_t kHostBuffersPerCopy = 3;

// Adds the options memcpy and latency share.
void AddCommonOptions(CLI::App& command, BenchCommandOptions& options) {
  command.add_option("plugin", options.plugin,
                     "Plugin file (.so). Default: the bundled cpu reference plugin");
  command
      .add_option("--budget", options.budget_seconds,
                  "Seconds spent measuring each size or operation once its median is not yet "
                  "stable (at least 5 samples are always taken)")
      ->check(SecondsBetween())
      ->capture_default_str();
  command.add_option("--device", options.device, "Device ordinal to measure")
      ->check(WholeNumberBetween(0, kMaxDeviceOrdinal))
      ->capture_default_str();
  command.add_option("--tf-version", options.tf_version, "TensorFlow host generation to behave as")
      ->check(CLI::IsMember(HostGenerationIds()))
      ->capture_default_str();
  command.add_flag("--lazy", options.lazy, "Bind the plugin's symbols lazily (RTLD_LAZY)");
  command.add_option("--report", options.report_format, "Report format")
      ->check(CLI::IsMember({"table", "json", "csv", "html"}))
      ->capture_default_str();
  command.add_option("-o,--output", options.output, "Write the report to FILE (atomically)");
  command.add_option("--html", options.html_output,
                     "Also write the report as one self-contained HTML page to FILE (memcpy: "
                     "with the bandwidth plot)");
  command.add_option("--compare", options.compare,
                     "A saved JSON report (-o run.json --report json) to compare with; exit "
                     "status 1 when a result is worse by more than --tolerance and the samples "
                     "show it is no noise (Mann-Whitney U tests at 0.05 for all results "
                     "together), 3 (inconclusive) when more than half of the results could not "
                     "be judged (unstable or not comparable)");
  command
      .add_option("--tolerance", options.tolerance,
                  "How much worse than --compare a result may be, e.g. 10%")
      ->capture_default_str();
  command
      .add_option("--repeat-runs", options.repeat_runs,
                  "Run the whole measurement N times, each in a fresh process, and report per "
                  "result the median of the runs' medians (with every run's samples): for a "
                  "gate that must not be swayed by one disturbed run")
      ->check(WholeNumberBetween(1, kMostRepeatRuns))
      ->capture_default_str();
  command
      .add_option("--confirm-runs", options.confirm_runs,
                  "With --compare: measure each result that looks regressed again in N fresh "
                  "processes; it stays a regression only if every run, and all of them "
                  "together, show it (0: judge the first run alone)")
      ->check(WholeNumberBetween(0, kMostRepeatRuns))
      ->capture_default_str();
  command
      .add_option("--timeout", options.timeout_seconds,
                  "Seconds without progress (no plugin call returning) before the plugin is "
                  "killed, and the most one step (a size on one copy path, or one operation) "
                  "may take: after 2 steps took longer, the bench stops measuring, reports "
                  "the steps it did not measure and why, and exits with status 1")
      ->check(SecondsBetween())
      ->capture_default_str();
  command
      .add_option("--deadline", options.deadline_seconds,
                  "Seconds the whole measurement (each run of it) may take: once they have "
                  "passed, the bench stops measuring, reports the steps it did not measure and "
                  "why, and exits with status 1. Default: 2 x --budget per step plus 4 x "
                  "--timeout (274 s for the default memcpy sweep)")
      ->check(SecondsBetween());
  command
      .add_option("--isolation", options.isolation,
                  "Run the plugin in a child process, or in sectl itself (for debugging)")
      ->check(CLI::IsMember({"process", "none"}))
      ->capture_default_str();
  AddConfinementFlags(command, options.confinement);
  command.add_flag("--no-progress", options.no_progress,
                   "No progress bar (it is drawn only when stderr is a terminal anyway)");
  AddColorFlag(command, options.output_flags);
}

// `text`, a comma-separated list of values `parse` knows, or "all"/"both".
// An unknown value is an error that says which values there are (`valid`).
template <typename T, typename Parse>
Expected<std::vector<T>> ParseChoices(const std::string& text, std::string_view flag,
                                      std::string_view valid, std::vector<T> all, Parse parse) {
  if (text == "all" || text == "both") return all;
  std::vector<T> chosen;
  std::string_view rest = text;
  for (;;) {
    const size_t comma = rest.find(',');
    const std::string_view name = rest.substr(0, comma);
    const auto value = parse(name);
    if (!value) {
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("{} {}: unknown value \"{}\"; give {}", flag, text, name, valid));
    }
    chosen.push_back(*value);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return chosen;
}

// A size whose buffers cannot all be in this machine's memory at once is
// a usage error found now, not an allocation failure (blamed on the plugin)
// minutes into the run.
Expected<void> CheckSizesFitInMemory(const std::vector<uint64_t>& sizes) {
  const uint64_t memory = DescribeHost().memory_bytes;
  if (sizes.empty() || memory == 0) return {};
  const uint64_t largest = sizes.back();  // ParseSizeList sorts them
  if (largest <= memory / kHostBuffersPerCopy) return {};
  return Fail(ErrorCode::kInvalidArgument,
              fmt::format("--sizes: a copy of {} needs about {}x that in host memory (the host "
                          "side, the pattern to check it with, the bytes read back), and this "
                          "machine has {}; the largest size it can measure is {}",
                          FormatByteSize(largest), kHostBuffersPerCopy, FormatByteSize(memory),
                          FormatByteSize(memory / kHostBuffersPerCopy)));
}

Expected<bench::MemcpyBenchOptions> MemcpyOptions(const BenchCommandOptions& options) {
  bench::MemcpyBenchOptions memcpy;
  auto sizes = ParseSizeList(options.sizes);
  if (!sizes) return tl::unexpected(sizes.error().WithContext("--sizes"));
  if (auto fits = CheckSizesFitInMemory(*sizes); !fits) return tl::unexpected(fits.error());
  memcpy.sizes = std::move(*sizes);
  auto directions = ParseChoices<bench::Direction>(
      options.directions, "--direction", "h2d, d2h, d2d, a comma-separated list of them, or all",
      {std::begin(bench::kAllDirections), std::end(bench::kAllDirections)}, bench::ParseDirection);
  if (!directions) return tl::unexpected(directions.error());
  memcpy.directions = std::move(*directions);
  if (options.host_memory != "auto") {
    auto memories = ParseChoices<bench::HostMemory>(
        options.host_memory, "--host-memory", "pinned, pageable, both or auto",
        {bench::HostMemory::kPinned, bench::HostMemory::kPageable},
        [](std::string_view name) -> std::optional<bench::HostMemory> {
          auto memory = bench::ParseHostMemory(name);
          if (memory == bench::HostMemory::kNone) return std::nullopt;
          return memory;
        });
    if (!memories) return tl::unexpected(memories.error());
    memcpy.host_memories = std::move(*memories);
  }
  auto modes = ParseChoices<bench::CopyMode>(options.mode, "--mode", "async, sync or both",
                                             {bench::CopyMode::kAsync, bench::CopyMode::kSync},
                                             bench::ParseCopyMode);
  if (!modes) return tl::unexpected(modes.error());
  memcpy.modes = std::move(*modes);
  memcpy.verify = !options.no_verify;
  return memcpy;
}

std::string Render(const BenchReport& report, const bench::Comparison* comparison,
                   const BenchCommandOptions& options) {
  const std::string& format = options.report_format;
  if (format == "json") return bench::BenchReportToJsonText(report);
  if (format == "csv") return bench::RenderBenchCsv(report);
  if (format == "html") return bench::RenderBenchHtml(report, comparison);
  const TableLayout layout = ChooseTableLayout(options.output_flags, options.output);
  return bench::RenderBenchTable(report, {.color = layout.color, .width = layout.width});
}

bool AnyVerificationFailed(const BenchReport& report) {
  for (const auto& result : report.results) {
    if (result.verification.failed()) return true;
  }
  return false;
}

// Compares the run with the saved report and re-measures what looks
// regressed (regression_confirmation.h), with a progress bar of its own.
Expected<bench::Comparison> CompareWithSaved(const BenchReport& saved, const BenchReport& report,
                                             bench::BenchOptions run,
                                             const BenchCommandOptions& options) {
  auto tolerance = ParsePercentage(options.tolerance);
  if (!tolerance) return tl::unexpected(tolerance.error().WithContext("--tolerance"));
  auto comparison = bench::CompareBenchReports(saved, report, *tolerance);
  if (!comparison) return tl::unexpected(comparison.error().WithContext(options.compare));
  if (bench::HasRegressions(*comparison) && options.confirm_runs > 0) {
    ProgressBar progress(!options.no_progress);
    run.on_progress = [&](int done, int total, std::string_view step) {
      progress.Update(done, total, step);
    };
    return bench::ConfirmRegressions(saved, report, *comparison, run, options.confirm_runs);
  }
  return comparison;
}

}  // namespace

BenchCommands AddBenchCommand(CLI::App& app, BenchCommandOptions& options) {
  auto* bench = app.add_subcommand(
      "bench",
      "Measure a plugin: copy bandwidth beside the host's memcpy ceiling (memcpy), or the "
      "latency of frequent operations (latency). Exit status 1 if the plugin fails, a copy "
      "fails verification, a result is not measurable (the plugin's completion cannot be "
      "believed), the bench stopped early (2 steps took longer than --timeout, or "
      "--deadline passed), or --compare finds a regression; 3 if --compare could not judge "
      "most results.");
  bench->require_subcommand(1);

  auto* memcpy = bench->add_subcommand(
      "memcpy",
      "Bandwidth of h2d, d2h and d2d copies over a size sweep, in GB/s (10^9 bytes/s): median, "
      "p5, p95, min, max, beside the host's own memcpy at each size. Copies are verified.");
  AddCommonOptions(*memcpy, options);
  memcpy
      ->add_option("--direction", options.directions,
                   "Copy directions: h2d, d2h, d2d, a comma-separated list, or all")
      ->capture_default_str();
  memcpy
      ->add_option("--host-memory", options.host_memory,
                   "Host side of h2d/d2h: pinned (host_memory_allocate), pageable, both, or "
                   "auto (pinned when the plugin provides it)")
      ->capture_default_str();
  memcpy
      ->add_option("--mode", options.mode,
                   "async (memcpy_* on a stream), sync (sync_memcpy_*), or both")
      ->capture_default_str();
  memcpy
      ->add_option("--sizes", options.sizes,
                   "Sizes: 64MiB, a list 4KiB,1MiB, or a range 4KiB:256MiB (doubling) or "
                   "4KiB:256MiB:x4")
      ->capture_default_str();
  memcpy->add_flag("--no-verify", options.no_verify, "Do not verify the copied data");
  memcpy->add_option("--plot", options.plot,
                     "Also draw bandwidth against size as an SVG file (open it in a browser)");

  auto* latency = bench->add_subcommand(
      "latency",
      "Nanoseconds per operation (median, p95): tiny copy enqueue, host callback round trip, "
      "event record-to-complete, allocate+deallocate, stream and event create+destroy, "
      "get_event_status, block_host_until_done on an idle stream.");
  AddCommonOptions(*latency, options);
  return {bench, memcpy, latency};
}

int RunBenchCommand(const BenchCommands& commands, const BenchCommandOptions& options) {
  const bool is_memcpy = commands.memcpy->parsed();
  bench::BenchOptions run;
  run.kind = is_memcpy ? bench::BenchKind::kMemcpy : bench::BenchKind::kLatency;
  if (is_memcpy) {
    auto memcpy = MemcpyOptions(options);
    if (!memcpy) return ReportError(memcpy.error());
    run.memcpy = std::move(*memcpy);
  }
  // Check what the gate and the outputs need before spending minutes
  // measuring. A saved report that cannot be read, or is of another kind,
  // is bad input (exit status 2), whatever the reason, never the plugin's
  // problem. It is read now, once: -o may be about to replace it.
  if (auto tolerance = ParsePercentage(options.tolerance); !tolerance)
    return ReportUsageError(tolerance.error().WithContext("--tolerance").message());
  std::optional<BenchReport> saved;
  if (!options.compare.empty()) {
    auto read = bench::ReadBenchReport(options.compare);
    if (!read) return ReportUsageError(read.error().message());
    const std::string_view kind = is_memcpy ? "memcpy" : "latency";
    if (auto comparable = bench::CheckComparable(*read, kind); !comparable) {
      return ReportUsageError(
          fmt::format("--compare {}: {}", options.compare, comparable.error().message()));
    }
    saved = std::move(*read);
  }
  if (auto writable = CheckReportDestination(options.output, "-o"); !writable)
    return ReportUsageError(writable.error().message());
  if (is_memcpy && !options.plot.empty()) {
    // The plot is SVG and nothing else; a .png name would get SVG in it.
    if (!options.plot.ends_with(".svg")) {
      return ReportUsageError(
          fmt::format("--plot {}: the plot is drawn as SVG only; give a file name ending in .svg",
                      options.plot));
    }
    if (auto writable = CheckReportDestination(options.plot, "--plot"); !writable)
      return ReportUsageError(writable.error().message());
  }
  if (auto html = CheckReportDestination(options.html_output, "--html"); !html)
    return ReportUsageError(html.error().message());

  auto plugin = ChoosePluginPath(options.plugin, "sectl_cpu");
  if (!plugin) return ReportError(plugin.error());
  run.plugin_path = *plugin;
  // A TVM plugin has no StreamExecutor to measure; --abi is conform's and
  // probe's flag, not bench's.
  if (auto abi = loader::RecognisePluginAbi(run.plugin_path);
      abi && *abi != loader::PluginAbi::kStreamExecutor) {
    return ReportUsageError(fmt::format(
        "{}: exports no SE_InitPlugin but TVM's API ({}): sectl bench measures StreamExecutor "
        "plugins only; check this plugin with sectl conform or sectl probe",
        run.plugin_path, loader::PluginAbiName(*abi)));
  }
  run.lazy = options.lazy;
  run.generation = *abi::FindHostGeneration(options.tf_version);
  run.device_ordinal = options.device;
  run.memcpy.plan.budget = std::chrono::duration<double>(options.budget_seconds);
  run.latency_plan.budget = std::chrono::duration<double>(options.budget_seconds);
  run.isolate = options.isolation != "none";
  auto confinement = ConfinementFromFlags(options.confinement, {run.plugin_path});
  if (!confinement) return ReportUsageError(confinement.error().message());
  run.confinement = std::move(*confinement);
  run.stall_timeout =
      std::chrono::milliseconds(static_cast<int64_t>(options.timeout_seconds * 1000));
  run.deadline = std::chrono::milliseconds(static_cast<int64_t>(options.deadline_seconds * 1000));
  run.command_line = options.command_line;
  run.tool_version = SECTL_VERSION;
  run.runs = options.repeat_runs;

  std::optional<BenchReport> report;
  {
    ProgressBar progress(!options.no_progress);
    run.on_progress = [&](int done, int total, std::string_view step) {
      progress.Update(done, total, step);
    };
    auto measured = bench::RunBench(run);
    if (measured) {
      report = std::move(*measured);
    } else if (isolation::InterruptedBy() == 0) {
      return ReportError(measured.error());
    }
  }
  // After the progress bar has cleared its line; a measurement cut short
  // is no report.
  if (const int signal = isolation::InterruptedBy(); signal != 0) return ReportInterruption(signal);

  // The gate first, so that the HTML page can show it; its table is
  // printed last, after the report.
  std::optional<bench::Comparison> comparison;
  if (saved) {
    auto compared = CompareWithSaved(*saved, *report, run, options);
    if (const int signal = isolation::InterruptedBy(); signal != 0)
      return ReportInterruption(signal);
    if (!compared) return ReportError(compared.error());
    comparison = std::move(*compared);
  }
  const bench::Comparison* shown = comparison ? &*comparison : nullptr;

  if (auto written = WriteReport(options.output, Render(*report, shown, options)); !written)
    return ReportError(written.error());
  if (is_memcpy && !options.plot.empty()) {
    if (auto drawn = WriteReport(options.plot, bench::RenderBandwidthSvg(*report)); !drawn)
      return ReportError(drawn.error());
  }
  if (!options.html_output.empty()) {
    if (auto html = WriteReport(options.html_output, bench::RenderBenchHtml(*report, shown)); !html)
      return ReportError(html.error());
  }

  // A result that is no number fails the run like wrong bytes do: a gate
  // must not pass on what it could not measure.
  // A run that stopped before its last step (the plugin stalled in its
  // steps, or the deadline passed) did not measure what was asked.
  bool passed =
      !AnyVerificationFailed(*report) && !bench::AnyNotMeasurable(*report) && !report->stopped;
  if (comparison) {
    // Where it does not spoil a machine-readable report on stdout.
    const bool report_on_stdout =
        (options.output.empty() || options.output == "-") && options.report_format != "table";
    const size_t width = report_on_stdout ? 0 : ChooseTableLayout(options.output_flags, "").width;
    // A blank line between the table report and the comparison after it.
    const bool after_table = !report_on_stdout && (options.output.empty() || options.output == "-");
    std::fputs(((after_table ? "\n" : "") + bench::RenderComparison(*comparison, width)).c_str(),
               report_on_stdout ? stderr : stdout);
    if (passed) return ExitStatusOfGate(bench::JudgeGate(*comparison));
  }
  return passed ? kExitSuccess : kExitPluginProblem;
}

}  // namespace sectl::tool
