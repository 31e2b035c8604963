// TensorFlow host generations: what each one pre-fills, validates and calls.
//
// A plugin is judged against a host generation: TensorFlow 2.5 requires timer
// callbacks and reads a 264-byte SP_StreamExecutor; 2.7 adds the required
// mem_zero family; the newest no longer validates or calls timers. The
// requirement of every plugin function under every generation is data here.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "abi/plugin_functions.h"

namespace sectl::abi {

struct HostGeneration {
  std::string_view id;                 // "2.5", "2.7", "2.10", "latest": what --tf-version takes
  std::string_view description;        // "TensorFlow 2.7 to 2.9"
  size_t platform_struct_size;         // the SP_Platform size it pre-fills
  size_t stream_executor_struct_size;  // the SP_StreamExecutor size it pre-fills
  bool validates_timers;               // create_timer_fns and the timer members are required
  bool calls_create_timer_fns;
  bool validates_mem_zero_family;
};

std::span<const HostGeneration> AllHostGenerations();  // oldest first
const HostGeneration& LatestHostGeneration();
std::optional<HostGeneration> FindHostGeneration(std::string_view id);

enum class Requirement {
  kValidated,              // the host refuses to register a plugin without it
  kCalledUnconditionally,  // not validated, but called without a null check: a crash
  kOptional,               // the host checks for null and has a fallback
  kUnused,                 // this host never calls it
};

std::string_view RequirementName(Requirement requirement);

// What `generation` requires of `function`. Unified memory functions are
// required only when the platform sets supports_unified_memory.
Requirement RequirementOf(PluginFunction function, const HostGeneration& generation,
                          bool supports_unified_memory);

// Whether `generation` calls `function` while it registers a plugin and uses
// its devices normally (streams, events, memory, copies, teardown), so that a
// crash or hang inside it ends or stalls TensorFlow's process. False for what
// that generation never calls (timers since 2.16, get_gflops, the 8-bit
// memset of the newest host) and for unified memory, which it calls only for
// a platform that sets supports_unified_memory.
bool CallsInNormalUse(PluginFunction function, const HostGeneration& generation);

// The text TensorFlow logs when a validated member is null:
// "'host_callback' field in SP_StreamExecutor must be set."
std::string TensorFlowMissingMemberMessage(PluginFunction function);

}  // namespace sectl::abi
