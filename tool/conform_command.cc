#include "tool/conform_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "abi/host_generations.h"
#include "base/atomic_file.h"
#include "base/json_text.h"
#include "base/regular_file.h"
#include "base/text_layout.h"
#include "conform/baseline.h"
#include "conform/check_registry.h"
#include "conform/run_conform.h"
#include "isolation/interruption.h"
#include "loader/plugin_library.h"
#include "remote/server_location.h"
#include "report/conform_json.h"
#include "report/conform_junit.h"
#include "report/conform_table.h"
#include "tool/command_support.h"
#include "tool/exit_codes.h"
#include "tool/html_report.h"
#include "tool/number_flags.h"
#include "tool/plugin_argument.h"
#include "tool/report_output.h"
#include "tvm/device_api_route.h"

namespace sectl::tool {
namespace {

// The shard: --shard wins over the environment GoogleTest users set.
Expected<conform::Shard> ChooseShard(const std::string& flag) {
  if (!flag.empty()) return conform::ParseShard(flag);
  auto from_environment = conform::ShardFromEnvironment(std::getenv("GTEST_TOTAL_SHARDS"),
                                                        std::getenv("GTEST_SHARD_INDEX"));
  if (!from_environment) return tl::unexpected(from_environment.error());
  return from_environment->value_or(conform::Shard{});
}

// The plugin functions a check tests, by name; empty when it declares none
// (every function it calls is then under test).
std::vector<std::string> TestedFunctionNames(const conform::CheckDefinition& check) {
  std::vector<std::string> names;
  for (auto function : check.traits.tests) names.emplace_back(abi::QualifiedName(function));
  return names;
}

// GoogleTest's convention: a filter that selects no check is a mistake. A
// typo (`--filter memcpy` for `memcpy.*`) would otherwise run nothing,
// report "conformant" and keep a vendor's CI green forever. A shard may
// still be empty: sharding, not the filter, leaves it so.
std::optional<std::string> NoCheckSelected(const std::string& profile,
                                           const conform::SelectionOptions& selection) {
  conform::SelectionOptions unsharded;
  unsharded.filter = selection.filter;
  if (!conform::PlanChecks(profile, unsharded).empty()) return std::nullopt;
  std::vector<std::string> ids;
  for (const auto& planned : conform::PlanChecks(profile, {})) ids.push_back(planned.check->id);
  std::vector<std::string> suggestions;
  for (const std::string& suggestion : conform::SuggestSelections(selection.filter, ids, 3)) {
    suggestions.push_back(fmt::format("'{}'", suggestion));
  }
  return fmt::format("--filter '{}' selects none of the {} checks of the {} profile; {}",
                     selection.filter.text(), ids.size(), profile,
                     suggestions.empty()
                         ? std::string("sectl conform --list shows them")
                         : fmt::format("did you mean {}?", fmt::join(suggestions, " or ")));
}

// What --report and --format ask for, once reconciled: --format is the
// list's format with --list, and otherwise a synonym of --report (never
// silently ignored, as it once was). Given both, they must agree.
struct OutputFormats {
  std::string report = "table";
  std::string list = "table";
};

Expected<OutputFormats> ChooseOutputFormats(const ConformCommandOptions& options) {
  OutputFormats formats;
  if (options.list) {
    if (options.format == "junit" || options.format == "html") {
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("--list --format {}: a list is table or json", options.format));
    }
    if (!options.format.empty()) formats.list = options.format;
    return formats;
  }
  if (!options.format.empty() && !options.report_format.empty() &&
      options.format != options.report_format) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("--format {} and --report {} disagree; give one of them",
                            options.format, options.report_format));
  }
  if (!options.report_format.empty()) {
    formats.report = options.report_format;
  } else if (!options.format.empty()) {
    formats.report = options.format;
  }
  return formats;
}

// The profile that runs on a plugin of `abi`: a TVM runtime library has
// one, its DeviceAPI's, and a TVM C Device API plugin its own; the default
// (TensorFlow's) profile becomes theirs, another is a usage error.
Expected<std::string> ProfileForAbi(const std::string& profile, loader::PluginAbi abi) {
  if (abi == loader::PluginAbi::kTvmRuntime) {
    if (profile == conform::kTensorFlowProfile) return std::string("tvm-device-api");
    if (profile != "tvm-device-api") {
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("--profile {} does not apply to a tvm-runtime library", profile));
    }
    return profile;
  }
  if (abi == loader::PluginAbi::kTvmCDevice && profile == conform::kTensorFlowProfile) {
    return std::string("tvm-c-device");
  }
  if ((abi == loader::PluginAbi::kTvmCDevice) != (profile == "tvm-c-device")) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("--profile {} does not apply to a {} plugin", profile,
                            loader::PluginAbiName(abi)));
  }
  return profile;
}

