// Before a tvm-device-api run on a TVM runtime library (--abi tvm-runtime):
// in a child process, load the library, reach the chosen device type's
// DeviceAPI through the runtime's own entry points and ask kExist for the
// device under test, so that a runtime that crashes on load is a load
// error and an absent device is the user's mistake, before any check runs.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "base/error.h"
#include "conform/check_runner.h"
#include "conform/common_check_context.h"
#include "isolation/confinement.h"
#include "report/conform_report.h"

namespace sectl::conform {

struct TvmRuntimeFacts {
  PluginFacts facts;
  // What the report says before the checks: a kExist for the device type
  // under test that crashed (a finding of the runtime: the checks still run,
  // and meet it themselves), fatal-signal handlers the runtime replaced at
  // load.
  std::vector<report::LearnedBeforeChecks> learned;
};

// kInvalidArgument when kExist says the device under test is absent (a
// usage error: the message says where TVM keeps that device type's
// DeviceAPI when this library has none); kInternal for sectl's own failure;
// any other error is the runtime's load error. The facts' abi_vintage names
// the route.
Expected<TvmRuntimeFacts> PreflightTvmRuntime(const CheckSettings& settings,
                                              std::chrono::milliseconds timeout, bool isolate,
                                              const isolation::Confinement& confinement);

}  // namespace sectl::conform
