// Wrappers for allocation and memory accounting: every allocation is
// remembered (its range, device, and where in the host it was made), so
// copies and fills can be placed in it and leaks reported at teardown.
#include <fmt/format.h>

#include "validate/forward.h"
#include "validate/wrapper_support.h"
#include "validate/wrappers.h"

namespace sectl::validate::wrappers {
namespace {

using abi::PluginFunction;

uintptr_t CallerOf(void* return_address) { return reinterpret_cast<uintptr_t>(return_address); }

// Registers a device (or unified) allocation; raises on an overlap.
uint32_t NoteAllocation(Call& call, const void* base, uint64_t size, bool unified,
                        uintptr_t call_site) {
  if (base == nullptr) return 0;
  AllocationRecord record;
  record.base = reinterpret_cast<uintptr_t>(base);
  record.size = size;
  record.device = call.device();
  record.unified = unified;
  record.call_site = call_site;
  record.sequence = call.sequence();
  std::optional<AllocationRecord> overlapped;
  const uint32_t id = call.layer().objects().Allocated(record, &overlapped);
  if (overlapped) {
    call.Raise(
        FindingKind::kAllocationOverlaps,
        overlapped->id == id
            ? fmt::format("allocate returned {} ({} bytes) again while allocation {} "
                          "({} bytes) there is live",
                          base, size, id, overlapped->size)
            : fmt::format("allocation {} ({}, {} bytes) overlaps live allocation {} "
                          "({:#x}, {} bytes)",
                          id, base, size, overlapped->id, overlapped->base, overlapped->size));
  }
  return id;
}

// Forgets an allocation; raises on an unknown or second deallocation, and
// keeps the second from the plugin (a double free there).
Release NoteDeallocation(Call& call, const char* name, const void* base, bool host) {
  call.Address(name, base);
  uint32_t id = 0;
  int32_t owner = -1;
  switch (call.layer().objects().Deallocated(base, host, call.device(), &id, &owner)) {
    case Deallocation::kOk:
    case Deallocation::kNull:
      break;
    case Deallocation::kUnknown:
      call.Raise(
          FindingKind::kDeallocateUnknown,
          fmt::format("{} {} was never returned by {}", name, base,
                      host ? "host_memory_allocate" : "allocate or unified_memory_allocate"));
      break;
    case Deallocation::kTwice:
      call.Raise(FindingKind::kDeallocateTwice,
                 fmt::format("{} {} was already deallocated; this deallocation was not passed on "
                             "to the plugin",
                             name, base));
      return {id, false};
    case Deallocation::kOtherDevice:
      call.Raise(FindingKind::kDeallocateOnOtherDevice,
                 fmt::format("{} {} (allocation {}) was allocated on device {}, deallocated on "
                             "device {}; not passed on to the plugin",
                             name, base, id, owner, call.device()));
      return {id, false};
  }
  return {id, true};
}

}  // namespace

void Allocate(const SP_Device* device, uint64_t size, int64_t memory_space,
              SP_DeviceMemoryBase* mem) {
  const uintptr_t call_site = CallerOf(__builtin_return_address(0));
  Call call(PluginFunction::kAllocate, device);
  call.Number("size", size);
  call.Number("memory_space", static_cast<uint64_t>(memory_space));
  call.record().size = size;
  call.record().memory_space = memory_space;
  Forward<&SP_StreamExecutor::allocate>(call, device, size, memory_space, mem);
  if (mem != nullptr) {
    call.record().created = NoteAllocation(call, mem->opaque, size, false, call_site);
  }
}

void Deallocate(const SP_Device* device, SP_DeviceMemoryBase* memory) {
  Call call(PluginFunction::kDeallocate, device);
  const Release release =
      NoteDeallocation(call, "memory", memory != nullptr ? memory->opaque : nullptr, false);
  call.record().destination.allocation = release.id;
  if (release.forward) Forward<&SP_StreamExecutor::deallocate>(call, device, memory);
}

void* HostMemoryAllocate(const SP_Device* device, uint64_t size) {
  const uintptr_t call_site = CallerOf(__builtin_return_address(0));
  Call call(PluginFunction::kHostMemoryAllocate, device);
  call.Number("size", size);
  call.record().size = size;
  void* memory = Forward<&SP_StreamExecutor::host_memory_allocate>(call, device, size);
  if (memory != nullptr) {
    AllocationRecord record;
    record.base = reinterpret_cast<uintptr_t>(memory);
    record.size = size;
    record.device = call.device();
    record.call_site = call_site;
    record.sequence = call.sequence();
    call.record().created = call.layer().objects().HostAllocated(record);
  }
  return memory;
}

void HostMemoryDeallocate(const SP_Device* device, void* mem) {
  Call call(PluginFunction::kHostMemoryDeallocate, device);
  const Release release = NoteDeallocation(call, "mem", mem, true);
  call.record().host_allocation = release.id;
  if (release.forward) Forward<&SP_StreamExecutor::host_memory_deallocate>(call, device, mem);
}

void* UnifiedMemoryAllocate(const SP_Device* device, uint64_t bytes) {
  const uintptr_t call_site = CallerOf(__builtin_return_address(0));
  Call call(PluginFunction::kUnifiedMemoryAllocate, device);
  call.Number("bytes", bytes);
  call.record().size = bytes;
  void* memory = Forward<&SP_StreamExecutor::unified_memory_allocate>(call, device, bytes);
  call.record().created = NoteAllocation(call, memory, bytes, true, call_site);
  return memory;
}

void UnifiedMemoryDeallocate(const SP_Device* device, void* location) {
  Call call(PluginFunction::kUnifiedMemoryDeallocate, device);
  const Release release = NoteDeallocation(call, "location", location, false);
  call.record().destination.allocation = release.id;
  if (release.forward) {
    Forward<&SP_StreamExecutor::unified_memory_deallocate>(call, device, location);
  }
}

TF_Bool GetAllocatorStats(const SP_Device* device, SP_AllocatorStats* stats) {
  Call call(PluginFunction::kGetAllocatorStats, device);
  const TF_Bool filled = Forward<&SP_StreamExecutor::get_allocator_stats>(call, device, stats);
  call.record().result = filled;
  return filled;
}

TF_Bool DeviceMemoryUsage(const SP_Device* device, int64_t* free, int64_t* total) {
  Call call(PluginFunction::kDeviceMemoryUsage, device);
  const TF_Bool filled =
      Forward<&SP_StreamExecutor::device_memory_usage>(call, device, free, total);
  call.record().result = filled;
  return filled;
}

}  // namespace sectl::validate::wrappers
