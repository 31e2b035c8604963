// The compatibility matrix: would a TensorFlow generation load a plugin,
// and could it use it safely? The plugin is registered with the struct
// sizes that generation pre-fills, and what it wrote is read as that
// generation reads it: by the generation's own layout, whatever struct_size
// the plugin reports (TensorFlow never looks at it). Shared by `sectl probe`
// and the compat.* conformance checks.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "abi/host_generations.h"
#include "base/error.h"
#include "host/platform.h"

namespace sectl::host {

// One thing a generation would make of the plugin.
struct CompatibilityProblem {
  // "refused": that TensorFlow refuses to register the plugin (cleanly);
  // "overrun": the plugin writes past one of its structs;
  // "wrong_function": it reads a member where the plugin put another;
  // "null_call": it calls a member the plugin left null.
  std::string kind;
  std::string message;
  // The plugin function at fault, for the member judgements (kCount: none).
  abi::PluginFunction function = abi::PluginFunction::kCount;
};

struct Compatibility {
  bool loads = false;
  // A plugin the host refuses is never called: only its overruns are kept.
  std::vector<CompatibilityProblem> problems;
};

// What `generation` makes of the plugin `registered` with its struct sizes
// (Platform::Create with {.generation = generation}), or of the error that
// registering gave.
Compatibility JudgeCompatibility(const abi::HostGeneration& generation,
                                 const Expected<std::unique_ptr<Platform>>& registered);

// What `generation` makes of the members the plugin set, read at that
// generation's own offsets whatever struct_size the plugin reported: a
// required member left null ("refused"), one called without a null check
// ("null_call"), or one where the plugin put another function
// ("wrong_function"). The one judgement behind registration.required_callbacks,
// the compat.* checks, the probe's required.* findings and its matrix.
std::vector<CompatibilityProblem> JudgeRequiredMembers(const abi::HostGeneration& generation,
                                                       const Platform& platform);

// Behaviours at device creation that TensorFlow tolerates or not, judged in
// one place for `sectl probe` (finding severity) and `sectl conform` (warn
// or fail).
enum class DeviceBehaviour {
  // create_device left SP_Device.ordinal other than the ordinal asked for.
  kOrdinalNotFilled,
  // create_device succeeded for an ordinal at or beyond get_device_count.
  kOutOfRangeOrdinalAccepted,
};

struct BehaviourJudgement {
  Severity severity;  // kError: harms a released TensorFlow; kWarning: does not
  std::string_view reason;
};

const BehaviourJudgement& JudgeDeviceBehaviour(DeviceBehaviour behaviour);

}  // namespace sectl::host
