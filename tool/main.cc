// sectl: conformance and diagnostics for accelerator device plugins.
//
// main only parses options, runs the chosen subcommand and returns its exit
// status; each subcommand is one library call (see tool/*_command.cc).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/prctl.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string_view>
#include <vector>

#include "abi/host_generations.h"
#include "isolation/interruption.h"
#include "isolation/supervisor.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"
#include "tool/bench_command.h"
#include "tool/command_words.h"
#include "tool/conform_command.h"
#include "tool/exit_codes.h"
#include "tool/explain_command.h"
#include "tool/help_formatter.h"
#include "tool/probe_command.h"
#include "tool/replay_command.h"
#include "tool/report_command.h"
#include "tool/trace_command.h"
#include "tool/validate_command.h"

namespace {

using sectl::tool::kExitSuccess;
using sectl::tool::kExitUsageOrInternal;

// One line, the version first as scripts and help2man expect ("sectl 0.1.0
// (...)"), then the ABI sectl speaks: the C API version of its headers and
// the TensorFlow host generations it can behave as (--tf-version).
std::string VersionText() {
  std::vector<std::string_view> generations;
  for (const auto& generation : sectl::abi::AllHostGenerations()) {
    generations.push_back(generation.id);
  }
  return fmt::format("sectl {} (StreamExecutor C API {}.{}.{}; TensorFlow host generations {})",
                     SECTL_VERSION, SE_MAJOR, SE_MINOR, SE_PATCH, fmt::join(generations, ", "));
}

// One line naming the problem, then where to look: the --help of the
// command whose flags were wrong.
// A command given nothing to act on (`sectl` alone, `sectl report` without
// files) gets its usage line instead, and the commands it offers.
std::string UsageFailure(const CLI::App* app, const CLI::Error& error) {
  const std::string command = sectl::tool::CommandReached(*app);
  if (dynamic_cast<const CLI::RequiredError*>(&error) == nullptr) {
    return fmt::format("sectl: error: {} (see '{} --help')\n", error.what(), command);
  }
  const CLI::App* reached = &sectl::tool::SubcommandReached(*app);
  std::string text =
      sectl::tool::HelpFormatter(sectl::tool::HelpColumns()).make_usage(reached, command);
  std::vector<std::string> commands;
  for (const CLI::App* sub : reached->get_subcommands({})) commands.push_back(sub->get_name());
  if (!commands.empty()) text += fmt::format("Commands: {}\n", fmt::join(commands, ", "));
  return text + fmt::format("Run '{} --help' for more.\n", command);
}

int Main(int argc, char** argv) {
  CLI::App app(
      "Conformance and diagnostics for accelerator device plugins (TensorFlow's StreamExecutor "
      "C API).\n\nExit status: 0 success; 1 the plugin cannot be loaded, crashed, hung or is not "
      "conformant; 2 usage or internal error; 3 bench --compare could not judge most results; "
      "128+N interrupted by signal N (130 SIGINT, 143 "
      "SIGTERM): every child is ended, and conform still writes its report, marked incomplete.",
      "sectl");
  app.set_version_flag("-V,--version", VersionText());
  app.require_subcommand(1);
  app.failure_message(UsageFailure);

  sectl::tool::ProbeCommandOptions probe_options;
  auto* probe = sectl::tool::AddProbeCommand(app, probe_options);
  sectl::tool::ConformCommandOptions conform_options;
  conform_options.command_line.assign(argv, argv + argc);
  auto* conform = sectl::tool::AddConformCommand(app, conform_options);
  sectl::tool::ReportCommandOptions report_options;
  auto* report = sectl::tool::AddReportCommand(app, report_options);
  sectl::tool::BenchCommandOptions bench_options;
  bench_options.command_line.assign(argv, argv + argc);
  const auto bench = sectl::tool::AddBenchCommand(app, bench_options);
  sectl::tool::TraceCommandOptions trace_options;
  auto* trace = sectl::tool::AddTraceCommand(app, trace_options);
  sectl::tool::ReplayCommandOptions replay_options;
  auto* replay = sectl::tool::AddReplayCommand(app, replay_options);
  sectl::tool::ValidateCommandOptions validate_options;
  const auto validate = sectl::tool::AddValidateCommand(app, validate_options);
  sectl::tool::ExplainCommandOptions explain_options;
  auto* explain = sectl::tool::AddExplainCommand(app, explain_options);
  // Every command's help wrapped at the terminal's width, not cut by it.
  sectl::tool::UseHelpFormatter(app);

  // `sectl help ...`, and a command word that names no command.
  const auto words = sectl::tool::ReadCommandWords(app, {argv + 1, argv + argc});
  if (words.error) {
    std::fprintf(stderr, "sectl: error: %s\n", words.error->c_str());
    return kExitUsageOrInternal;
  }
  try {
    // CLI11 takes a vector of arguments in reverse order.
    std::vector<std::string> reversed(words.arguments.rbegin(), words.arguments.rend());
    app.parse(reversed);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? kExitSuccess : kExitUsageOrInternal;
  }
  if (probe->parsed()) return sectl::tool::RunProbeCommand(probe_options);
  if (conform->parsed()) return sectl::tool::RunConformCommand(conform_options);
  if (report->parsed()) return sectl::tool::RunReportCommand(report_options);
  if (bench.bench->parsed()) return sectl::tool::RunBenchCommand(bench, bench_options);
  if (trace->parsed()) return sectl::tool::RunTraceCommand(trace_options);
  if (replay->parsed()) return sectl::tool::RunReplayCommand(replay_options);
  if (validate.where->parsed()) return sectl::tool::RunValidateWhere();
  if (validate.show->parsed()) return sectl::tool::RunValidateShow(validate_options);
  if (explain->parsed()) return sectl::tool::RunExplainCommand(explain_options);
  return kExitUsageOrInternal;
}

}  // namespace

// Non-dumpable from the first code sectl runs, before any library's
// initialiser and long before main: a process of the same user that opens
// /proc/<sectl>/mem between exec and main would keep that handle for good
// (PrepareSupervisor says it again, for a sectl linked another way).
// .preinit_array runs before every shared object's constructors.
static void MakeNotDumpable(int /*argc*/, char** /*argv*/, char** /*envp*/) {
  ::prctl(PR_SET_DUMPABLE, 0);
}
__attribute__((section(".preinit_array"),
               used)) void (*const make_not_dumpable)(int, char**, char**) = MakeNotDumpable;

int main(int argc, char** argv) {
  // Before anything else: no thread, no child, no plugin exists yet.
  sectl::isolation::PrepareSupervisor();
  // SIGINT, SIGTERM, SIGHUP: end every child, then report (exit 128 + N).
  sectl::isolation::InstallInterruptHandlers();
  try {
    return Main(argc, argv);
  } catch (const std::exception& error) {
    std::fflush(stdout);
    std::fprintf(stderr, "sectl: internal error: %s\n", error.what());
  } catch (...) {
    std::fflush(stdout);
    std::fprintf(stderr, "sectl: internal error: unknown exception\n");
  }
  return kExitUsageOrInternal;
}
