// What the TVM C Device API checks share (checks/tvm_c_device_*.cc).
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "conform/check.h"
#include "tvm/aot_run.h"

namespace sectl::conform {

// Skips the check unless one plain run (Activate, Open, operator, Close,
// Deactivate) succeeds: a plugin failing that is tvm_c_device.success_returns_zero's
// finding, and checks about repetition, interleaving or recovery have nothing
// to add. Also warms the hooks up (first-call work is not the check's concern).
void RequireWorkingRun(TvmCheckContext& check, const tvm::CDeviceSession& device);

// How a probe run in a process of its own ended: its answer, or a sentence
// saying it crashed or hung, naming the hook it was in.
struct IsolatedProbe {
  bool answered = false;
  std::string text;  // the answer, or "crashed with SIGSEGV in TVMDevice...Open (call #7)"
};
// Runs `probe` in a child process with `limit`; for diagnostics whose
// subject may crash or hang (the RFC leaves them unspecified).
IsolatedProbe RunIsolated(TvmCheckContext& check, const std::function<std::string()>& probe,
                          std::chrono::milliseconds limit);

}  // namespace sectl::conform
