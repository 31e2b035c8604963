#include "tvm_c_device_support.h"

#include <fmt/format.h>

#include "isolation/child_outcome.h"
#include "isolation/child_process.h"

namespace sectl::conform {

void RequireWorkingRun(TvmCheckContext& check, const tvm::CDeviceSession& device) {
  const auto outcome = tvm::RunAsGeneratedCode({&device}, tvm::OperatorsOnOneDevice(1));
  if (outcome.returned != 0) {
    check.Skip(
        fmt::format("a single run of {} already fails ({}); "
                    "tvm_c_device.success_returns_zero reports it",
                    device.c_name(), outcome.failure));
  }
}

IsolatedProbe RunIsolated(TvmCheckContext& check, const std::function<std::string()>& probe,
                          std::chrono::milliseconds limit) {
  const isolation::ChildOptions options{.timeout = limit, .backtrace_on_crash = false};
  auto child = isolation::RunInChildProcess(
      [&](int result_fd) {
        isolation::WriteResult(result_fd, probe());
        return isolation::kChildReported;
      },
      options);
  if (!child)
    check.Abort(fmt::format("sectl could not start a probe process: {}", child.error().message()));
  const isolation::ChildOutcome judged = isolation::JudgeChild(*child, options.confinement);
  switch (judged.blame) {
    case isolation::Blame::kNone:
      return {true, child->result};
    case isolation::Blame::kSectl:
      check.Abort(judged.description);
      break;
    case isolation::Blame::kLimit:
    case isolation::Blame::kPlugin:
      return {false, fmt::format("{} {}", judged.description, check.journal().WhereCallsStopped())};
  }
  return {};
}

}  // namespace sectl::conform
