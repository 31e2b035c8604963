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

}  // namespace sectl::host
