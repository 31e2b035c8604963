// `sectl trace show TRACE`: what a trace written by libsectl_validate.so
// holds, as text or JSON.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace sectl::tool {

struct TraceCommandOptions {
  std::string path;
  std::string format = "text";
  std::string timeline = "20";  // a number of records, or "all"
};

// Adds `trace` and its subcommand `show`; returns `trace`.
CLI::App* AddTraceCommand(CLI::App& app, TraceCommandOptions& options);

int RunTraceCommand(const TraceCommandOptions& options);

}  // namespace sectl::tool
