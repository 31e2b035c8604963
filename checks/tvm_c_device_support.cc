#include "tvm_c_device_support.h"

#include <fmt/format.h>

#include "isolation/child_process.h"

namespace sectl::conform {

void RequireWorkingRun(CheckContext& check, const tvm::CDeviceSession& device) {
  const auto outcome = tvm::RunAsGeneratedCode({&device}, tvm::OperatorsOnOneDevice(1));
  if (outcome.returned != 0) {
    check.Skip(
        fmt::format("a single run of {} already fails ({}); "
                    "tvm_c_device.success_returns_zero reports it",
                    device.c_name(), outcome.failure));
  }
}

IsolatedProbe RunIsolated(CheckContext& check, const std::function<std::string()>& probe,
                          std::chrono::milliseconds limit) {
  auto child = isolation::RunInChildProcess(
      [&](int result_fd) {
        isolation::WriteAll(result_fd, probe());
        return 0;
      },
      {.timeout = limit, .backtrace_on_crash = false});
  if (!child)
    check.Abort(fmt::format("sectl could not start a probe process: {}", child.error().message()));
  switch (child->end) {
    case isolation::ChildEnd::kExited:
      if (child->exit_code == 0) return {true, child->result};
      return {false, fmt::format("ended the process with status {} {}", child->exit_code,
                                 check.journal().WhereCallsStopped())};
    case isolation::ChildEnd::kSignaled:
      return {false, fmt::format("crashed with {} {}", isolation::SignalName(child->signal),
                                 check.journal().WhereCallsStopped())};
    case isolation::ChildEnd::kTimedOut:
      return {false, fmt::format("did not return within {:.0f} s: {}",
                                 static_cast<double>(limit.count()) / 1e3,
                                 check.journal().WhereCallsStopped())};
  }
  return {};
}

}  // namespace sectl::conform
