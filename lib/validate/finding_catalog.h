// Every finding libsectl_validate.so can raise, with its stable id, its
// severity and who is at fault. Ids are part of the report's contract: a
// vendor's CI may filter on them, so an id is never renamed or reused.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace sectl::validate {

enum class FindingKind : uint8_t {
  // Handles: streams, events, timers.
  kHandleUseAfterDestroy,
  kHandleDoubleDestroy,
  kHandleUnknown,
  kHandleWrongDevice,
  kStreamDestroyedWithPendingWork,
  kHandleOutlivedDevice,
  // Devices.
  kDeviceUsedAfterDestroy,
  // Memory.
  kRangeOutsideAllocation,
  kHostPointerInDeviceMemory,
  kDevicePointerInHostMemory,
  kDeallocateUnknown,
  kDeallocateTwice,
  kLeakedAtTeardown,
  kAllocationOverlaps,
  kDeallocateOnOtherDevice,
  // Host callbacks.
  kCallbackCalledTwice,
  kCallbackNotRunBySync,
  // Results.
  kEventStatusOutOfRange,
  kStatusOkWithoutHandle,
  kStatusErrorWithHandle,
  kExceptionEscaped,
  kStatusNullFromHost,
  kCrashedInCall,
  // Struct sizes.
  kStructSizeZero,
  kStructSizeDiffers,
  kStructSizeOlderLayoutLeavesNull,
  kCount,
};

enum class Severity : uint8_t { kError, kWarning, kInfo };

// Who broke the contract: the plugin (it answered wrongly), or the host
// (TensorFlow, or the program loading the plugin, called it wrongly).
enum class Fault : uint8_t { kPlugin, kHost };

struct FindingInfo {
  FindingKind kind;
  std::string_view id;  // "memory.host_pointer_in_device_memory"
  Severity severity;
  Fault fault;
  std::string_view summary;  // one sentence for the report's catalogue
};

const FindingInfo& InfoOf(FindingKind kind);
std::span<const FindingInfo> AllFindingKinds();

std::string_view SeverityName(Severity severity);  // "error", "warning", "info"
std::string_view FaultName(Fault fault);           // "plugin", "host"

}  // namespace sectl::validate