// The profile --list lists: the one a run on the named plugin (or the
// --abi given) would run; with neither, the profile asked.
Expected<std::string> ProfileToList(const ConformCommandOptions& options) {
  if (options.plugin.empty() && options.abi == "auto") return options.profile;
  auto plugin = ChoosePluginPath(options.plugin, "sectl_cpu");
  if (!plugin) return tl::unexpected(plugin.error());
  auto abi = loader::ChoosePluginAbi(options.abi, *plugin);
  if (!abi) return tl::unexpected(abi.error());
  return ProfileForAbi(options.profile, *abi);
}

// The table of --list: id, severity and title, one row a check, wrapped at
// `width` (0: not wrapped, one line a check for grep). The title column
// starts at column 50; where that leaves a title too few columns, every
// title goes on the lines under its row instead, so that a title reads as
// a sentence and the rows keep one shape.
std::string ListTable(const std::vector<conform::PlannedCheck>& plan, size_t width) {
  constexpr size_t kTitleColumn = 50;
  constexpr size_t kFewestTitleColumns = 50;
  constexpr size_t kTitleIndent = 4;
  std::vector<std::pair<std::string, std::string>> rows;  // id and severity, title
  bool fits = true;
  for (const auto& planned : plan) {
    if (planned.repetition > 0) continue;
    const auto& check = *planned.check;
    rows.emplace_back(fmt::format("{:<36} {:<12}", check.id, report::SeverityName(check.severity)),
                      check.title);
    fits =
        fits && (width == 0 ||
                 DisplayWidth(rows.back().first) + 1 + DisplayWidth(rows.back().second) <= width);
  }
  const bool title_below = !fits && width < kTitleColumn + kFewestTitleColumns;
  std::string text;
  for (const auto& [start, title] : rows) {
    if (title_below) {
      text +=
          WrapLine(start.substr(0, start.find_last_not_of(' ') + 1), width, kTitleIndent) + "\n";
      text += WrapLine(std::string(kTitleIndent, ' ') + title, width, kTitleIndent) + "\n";
    } else {
      text += WrapLine(fmt::format("{} {}", start, title), width, kTitleColumn) + "\n";
    }
  }
  return text;
}

int ListChecks(const ConformCommandOptions& options, const std::string& profile,
               const conform::SelectionOptions& selection, const std::string& format) {
  const auto plan = conform::PlanChecks(profile, selection);
  std::string text;
  if (format == "json") {
    nlohmann::ordered_json checks = nlohmann::ordered_json::array();
    for (const auto& planned : plan) {
      if (planned.repetition > 0) continue;
      const auto& check = *planned.check;
      checks.push_back({{"id", check.id},
                        {"title", check.title},
                        {"area", check.area()},
                        {"severity", report::SeverityName(check.severity)},
                        {"profiles", check.profiles},
                        {"tests", TestedFunctionNames(check)},
                        {"severity_reason", check.traits.severity_reason},
                        {"source", fmt::format("{}:{}", check.file, check.line)}});
    }
    text = EncodeJson(checks, 2) + "\n";
  } else {
    text = ListTable(plan, ChooseTableLayout(options.output_flags, options.output).width);
  }
  auto written = WriteReport(options.output, text);
  if (!written) return ReportUsageError(written.error().message());
  return kExitSuccess;
}

// A one-line progress display on a terminal's stderr.
class Progress {
 public:
  Progress() : enabled_(::isatty(STDERR_FILENO) != 0) {}
  void Start(size_t planned) { planned_ = planned; }
  void Finished(const report::CheckResult& result) {
    ++done_;
    if (!enabled_) return;
    fmt::print(stderr, "\r\033[K[{}/{}] {} {}", done_, planned_, report::StatusName(result.status),
               result.id);
    if (done_ == planned_) fmt::print(stderr, "\r\033[K");
    std::fflush(stderr);
  }

 private:
  bool enabled_;
  size_t planned_ = 0;
  size_t done_ = 0;
};

