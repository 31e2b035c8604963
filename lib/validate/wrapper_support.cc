#include "validate/wrapper_support.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <filesystem>
#include <optional>

#include "validate/layer.h"

namespace sectl::validate {

std::string DescribeCallSite(uintptr_t address) {
  Dl_info info{};
  // NOLINTNEXTLINE(performance-no-int-to-ptr): a return address, only looked up
  if (address == 0 || ::dladdr(reinterpret_cast<void*>(address), &info) == 0 ||
      info.dli_fname == nullptr) {
    return fmt::format("{:#x}", address);
  }
  const auto base = reinterpret_cast<uintptr_t>(info.dli_fbase);
  std::string site = fmt::format(
      "{}+{:#x}", std::filesystem::path(info.dli_fname).filename().string(), address - base);
  if (info.dli_sname != nullptr) {
    site += fmt::format(" ({}+{:#x})", info.dli_sname,
                        address - reinterpret_cast<uintptr_t>(info.dli_saddr));
  }
  return site;
}

int32_t CodeOf(TF_Status* status) { return status == nullptr ? -1 : TF_GetCode(status); }

namespace {

// Raises what `check` says about handle argument `name`, which the call
// uses (or, with `destroying`, destroys). Returns false for a handle whose
// every creation was already destroyed.
bool RaiseHandleMisuse(Call& call, HandleKind kind, const char* name, const void* handle,
                       const HandleCheck& check, bool destroying) {
  // The common case first, before anything a finding needs is looked up.
  if (check.use == HandleUse::kLive || check.use == HandleUse::kUntracked) [[likely]] {
    return true;
  }
  const std::string_view kind_name = HandleKindName(kind);
  switch (check.use) {
    case HandleUse::kLive:
    case HandleUse::kUntracked:
      return true;
    case HandleUse::kNeverCreated:
      call.Raise(FindingKind::kHandleUnknown,
                 fmt::format("{} {} is no {} the plugin created", name, handle, kind_name));
      if (!destroying) {
        call.Withhold(fmt::format("{} {} is no {} the plugin created", name, handle, kind_name));
      }
      return true;
    case HandleUse::kDestroyed:
      if (destroying) {
        call.Raise(FindingKind::kHandleDoubleDestroy,
                   fmt::format("{} {} ({} {}) was already destroyed; this destroy was not passed "
                               "on to the plugin",
                               name, handle, kind_name, check.id));
      } else {
        call.Raise(FindingKind::kHandleUseAfterDestroy,
                   fmt::format("{} {} ({} {}) was destroyed before this call", name, handle,
                               kind_name, check.id));
        call.Withhold(fmt::format("{} {} ({} {}) was destroyed before this call", name, handle,
                                  kind_name, check.id));
      }
      return false;
    case HandleUse::kOtherDevice:
      call.Raise(FindingKind::kHandleWrongDevice,
                 fmt::format("{} {} ({} {}) was created on device {}, {} on device {}", name,
                             handle, kind_name, check.id, check.created_on,
                             destroying ? "destroyed" : "used", call.device()));
      return true;
  }
  return true;
}

}  // namespace

uint32_t CheckHandleArgument(Call& call, HandleKind kind, const char* name, const void* handle) {
  call.Address(name, handle);
  const HandleCheck check = call.layer().objects().CheckHandle(kind, handle, call.device());
  RaiseHandleMisuse(call, kind, name, handle, check, false);
  return check.id;
}

OrderedCallIds CheckOrderedCall(Call& call, const void* stream, HandleKind other_kind,
                                const char* other_name, const void* other) {
  call.Address("stream", stream);
  if (other_name != nullptr) call.Address(other_name, other);
  const ObjectTracker::OrderedCallCheck check =
      call.layer().objects().BeginOrderedCall(stream, call.device(), other_kind, other);
  RaiseHandleMisuse(call, HandleKind::kStream, "stream", stream, check.stream, false);
  if (other_name != nullptr) {
    RaiseHandleMisuse(call, other_kind, other_name, other, check.other, false);
  }
  return {check.stream.id, check.other.id};
}

void FinishOrderedCall(Call& call, const void* stream, TF_Status* status) {
  call.record().status = CodeOf(status);
  if (call.withheld() || CodeOf(status) != TF_OK) call.layer().objects().EnqueueFailed(stream);
}

namespace {

// Raises what `check` says about device range argument `name`.
void RaiseRangeMisuse(Call& call, const char* name, const void* address, uint64_t size,
                      const RangeCheck& check) {
  switch (check.place) {
    case RangePlace::kInside:
    case RangePlace::kEmpty:
      break;
    case RangePlace::kPastEnd:
      call.Raise(FindingKind::kRangeOutsideAllocation,
                 fmt::format("{} {} + {} bytes runs {} bytes past the end of its allocation "
                             "({} bytes, starting {} bytes before it)",
                             name, address, size, check.range.offset + size - check.allocation_size,
                             check.allocation_size, check.range.offset));
      break;
    case RangePlace::kInHostMemory:
      call.Raise(FindingKind::kDevicePointerInHostMemory,
                 fmt::format("{} {} is host memory from host_memory_allocate, not device memory",
                             name, address));
      break;
    case RangePlace::kNowhere:
      call.Raise(
          FindingKind::kRangeOutsideAllocation,
          fmt::format("{} {} ({} bytes) is in no live device allocation", name, address, size));
      call.Withhold(
          fmt::format("{} {} ({} bytes) is in no live device allocation", name, address, size));
      break;
  }
}

// Raises a host argument `name` that touches device allocation `allocation`.
void RaiseHostMisuse(Call& call, const char* name, const void* host, uint64_t size,
                     const std::optional<AllocationRecord>& allocation) {
  if (!allocation) return;
  call.Raise(FindingKind::kHostPointerInDeviceMemory,
             fmt::format("{} {} ({} bytes) points into device allocation {} ({:#x}, {} bytes, "
                         "device {})",
                         name, host, size, allocation->id, allocation->base, allocation->size,
                         allocation->device));
}

}  // namespace

trace::DeviceRange CheckDeviceArgument(Call& call, const char* name,
                                       const SP_DeviceMemoryBase* memory, uint64_t size) {
  const void* address = memory != nullptr ? memory->opaque : nullptr;
  call.Address(name, address);
  const RangeCheck check = call.layer().objects().PlaceDeviceRange(address, size);
  RaiseRangeMisuse(call, name, address, size, check);
  return check.range;
}

trace::DeviceRange CheckCopyArguments(Call& call, const char* device_name,
                                      const SP_DeviceMemoryBase* memory, const char* host_name,
                                      const void* host, uint64_t size) {
  const void* address = memory != nullptr ? memory->opaque : nullptr;
  call.Address(device_name, address);
  call.Address(host_name, host);
  const ObjectTracker::CopyPlaces places = call.layer().objects().PlaceCopy(address, size, host);
  RaiseRangeMisuse(call, device_name, address, size, places.device);
  RaiseHostMisuse(call, host_name, host, size, places.host_touches);
  return places.device.range;
}

uint32_t NoteCreatedHandle(Call& call, HandleKind kind, const void* handle, TF_Status* status) {
  const bool ok = CodeOf(status) == TF_OK;
  if (ok && handle == nullptr) {
    call.Raise(FindingKind::kStatusOkWithoutHandle,
               fmt::format("status OK, {} handle null", HandleKindName(kind)));
    return 0;
  }
  if (!ok) {
    if (handle != nullptr) {
      call.Raise(FindingKind::kStatusErrorWithHandle,
                 fmt::format("status {} but {} handle {} returned", CodeOf(status),
                             HandleKindName(kind), handle));
    }
    return 0;
  }
  return call.layer().objects().HandleCreated(kind, handle, call.device());
}

Release NoteDestroyedHandle(Call& call, HandleKind kind, const char* name, const void* handle) {
  call.Address(name, handle);
  ObjectTracker& objects = call.layer().objects();
  // A shared stream's pending work is judged when its last holder lets go:
  // before that, the work may be another holder's, who still syncs it.
  if (kind == HandleKind::kStream && handle != nullptr &&
      objects.LiveCreations(kind, handle) <= 1) {
    const uint64_t work = objects.UnsynchronisedWork(handle);
    const size_t callbacks = objects.PendingCallbacksOn(handle);
    if (callbacks > 0) {
      call.Raise(
          FindingKind::kStreamDestroyedWithPendingWork,
          fmt::format("stream {} destroyed with {} host callbacks not yet run", handle, callbacks));
    } else if (work > 0) {
      call.Raise(FindingKind::kStreamDestroyedWithPendingWork,
                 fmt::format("stream {} destroyed with {} operations enqueued since it was last "
                             "synchronised",
                             handle, work));
    }
  }
  const HandleCheck check = objects.HandleDestroyed(kind, handle, call.device());
  return {check.id, RaiseHandleMisuse(call, kind, name, handle, check, true)};
}

void CheckCallbacksRanBy(Call& call, const void* stream) {
  for (const PendingCallback& late :
       call.layer().objects().OverdueCallbacks(stream, call.device(), call.sequence())) {
    call.Raise(FindingKind::kCallbackNotRunBySync,
               fmt::format("the host callback enqueued on stream {} (call {}) had not run when "
                           "{} returned OK",
                           late.stream, late.sequence, abi::QualifiedName(call.function())));
  }
}

}  // namespace sectl::validate
