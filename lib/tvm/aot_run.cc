#include "tvm/aot_run.h"

#include <fmt/format.h>

namespace sectl::tvm {
namespace {

// One wrapped call, `if (call != 0) return -1;`: the failure, or nullopt.
std::optional<std::string> CheckedCall(const CDeviceSession& device, Hook hook) {
  auto result = device.Call(hook);
  if (!result) return result.error().message();
  if (*result != 0) return fmt::format("{} returned {}", device.SymbolOf(hook), *result);
  return std::nullopt;
}

}  // namespace

AotRunOutcome RunAsGeneratedCode(const std::vector<const CDeviceSession*>& devices,
                                 const AotRunPlan& plan) {
  auto aborted = [](std::string why) { return AotRunOutcome{-1, std::move(why), false}; };
  for (const CDeviceSession* device : devices) {
    if (auto failure = CheckedCall(*device, Hook::kActivate)) return aborted(*failure);
  }
  for (size_t index = 0; index < plan.operators.size(); ++index) {
    const CDeviceSession& device = *devices.at(plan.operators[index]);
    if (auto failure = CheckedCall(device, Hook::kOpen)) return aborted(*failure);
    // The operator itself is sectl's stand-in: it gets the context as its
    // resource_handle and touches nothing.
    if (plan.failing_operator == index) {
      return AotRunOutcome{-1, fmt::format("operator {} failed (as planned)", index), true};
    }
    if (auto failure = CheckedCall(device, Hook::kClose)) return aborted(*failure);
  }
  for (const CDeviceSession* device : devices) {
    if (auto failure = CheckedCall(*device, Hook::kDeactivate)) return aborted(*failure);
  }
  return {};
}

AotRunPlan OperatorsOnOneDevice(size_t count) { return {std::vector<size_t>(count, 0), {}}; }

}  // namespace sectl::tvm