std::string Render(const report::ConformReport& report, const std::string& format,
                   const ConformCommandOptions& options) {
  if (format == "json") return report::ConformReportToJson(report);
  if (format == "junit") return report::RenderConformJunit(report);
  if (format == "html") return RenderConformHtmlWithExplanations(report);
  const TableLayout layout = ChooseTableLayout(options.output_flags, options.output);
  return report::RenderConformTable(report, {.color = layout.color,
                                             .verbose = options.verbose,
                                             .quiet = options.output_flags.quiet,
                                             .width = layout.width});
}

}  // namespace

CLI::App* AddConformCommand(CLI::App& app, ConformCommandOptions& options) {
  auto* conform = app.add_subcommand(
      "conform",
      "Run the conformance suite on a plugin, each check in its own process. Exit status 1 if a "
      "required check fails, crashes or times out (after the baseline), or the plugin cannot be "
      "loaded.");
  conform->add_option("plugin", options.plugin,
                      "Plugin file (.so). Default: the bundled cpu reference plugin");
  conform->add_option("--report", options.report_format, "Report format (default: table)")
      ->check(CLI::IsMember({"table", "json", "junit", "html"}));
  conform->add_option("-o,--output", options.output, "Write the report to FILE (atomically)");
  conform->add_option("--junit", options.junit_output, "Also write a JUnit XML report to FILE");
  conform->add_option("--html", options.html_output,
                      "Also write the report as one self-contained HTML page to FILE");
  conform->add_option("--filter", options.filter,
                      "Checks to run, GoogleTest syntax: POSITIVE[-NEGATIVE], ':'-separated "
                      "globs, e.g. 'memcpy.*:registration.*-*.slow'");
  conform->add_option("-j,--jobs", options.jobs, "Checks run at once (default: one per core)")
      ->check(WholeNumberBetween(0, kMaxJobs));
  conform->add_option("--repeat", options.repeat, "Run each check N times")
      ->check(WholeNumberBetween(1, kMaxRepeat))
      ->capture_default_str();
  auto* shuffle = conform->add_flag("--shuffle", options.shuffle, "Run the checks in random order");
  // A seed alone would be silently ignored: the order is only shuffled on request.
  conform->add_option("--seed", options.seed, "Seed for --shuffle (printed when chosen at random)")
      ->needs(shuffle);
  conform->add_option("--shard", options.shard,
                      "Run shard I of N (0-based, e.g. 1/4); default from GTEST_SHARD_INDEX and "
                      "GTEST_TOTAL_SHARDS");
  conform
      ->add_option("--tf-version", options.tf_version,
                   "TensorFlow host generation whose requirements apply")
      ->check(CLI::IsMember(HostGenerationIds()))
      ->capture_default_str();
  conform->add_option("--device", options.device, "Device ordinal under test")
      ->check(WholeNumberBetween(0, kMaxDeviceOrdinal))
      ->capture_default_str();
  conform
      ->add_option("--timeout", options.timeout_seconds,
                   "Seconds before a check is killed and reported as timeout")
      ->check(SecondsBetween())
      ->capture_default_str();
  conform
      ->add_option("--isolation", options.isolation,
                   "A process per check, or none (in sectl itself, for debugging)")
      ->check(CLI::IsMember({"process", "none"}))
      ->capture_default_str();
  conform->add_option("--baseline", options.baseline,
                      "Known failures, flakes and skips (see the README for the format)");
  conform->add_option("--write-baseline", options.write_baseline,
                      "Write the current failures to FILE as a starting baseline");
  conform->add_flag("--list", options.list, "List the selected checks instead of running them");
  conform
      ->add_option("--format", options.format,
                   "Format of --list (table, json), or else of the report, the same as --report")
      ->check(CLI::IsMember({"table", "json", "junit", "html"}));
  conform->add_flag("--lazy", options.lazy, "Bind the plugin's symbols lazily (RTLD_LAZY)");
  conform->add_option("--profile", options.profile, "Which suite to run")
      ->check(CLI::IsMember(conform::CheckRegistry::Global().Profiles()))
      ->capture_default_str();
  conform->add_flag("-v,--verbose", options.verbose,
                    "Show every result's message in the table, repeated findings unfolded");
  AddQuietFlag(*conform, options.output_flags);
  AddColorFlag(*conform, options.output_flags);
  auto* no_throughput =
      conform->add_flag("--no-throughput", options.no_throughput,
                        "Do not end the report with copy bandwidth at 16 MiB (informational; it "
                        "never changes the verdict). It is measured on whole runs only: not "
                        "under --filter, and in shard 0 of --shard alone");
  conform
      ->add_flag("--throughput", options.throughput,
                 "Measure copy bandwidth at 16 MiB under --filter or in any shard too")
      ->excludes(no_throughput);
  conform->add_flag("--no-guard-malloc", options.no_guard_malloc,
                    "Do not place the plugin's small heap blocks against inaccessible guard "
                    "pages in the checks' processes (an overrun then goes undetected)");
  conform
      ->add_option("--abi", options.abi,
                   "The plugin's API: auto (from its exported symbols), streamexecutor, or "
                   "tvm-c-device (TVM's C Device API; runs the tvm-c-device profile), or "
                   "tvm-runtime (a TVM runtime library; runs the tvm-device-api profile)")
      ->check(CLI::IsMember({"auto", "streamexecutor", "tvm-c-device", "tvm-runtime"}))
      ->capture_default_str();
  conform->add_option("--tvm-device-type", options.tvm_device_type,
                      "TVM runtime library: the device type whose DeviceAPI is checked, by TVM's "
                      "name (cpu, cuda, opencl, vulkan, metal, rocm, ext_dev, ...) or DLDeviceType "
                      "number. Default: the type a backend library serves "
                      "(libtvm_runtime_vulkan.so: vulkan), else cpu");
  conform->add_option("--tvm-core", options.tvm_core,
                      "TVM backend library (libtvm_runtime_<name>.so, TVM v0.25+): TVM's core "
                      "library it needs (libtvm_runtime.so), where neither the dynamic linker "
                      "nor the backend's own directory has it");
  conform
      ->add_option("--tvm-device-id", options.tvm_device_id,
                   "TVM runtime library: the device id under test (default: --device)")
      ->check(WholeNumberBetween(0, kMaxDeviceOrdinal));
  conform->add_option("--tvm-device", options.tvm_device,
                      "TVM C Device API device under test: a target name (ethos-u) or its C "
                      "name (EthosU). Default: the first the plugin exports");
  conform
      ->add_option("--context-bytes", options.context_bytes,
                   "Bytes of zeroed, guarded storage sectl provides as a TVM device's context")
      ->check(CLI::Range(size_t{1}, size_t{1} << 20))
      ->capture_default_str();
  AddConfinementFlags(*conform, options.confinement);
  return conform;
}

