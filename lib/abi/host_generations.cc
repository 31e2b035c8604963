#include "abi/host_generations.h"

#include <fmt/format.h>

#include <array>

namespace sectl::abi {
namespace {

using F = PluginFunction;

constexpr std::array kGenerations = {
    HostGeneration{"2.5", "TensorFlow 2.5 to 2.6", 34, 264, true, true, false},
    HostGeneration{"2.7", "TensorFlow 2.7 to 2.9", 34, 288, true, true, true},
    HostGeneration{"2.10", "TensorFlow 2.10 to 2.15", 35, 288, true, true, true},
    HostGeneration{"latest", "TensorFlow 2.16 and newer", 35, 288, false, false, true},
};

bool IsTimerMember(F function) {
  return function == F::kCreateTimer || function == F::kDestroyTimer ||
         function == F::kStartTimer || function == F::kStopTimer;
}

bool IsMemZeroFamily(F function) {
  return function == F::kMemZero || function == F::kMemset || function == F::kMemset32;
}

}  // namespace

std::span<const HostGeneration> AllHostGenerations() { return kGenerations; }

const HostGeneration& LatestHostGeneration() { return kGenerations.back(); }

std::optional<HostGeneration> FindHostGeneration(std::string_view id) {
  for (const auto& generation : kGenerations) {
    if (generation.id == id) return generation;
  }
  return std::nullopt;
}

std::string_view RequirementName(Requirement requirement) {
  switch (requirement) {
    case Requirement::kValidated:
      return "required";
    case Requirement::kCalledUnconditionally:
      return "called without a null check";
    case Requirement::kOptional:
      return "optional";
    case Requirement::kUnused:
      return "not used";
  }
  return "";
}

Requirement RequirementOf(PluginFunction function, const HostGeneration& generation,
                          bool supports_unified_memory) {
  switch (function) {
    case F::kInitPlugin:
    case F::kDestroyPlatform:
    case F::kDestroyPlatformFns:
    case F::kCreateDevice:
    case F::kDestroyDevice:
    case F::kCreateDeviceFns:
    case F::kDestroyDeviceFns:
    case F::kCreateStreamExecutor:
    case F::kDestroyStreamExecutor:
      return Requirement::kValidated;
    case F::kGetDeviceCount:
      return Requirement::kCalledUnconditionally;
    case F::kCreateTimerFns:
      if (generation.validates_timers) return Requirement::kValidated;
      return Requirement::kUnused;
    case F::kDestroyTimerFns:
      // The newest host still calls it while tearing the platform down.
      if (generation.validates_timers) return Requirement::kValidated;
      return Requirement::kCalledUnconditionally;
    case F::kNanoseconds:
      return generation.validates_timers ? Requirement::kValidated : Requirement::kUnused;
    case F::kGetNumaNode:
    case F::kGetMemoryBandwidth:
      return Requirement::kOptional;
    case F::kGetGflops:
      return Requirement::kUnused;  // TensorFlow never reads it
    case F::kUnifiedMemoryAllocate:
    case F::kUnifiedMemoryDeallocate:
      return supports_unified_memory ? Requirement::kValidated : Requirement::kOptional;
    case F::kMemcpyDtoD:
      return Requirement::kCalledUnconditionally;
    case F::kSyncMemcpyDtoD:
      return generation.validates_timers ? Requirement::kCalledUnconditionally
                                         : Requirement::kUnused;
    case F::kBlockHostUntilDone:
      return Requirement::kOptional;
    default:
      break;
  }
  if (IsTimerMember(function)) {
    return generation.validates_timers ? Requirement::kValidated : Requirement::kUnused;
  }
  if (IsMemZeroFamily(function)) {
    return generation.validates_mem_zero_family ? Requirement::kValidated : Requirement::kUnused;
  }
  return Requirement::kValidated;  // every other SP_StreamExecutor member
}

bool CallsInNormalUse(PluginFunction function, const HostGeneration& generation) {
  switch (function) {
    case F::kUnifiedMemoryAllocate:
    case F::kUnifiedMemoryDeallocate:
      return false;
    case F::kMemset:
      // Validated since 2.7, but no released CStream calls the 8-bit fill:
      // it fills through mem_zero and memset32 (CStream, in TensorFlow's
      // tensorflow/c/experimental/stream_executor/stream_executor.cc).
      return false;
    default:
      break;
  }
  return RequirementOf(function, generation, /*supports_unified_memory=*/false) !=
         Requirement::kUnused;
}

std::string TensorFlowMissingMemberMessage(PluginFunction function) {
  const auto& info = InfoOf(function);
  return fmt::format("'{}' field in {} must be set.", info.member, info.struct_name);
}

}  // namespace sectl::abi
