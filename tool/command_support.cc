#include "tool/command_support.h"

#include <fmt/format.h>

#include <cstdio>

#include "abi/host_generations.h"
#include "isolation/child_process.h"
#include "tool/exit_codes.h"

namespace sectl::tool {

int ReportUsageError(const std::string& message) {
  std::fflush(stdout);
  fmt::print(stderr, "sectl: error: {}\n", message);
  return kExitUsageOrInternal;
}

int ReportError(const Error& error) {
  ReportUsageError(error.message());
  const bool sectl_at_fault =
      error.code() == ErrorCode::kInternal || error.code() == ErrorCode::kIoError ||
      error.code() == ErrorCode::kInputChanged || error.code() == ErrorCode::kInvalidArgument;
  return sectl_at_fault ? kExitUsageOrInternal : kExitPluginProblem;
}

int ReportInterruption(int signal, std::string_view consequence) {
  std::fflush(stdout);
  fmt::print(stderr, "sectl: interrupted by {}{}{}\n", isolation::SignalName(signal),
             consequence.empty() ? "" : ": ", consequence);
  return ExitStatusOfInterruption(signal);
}

std::vector<std::string> HostGenerationIds() {
  std::vector<std::string> ids;
  for (const auto& generation : abi::AllHostGenerations()) ids.emplace_back(generation.id);
  return ids;
}

}  // namespace sectl::tool