int RunConformCommand(const ConformCommandOptions& options) {
  conform::SelectionOptions selection;
  auto filter = conform::CheckFilter::Parse(options.filter);
  if (!filter) return ReportUsageError(fmt::format("--filter: {}", filter.error().message()));
  selection.filter = *filter;
  auto shard = ChooseShard(options.shard);
  if (!shard) return ReportUsageError(shard.error().message());
  selection.shard = *shard;
  selection.repeat = options.repeat;
  selection.shuffle = options.shuffle;
  selection.seed = options.seed.value_or(conform::RandomSeed());
  if (options.shuffle && !options.seed) {
    fmt::print(stderr, "sectl: shuffling with --seed {}\n", selection.seed);
  }
  const auto formats = ChooseOutputFormats(options);
  if (!formats) return ReportUsageError(formats.error().message());
  if (options.list) {
    auto profile = ProfileToList(options);
    if (!profile) return ReportUsageError(profile.error().message());
    if (auto none = NoCheckSelected(*profile, selection)) return ReportUsageError(*none);
    return ListChecks(options, *profile, selection, formats->list);
  }
  // A report file that cannot be written is found before the checks run,
  // not after minutes of them.
  for (const auto& [path, flag] :
       {std::pair{&options.output, "-o"}, std::pair{&options.junit_output, "--junit"},
        std::pair{&options.html_output, "--html"},
        std::pair{&options.write_baseline, "--write-baseline"}}) {
    if (auto writable = CheckReportDestination(*path, flag); !writable) {
      return ReportUsageError(writable.error().message());
    }
  }

  conform::ConformOptions run;
  // A partial run (one area under --filter, or a later shard) is asked for
  // its checks: a few seconds of bandwidth measurement are not part of it,
  // unless asked for, and a sharded run measures once, in shard 0.
  const bool whole_run = selection.filter.text() == "*" && selection.shard.index == 0;
  run.throughput = options.throughput || (!options.no_throughput && whole_run);
  auto plugin = ChoosePluginPath(options.plugin, "sectl_cpu");
  if (!plugin) return ReportUsageError(plugin.error().message());
  run.settings.plugin_path = *plugin;
  run.settings.lazy = options.lazy;
  run.settings.guard_malloc = !options.no_guard_malloc;
  run.settings.generation = *abi::FindHostGeneration(options.tf_version);
  run.settings.device_ordinal = options.device;
  if (!options.baseline.empty()) {
    auto baseline = conform::LoadBaseline(options.baseline);
    if (!baseline) return ReportUsageError(baseline.error().message());
    run.baseline = std::move(*baseline);
  }
  run.profile = options.profile;
  // A TVM C Device API plugin runs its own profile; the StreamExecutor
  // profiles cannot run on it, nor its profile on a StreamExecutor plugin.
  auto abi = loader::ChoosePluginAbi(options.abi, run.settings.plugin_path);
  if (!abi) return ReportUsageError(abi.error().message());
  run.settings.abi = *abi;
  run.settings.tvm_device = options.tvm_device;
  run.settings.tvm_context_bytes = options.context_bytes;
  auto device_type = ChooseTvmDeviceType(options.tvm_device_type, run.settings.plugin_path);
  if (!device_type) return ReportUsageError(device_type.error().message());
  run.settings.tvm_device_type = *device_type;
  run.settings.tvm_core = AbsolutePath(options.tvm_core);
  if (!options.tvm_core.empty()) {
    // dlopen would block on a FIFO: only a regular file is handed on.
    if (auto core = RequireRegularFile(run.settings.tvm_core, "TVM core library"); !core) {
      return ReportUsageError("--tvm-core " + core.error().message());
    }
  }
  if (options.tvm_device_id) run.settings.device_ordinal = *options.tvm_device_id;
  auto profile = ProfileForAbi(options.profile, *abi);
  if (!profile) return ReportUsageError(profile.error().message());
  run.profile = *profile;
  if (auto none = NoCheckSelected(run.profile, selection)) return ReportUsageError(*none);
  run.selection = selection;
  run.jobs = options.jobs > 0 ? options.jobs
                              : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  run.timeout = std::chrono::milliseconds(static_cast<int64_t>(options.timeout_seconds * 1000));
  run.isolate = options.isolation != "none";
  // Isolated, a StreamExecutor plugin runs in a server process of its own,
  // where nothing of the check's is (docs/plugin-server.md).
  if (run.isolate && run.settings.abi == loader::PluginAbi::kStreamExecutor) {
    run.settings.plugin_server = remote::PluginServerExecutable();
    if (run.settings.plugin_server.empty()) {
      return ReportError(Error(ErrorCode::kInternal,
                               "sectl-plugin-server is not installed beside sectl: reinstall "
                               "sectl, or run with --isolation none"));
    }
  }
  auto confinement = ConfinementFromFlags(
      options.confinement,
      {run.settings.plugin_path, run.settings.tvm_core, run.settings.plugin_server});
  if (!confinement) return ReportUsageError(confinement.error().message());
  run.confinement = std::move(*confinement);
  run.command_line = options.command_line;
  run.tool_version = SECTL_VERSION;
  Progress progress;
  run.on_start = [&](size_t planned) { progress.Start(planned); };
  run.on_result = [&](const report::CheckResult& result) { progress.Finished(result); };

  auto outcome = conform::RunConform(run);
  if (!outcome) {
    // What failed may be only the interruption's doing.
    if (const int signal = isolation::InterruptedBy(); signal != 0) {
      return ReportInterruption(signal);
    }
    return ReportUsageError(outcome.error().message());
  }
  const report::ConformReport& report = *outcome;

  auto written = WriteReport(options.output, Render(report, formats->report, options));
  if (!written) return ReportUsageError(written.error().message());
  if (!options.junit_output.empty()) {
    auto junit = WriteFileAtomically(options.junit_output, report::RenderConformJunit(report));
    if (!junit) return ReportUsageError(junit.error().message());
  }
  if (!options.html_output.empty()) {
    auto html = WriteFileAtomically(options.html_output, RenderConformHtmlWithExplanations(report));
    if (!html) return ReportUsageError(html.error().message());
  }
  if (!options.write_baseline.empty() && report.interrupted) {
    // A baseline from an incomplete run would leave out the failures of
    // the checks that did not run.
    fmt::print(stderr, "sectl: --write-baseline: not written, the run is incomplete\n");
  } else if (!options.write_baseline.empty()) {
    auto baseline = WriteFileAtomically(options.write_baseline,
                                        conform::WriteBaseline(report.results, run.today));
    if (!baseline) return ReportUsageError(baseline.error().message());
  }

  if (const int signal = isolation::InterruptedBy(); signal != 0) {
    return ReportInterruption(signal, "the report is incomplete");
  }
  return ExitStatusOfVerdict(report::JudgeReport(report));
}

}  // namespace sectl::tool
