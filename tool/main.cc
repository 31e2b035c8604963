// sectl: conformance and diagnostics for accelerator device plugins.
//
// main only parses options, runs the chosen subcommand and returns its exit
// status; each subcommand is one library call (see tool/*_command.cc).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "tensorflow/c/experimental/stream_executor/stream_executor.h"
#include "tool/exit_codes.h"
#include "tool/probe_command.h"

namespace {

std::string VersionText() {
  return fmt::format(
      "sectl {}\nspeaks the StreamExecutor C API {}.{}.{} (PluggableDevice), struct layouts of "
      "TensorFlow 2.5 to the newest",
      SECTL_VERSION, SE_MAJOR, SE_MINOR, SE_PATCH);
}

// One line naming the problem, then where to look.
std::string UsageFailure(const CLI::App* app, const CLI::Error& error) {
  std::string command = app->get_name();
  for (const auto* parent = app->get_parent(); parent != nullptr; parent = parent->get_parent()) {
    command = parent->get_name() + " " + command;
  }
  return fmt::format("sectl: error: {} (see '{} --help')\n", error.what(), command);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app(
      "Conformance and diagnostics for accelerator device plugins (TensorFlow's StreamExecutor "
      "C API).\n\nExit status: 0 success; 1 the plugin cannot be loaded, crashed, hung or is not "
      "conformant; 2 usage or internal error.",
      "sectl");
  app.set_version_flag("--version", VersionText());
  app.require_subcommand(1);
  app.failure_message(UsageFailure);

  sectl::tool::ProbeCommandOptions probe_options;
  auto* probe = sectl::tool::AddProbeCommand(app, probe_options);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int status = app.exit(error);
    return status == 0 ? sectl::tool::kExitSuccess : sectl::tool::kExitUsageOrInternal;
  }
  if (probe->parsed()) return sectl::tool::RunProbeCommand(probe_options);
  return sectl::tool::kExitUsageOrInternal;
}
