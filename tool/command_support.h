// What every subcommand shares: one way to report an error and choose the
// exit status, and the choices of common options.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"

namespace sectl::tool {

// Prints "sectl: error: MESSAGE" on stderr (after flushing stdout) and
// returns the usage/internal exit status.
int ReportUsageError(const std::string& message);

// Prints the error the same way and returns the exit status its cause
// calls for: sectl's own failures (bad input, I/O, internal) are usage or
// internal errors; everything else is the plugin's problem.
int ReportError(const Error& error);

// Prints "sectl: interrupted by SIGINT" (and ": `consequence`") and
// returns 128 + `signal` (tool/exit_codes.h).
int ReportInterruption(int signal, std::string_view consequence = {});

// The values --tf-version accepts: "2.5", "2.7", "2.10", "latest".
std::vector<std::string> HostGenerationIds();

}  // namespace sectl::tool
