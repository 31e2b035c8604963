#include "validate/finding_catalog.h"

#include <array>

namespace sectl::validate {
namespace {

using enum FindingKind;
constexpr Severity kError = Severity::kError;
constexpr Severity kWarning = Severity::kWarning;
constexpr Severity kInfo = Severity::kInfo;
constexpr Fault kPlugin = Fault::kPlugin;
constexpr Fault kHost = Fault::kHost;

// In FindingKind's order (checked below).
constexpr std::array<FindingInfo, static_cast<size_t>(kCount)> kCatalogue{{
    {kHandleUseAfterDestroy, "handle.use_after_destroy", kError, kHost,
     "A stream, event or timer was used after the host destroyed it."},
    {kHandleDoubleDestroy, "handle.double_destroy", kError, kHost,
     "A stream, event or timer was destroyed more often than it was created."},
    {kHandleUnknown, "handle.unknown", kError, kHost,
     "A stream, event or timer handle the plugin never returned was passed to it."},
    {kHandleWrongDevice, "handle.wrong_device", kError, kHost,
     "A stream, event or timer was used with a device other than the one that created it."},
    {kStreamDestroyedWithPendingWork, "stream.destroyed_with_pending_work", kWarning, kHost,
     "A stream was destroyed with work enqueued since it was last synchronised, or with host "
     "callbacks not yet run."},
    {kHandleOutlivedDevice, "handle.outlived_device", kWarning, kHost,
     "Streams, events or timers created on a device were still live when the host destroyed "
     "that device: the plugin may free what they hold with it, and any later use of them is a "
     "use after free."},
    {kDeviceUsedAfterDestroy, "device.used_after_destroy", kError, kHost,
     "A call named a device the host had already destroyed (destroy_device); the call was not "
     "passed on to the plugin."},
    {kRangeOutsideAllocation, "memory.range_outside_allocation", kError, kHost,
     "A device memory range of a copy or fill is not inside any live device allocation."},
    {kHostPointerInDeviceMemory, "memory.host_pointer_in_device_memory", kError, kHost,
     "A host-memory argument points into device memory (the TensorFlow 2.10 memcpy_htod "
     "regression, tensorflow/tensorflow#57095)."},
    {kDevicePointerInHostMemory, "memory.device_pointer_in_host_memory", kError, kHost,
     "A device-memory argument points into host memory from host_memory_allocate."},
    {kDeallocateUnknown, "memory.deallocate_unknown", kError, kHost,
     "Memory the plugin never allocated was passed to a deallocate function."},
    {kDeallocateTwice, "memory.deallocate_twice", kError, kHost,
     "Memory was deallocated again after it had been deallocated."},
    {kLeakedAtTeardown, "memory.leaked_at_teardown", kWarning, kHost,
     "Allocations were still live when their device or platform was destroyed."},
    {kAllocationOverlaps, "memory.allocation_overlaps", kError, kPlugin,
     "The plugin returned an allocation that overlaps another live allocation."},
    {kDeallocateOnOtherDevice, "memory.deallocate_on_other_device", kError, kHost,
     "Memory was deallocated on a device other than the one that allocated it; the "
     "deallocation was not passed on to the plugin (its other device's allocator would free "
     "what it never handed out), so the allocation stays live."},
    {kCallbackCalledTwice, "callback.called_twice", kError, kPlugin,
     "The plugin called a host callback a second time; TensorFlow frees the callback's "
     "context on the first call (use after free)."},
    {kCallbackNotRunBySync, "callback.not_run_by_sync", kError, kPlugin,
     "A host callback had not run when its stream (or device) reported all work done."},
    {kEventStatusOutOfRange, "event.status_out_of_range", kError, kPlugin,
     "get_event_status returned a value outside SE_EventStatus."},
    {kStatusOkWithoutHandle, "status.ok_without_handle", kInfo, kPlugin,
     "A create function left its status OK but returned a null handle. TensorFlow accepts "
     "this (its sample plugin does it) and never destroys the handle; the layer cannot tell "
     "such handles apart, so it checks none of their uses."},
    {kStatusErrorWithHandle, "status.error_with_handle", kWarning, kPlugin,
     "A create function set an error status but returned a handle anyway: whether the host "
     "ever destroys it depends on the TensorFlow version."},
    {kExceptionEscaped, "api.exception_escaped", kError, kPlugin,
     "A C++ exception left a plugin function across the C API."},
    {kStatusNullFromHost, "status.null_from_host", kError, kHost,
     "The host passed a null TF_Status to a function that reports through one; the plugin "
     "would write its result through that null pointer. The layer gave the plugin a status of "
     "its own for the call."},
    {kCrashedInCall, "api.crashed_in_call", kError, kPlugin,
     "The process received a fatal signal on a thread that was inside a plugin function: the "
     "call named is the one in flight when it crashed (the layer passes on only calls it has "
     "not proven invalid)."},
    {kStructSizeZero, "struct_size.zero", kError, kPlugin,
     "The plugin left a struct_size of 0; every released TensorFlow since 2.5 rejects the "
     "plugin."},
    {kStructSizeDiffers, "struct_size.differs_from_host", kInfo, kPlugin,
     "The plugin reported a struct_size other than the host's: it was built against another "
     "header (the host reads its own layout regardless)."},
    {kStructSizeOlderLayoutLeavesNull, "struct_size.older_layout_leaves_function_null", kError,
     kPlugin,
     "The plugin filled an older, smaller layout of a function table than the host's, so a "
     "function the host requires or calls without a null check is null where the host reads "
     "it (an SP_StreamExecutor of TensorFlow 2.5-2.6 in a newer host: host_callback)."},
}};

constexpr bool CatalogueIsInOrder() {
  for (size_t i = 0; i < kCatalogue.size(); ++i) {
    if (static_cast<size_t>(kCatalogue[i].kind) != i) return false;
  }
  return true;
}
static_assert(CatalogueIsInOrder(), "kCatalogue must follow FindingKind's order");

}  // namespace

const FindingInfo& InfoOf(FindingKind kind) { return kCatalogue.at(static_cast<size_t>(kind)); }

std::span<const FindingInfo> AllFindingKinds() { return kCatalogue; }

std::string_view SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kInfo:
      return "info";
  }
  return "error";
}

std::string_view FaultName(Fault fault) {
  switch (fault) {
    case Fault::kPlugin:
      return "plugin";
    case Fault::kHost:
      return "host";
  }
  return "host";
}

}  // namespace sectl::validate
