// A model run exactly as TVM's AOT executor generated it (v0.9-v0.18,
// aot_executor_codegen.cc): Activate every device, then for each operator
// Open its device, run the operator with the device context as its last
// argument, Close; then Deactivate every device. Every call is wrapped as
// `if (call != 0) return -1;`: the first non-zero result ends the run at
// once, and the matching Close and Deactivate are never called.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tvm/c_device_session.h"

namespace sectl::tvm {

struct AotRunPlan {
  // For each operator, the index (into the run's devices) of its device.
  std::vector<size_t> operators;
  // The operator that fails (returns non-zero, as TVMEthosULaunch does for a
  // driver error): the early-abort path.
  std::optional<size_t> failing_operator;
};

struct AotRunOutcome {
  int32_t returned = 0;  // what tvmgen_<mod>_run returns: 0 or -1
  // Why it returned -1: "TVMDeviceWooflesOpen returned 1", "operator 2
  // failed (as planned)", or the dispatcher's error.
  std::string failure;
  bool failed_as_planned = false;
};

AotRunOutcome RunAsGeneratedCode(const std::vector<const CDeviceSession*>& devices,
                                 const AotRunPlan& plan);

// `count` operators, all on device 0.
AotRunPlan OperatorsOnOneDevice(size_t count);

}  // namespace sectl::tvm
