#include "abi/struct_layouts.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <ranges>

#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

namespace sectl::abi {
namespace {

#define SECTL_MEMBER(type, member) \
  MemberLayout { #member, offsetof(type, member), sizeof(type::member) }

// ---- Current layouts, taken from the header itself. ----

constexpr std::array kRegistrationParamsMembers = {
    SECTL_MEMBER(SE_PlatformRegistrationParams, struct_size),
    SECTL_MEMBER(SE_PlatformRegistrationParams, ext),
    SECTL_MEMBER(SE_PlatformRegistrationParams, major_version),
    SECTL_MEMBER(SE_PlatformRegistrationParams, minor_version),
    SECTL_MEMBER(SE_PlatformRegistrationParams, patch_version),
    SECTL_MEMBER(SE_PlatformRegistrationParams, platform),
    SECTL_MEMBER(SE_PlatformRegistrationParams, platform_fns),
    SECTL_MEMBER(SE_PlatformRegistrationParams, destroy_platform),
    SECTL_MEMBER(SE_PlatformRegistrationParams, destroy_platform_fns),
};

constexpr std::array kPlatformMembers = {
    SECTL_MEMBER(SP_Platform, struct_size),
    SECTL_MEMBER(SP_Platform, ext),
    SECTL_MEMBER(SP_Platform, name),
    SECTL_MEMBER(SP_Platform, type),
    SECTL_MEMBER(SP_Platform, supports_unified_memory),
    SECTL_MEMBER(SP_Platform, use_bfc_allocator),
    SECTL_MEMBER(SP_Platform, force_memory_growth),
};

constexpr std::array kPlatformFnsMembers = {
    SECTL_MEMBER(SP_PlatformFns, struct_size),
    SECTL_MEMBER(SP_PlatformFns, ext),
    SECTL_MEMBER(SP_PlatformFns, get_device_count),
    SECTL_MEMBER(SP_PlatformFns, create_device),
    SECTL_MEMBER(SP_PlatformFns, destroy_device),
    SECTL_MEMBER(SP_PlatformFns, create_device_fns),
    SECTL_MEMBER(SP_PlatformFns, destroy_device_fns),
    SECTL_MEMBER(SP_PlatformFns, create_stream_executor),
    SECTL_MEMBER(SP_PlatformFns, destroy_stream_executor),
    SECTL_MEMBER(SP_PlatformFns, create_timer_fns),
    SECTL_MEMBER(SP_PlatformFns, destroy_timer_fns),
};

constexpr std::array kCreateDeviceParamsMembers = {
    SECTL_MEMBER(SE_CreateDeviceParams, struct_size),
    SECTL_MEMBER(SE_CreateDeviceParams, ext),
    SECTL_MEMBER(SE_CreateDeviceParams, ordinal),
    SECTL_MEMBER(SE_CreateDeviceParams, device),
};

constexpr std::array kDeviceMembers = {
    SECTL_MEMBER(SP_Device, struct_size),   SECTL_MEMBER(SP_Device, ext),
    SECTL_MEMBER(SP_Device, ordinal),       SECTL_MEMBER(SP_Device, device_handle),
    SECTL_MEMBER(SP_Device, hardware_name), SECTL_MEMBER(SP_Device, device_vendor),
    SECTL_MEMBER(SP_Device, pci_bus_id),
};

constexpr std::array kCreateDeviceFnsParamsMembers = {
    SECTL_MEMBER(SE_CreateDeviceFnsParams, struct_size),
    SECTL_MEMBER(SE_CreateDeviceFnsParams, ext),
    SECTL_MEMBER(SE_CreateDeviceFnsParams, device_fns),
};

constexpr std::array kDeviceFnsMembers = {
    SECTL_MEMBER(SP_DeviceFns, struct_size),   SECTL_MEMBER(SP_DeviceFns, ext),
    SECTL_MEMBER(SP_DeviceFns, get_numa_node), SECTL_MEMBER(SP_DeviceFns, get_memory_bandwidth),
    SECTL_MEMBER(SP_DeviceFns, get_gflops),
};

constexpr std::array kCreateStreamExecutorParamsMembers = {
    SECTL_MEMBER(SE_CreateStreamExecutorParams, struct_size),
    SECTL_MEMBER(SE_CreateStreamExecutorParams, ext),
    SECTL_MEMBER(SE_CreateStreamExecutorParams, stream_executor),
};

#define SECTL_SE_MEMBER(member) SECTL_MEMBER(SP_StreamExecutor, member)
constexpr std::array kStreamExecutorMembers = {
    SECTL_SE_MEMBER(struct_size),
    SECTL_SE_MEMBER(ext),
    SECTL_SE_MEMBER(allocate),
    SECTL_SE_MEMBER(deallocate),
    SECTL_SE_MEMBER(host_memory_allocate),
    SECTL_SE_MEMBER(host_memory_deallocate),
    SECTL_SE_MEMBER(unified_memory_allocate),
    SECTL_SE_MEMBER(unified_memory_deallocate),
    SECTL_SE_MEMBER(get_allocator_stats),
    SECTL_SE_MEMBER(device_memory_usage),
    SECTL_SE_MEMBER(create_stream),
    SECTL_SE_MEMBER(destroy_stream),
    SECTL_SE_MEMBER(create_stream_dependency),
    SECTL_SE_MEMBER(get_stream_status),
    SECTL_SE_MEMBER(create_event),
    SECTL_SE_MEMBER(destroy_event),
    SECTL_SE_MEMBER(get_event_status),
    SECTL_SE_MEMBER(record_event),
    SECTL_SE_MEMBER(wait_for_event),
    SECTL_SE_MEMBER(create_timer),
    SECTL_SE_MEMBER(destroy_timer),
    SECTL_SE_MEMBER(start_timer),
    SECTL_SE_MEMBER(stop_timer),
    SECTL_SE_MEMBER(memcpy_dtoh),
    SECTL_SE_MEMBER(memcpy_htod),
    SECTL_SE_MEMBER(memcpy_dtod),
    SECTL_SE_MEMBER(sync_memcpy_dtoh),
    SECTL_SE_MEMBER(sync_memcpy_htod),
    SECTL_SE_MEMBER(sync_memcpy_dtod),
    SECTL_SE_MEMBER(block_host_for_event),
    SECTL_SE_MEMBER(block_host_until_done),
    SECTL_SE_MEMBER(synchronize_all_activity),
    SECTL_SE_MEMBER(mem_zero),
    SECTL_SE_MEMBER(memset),
    SECTL_SE_MEMBER(memset32),
    SECTL_SE_MEMBER(host_callback),
};
#undef SECTL_SE_MEMBER

constexpr std::array kTimerFnsMembers = {
    SECTL_MEMBER(SP_TimerFns, struct_size),
    SECTL_MEMBER(SP_TimerFns, ext),
    SECTL_MEMBER(SP_TimerFns, nanoseconds),
};

constexpr std::array kAllocatorStatsMembers = {
    SECTL_MEMBER(SP_AllocatorStats, struct_size),
    SECTL_MEMBER(SP_AllocatorStats, num_allocs),
    SECTL_MEMBER(SP_AllocatorStats, bytes_in_use),
    SECTL_MEMBER(SP_AllocatorStats, peak_bytes_in_use),
    SECTL_MEMBER(SP_AllocatorStats, largest_alloc_size),
    SECTL_MEMBER(SP_AllocatorStats, has_bytes_limit),
    SECTL_MEMBER(SP_AllocatorStats, bytes_limit),
    SECTL_MEMBER(SP_AllocatorStats, bytes_reserved),
    SECTL_MEMBER(SP_AllocatorStats, peak_bytes_reserved),
    SECTL_MEMBER(SP_AllocatorStats, has_bytes_reservable_limit),
    SECTL_MEMBER(SP_AllocatorStats, bytes_reservable_limit),
    SECTL_MEMBER(SP_AllocatorStats, largest_free_block_bytes),
};

constexpr std::array kDeviceMemoryBaseMembers = {
    SECTL_MEMBER(SP_DeviceMemoryBase, struct_size), SECTL_MEMBER(SP_DeviceMemoryBase, ext),
    SECTL_MEMBER(SP_DeviceMemoryBase, opaque),      SECTL_MEMBER(SP_DeviceMemoryBase, size),
    SECTL_MEMBER(SP_DeviceMemoryBase, payload),
};
#undef SECTL_MEMBER

// ---- Historical layouts, from the header's history (see the facts file). ----

// TF up to 2.6: no mem_zero family; host_callback directly after
// synchronize_all_activity, at 256. Ends at 264.
constexpr auto kStreamExecutor264Members = [] {
  std::array<MemberLayout, kStreamExecutorMembers.size() - 3> members{};
  size_t next = 0;
  for (const auto& member : kStreamExecutorMembers) {
    if (member.name == "mem_zero" || member.name == "memset" || member.name == "memset32") continue;
    members[next] = member;
    if (member.name == "host_callback") members[next].offset = 256;
    ++next;
  }
  return members;
}();

// Before PR #47581 (early 2021): SP_Platform carried visible_device_count.
constexpr std::array kPlatformWithDeviceCountMembers = {
    MemberLayout{"struct_size", 0, 8},
    MemberLayout{"ext", 8, 8},
    MemberLayout{"name", 16, 8},
    MemberLayout{"type", 24, 8},
    MemberLayout{"visible_device_count", 32, 8},
    MemberLayout{"supports_unified_memory", 40, 1},
};

constexpr std::span<const MemberLayout> FirstMembers(std::span<const MemberLayout> all,
                                                     size_t count) {
  return all.first(count);
}

const std::array kRegistrationParamsLayouts = {
    StructLayout{StructKind::kRegistrationParams, "SE_PlatformRegistrationParams",
                 SE_PLATFORM_REGISTRATION_PARAMS_STRUCT_SIZE, sizeof(SE_PlatformRegistrationParams),
                 "all shipped headers", true, kRegistrationParamsMembers},
};

const std::array kPlatformLayouts = {
    StructLayout{StructKind::kPlatform, "SP_Platform", 41, 48,
                 "pre-release TF 2.5 header (visible_device_count)", false,
                 kPlatformWithDeviceCountMembers},
    StructLayout{StructKind::kPlatform, "SP_Platform", 33, sizeof(SP_Platform),
                 "TF 2.5 header (before use_bfc_allocator)", true,
                 FirstMembers(kPlatformMembers, 5)},
    StructLayout{StructKind::kPlatform, "SP_Platform", 34, sizeof(SP_Platform),
                 "TF 2.5-2.9 headers (use_bfc_allocator)", true, FirstMembers(kPlatformMembers, 6)},
    StructLayout{StructKind::kPlatform, "SP_Platform", SP_PLATFORM_STRUCT_SIZE, sizeof(SP_Platform),
                 "TF 2.10+ headers (force_memory_growth)", true, kPlatformMembers},
};

const std::array kPlatformFnsLayouts = {
    StructLayout{StructKind::kPlatformFns, "SP_PlatformFns", SP_PLATFORM_FNS_STRUCT_SIZE,
                 sizeof(SP_PlatformFns), "TF 2.5+ headers (get_device_count first)", true,
                 kPlatformFnsMembers},
};

const std::array kCreateDeviceParamsLayouts = {
    StructLayout{StructKind::kCreateDeviceParams, "SE_CreateDeviceParams",
                 SE_CREATE_DEVICE_PARAMS_STRUCT_SIZE, sizeof(SE_CreateDeviceParams),
                 "all shipped headers", true, kCreateDeviceParamsMembers},
};

const std::array kDeviceLayouts = {
    StructLayout{StructKind::kDevice, "SP_Device", 32, 32, "RFC-era header (ends at device_handle)",
                 true, FirstMembers(kDeviceMembers, 4)},
    StructLayout{StructKind::kDevice, "SP_Device", SP_DEVICE_STRUCT_SIZE, sizeof(SP_Device),
                 "TF 2.5+ headers (hardware_name, device_vendor, pci_bus_id)", true,
                 kDeviceMembers},
};

const std::array kCreateDeviceFnsParamsLayouts = {
    StructLayout{StructKind::kCreateDeviceFnsParams, "SE_CreateDeviceFnsParams",
                 SE_CREATE_DEVICE_FNS_PARAMS_STRUCT_SIZE, sizeof(SE_CreateDeviceFnsParams),
                 "all shipped headers", true, kCreateDeviceFnsParamsMembers},
};

const std::array kDeviceFnsLayouts = {
    StructLayout{StructKind::kDeviceFns, "SP_DeviceFns", SP_DEVICE_FNS_STRUCT_SIZE,
                 sizeof(SP_DeviceFns), "all shipped headers", true, kDeviceFnsMembers},
};

const std::array kCreateStreamExecutorParamsLayouts = {
    StructLayout{StructKind::kCreateStreamExecutorParams, "SE_CreateStreamExecutorParams",
                 SE_CREATE_STREAM_EXECUTOR_PARAMS_STRUCT_SIZE,
                 sizeof(SE_CreateStreamExecutorParams), "all shipped headers", true,
                 kCreateStreamExecutorParamsMembers},
};

const std::array kStreamExecutorLayouts = {
    StructLayout{StructKind::kStreamExecutor, "SP_StreamExecutor", 264, 264,
                 "TF 2.5-2.6 headers (host_callback at 256, no mem_zero/memset/memset32)", true,
                 kStreamExecutor264Members},
    StructLayout{StructKind::kStreamExecutor, "SP_StreamExecutor", SP_STREAMEXECUTOR_STRUCT_SIZE,
                 sizeof(SP_StreamExecutor), "TF 2.7+ headers (mem_zero, memset, memset32)", true,
                 kStreamExecutorMembers},
};

const std::array kTimerFnsLayouts = {
    StructLayout{StructKind::kTimerFns, "SP_TimerFns", SP_TIMER_FNS_STRUCT_SIZE,
                 sizeof(SP_TimerFns), "all shipped headers", true, kTimerFnsMembers},
};

const std::array kAllocatorStatsLayouts = {
    StructLayout{StructKind::kAllocatorStats, "SP_AllocatorStats", SP_ALLOCATORSTATS_STRUCT_SIZE,
                 sizeof(SP_AllocatorStats), "all shipped headers", true, kAllocatorStatsMembers},
};

const std::array kDeviceMemoryBaseLayouts = {
    StructLayout{StructKind::kDeviceMemoryBase, "SP_DeviceMemoryBase", 32, 32,
                 "RFC draft (ends at size)", true, FirstMembers(kDeviceMemoryBaseMembers, 4)},
    StructLayout{StructKind::kDeviceMemoryBase, "SP_DeviceMemoryBase",
                 SP_DEVICE_MEMORY_BASE_STRUCT_SIZE, sizeof(SP_DeviceMemoryBase),
                 "all shipped headers", true, kDeviceMemoryBaseMembers},
};

constexpr std::array kAllKinds = {
    StructKind::kRegistrationParams,
    StructKind::kPlatform,
    StructKind::kPlatformFns,
    StructKind::kCreateDeviceParams,
    StructKind::kDevice,
    StructKind::kCreateDeviceFnsParams,
    StructKind::kDeviceFns,
    StructKind::kCreateStreamExecutorParams,
    StructKind::kStreamExecutor,
    StructKind::kTimerFns,
    StructKind::kAllocatorStats,
    StructKind::kDeviceMemoryBase,
};

std::string_view VerdictPhrase(SizeVerdict verdict) {
  switch (verdict) {
    case SizeVerdict::kCurrent:
      return "the current layout";
    case SizeVerdict::kOlderKnown:
      return "an older layout";
    case SizeVerdict::kNewer:
      return "larger than any layout sectl knows (a newer header); the known members are read";
    case SizeVerdict::kSizeofInsteadOfEnd:
      return "sizeof() of the struct, where TF_OFFSET_OF_END of its last member was meant";
    case SizeVerdict::kUnknown:
      return "matches no published layout; only members that fit are read";
    case SizeVerdict::kIncompatible:
      return "a pre-release layout this host cannot read";
    case SizeVerdict::kZero:
      return "not set (TensorFlow rejects a zero struct_size)";
  }
  return "";
}

}  // namespace

std::span<const StructLayout> KnownLayouts(StructKind kind) {
  switch (kind) {
    case StructKind::kRegistrationParams:
      return kRegistrationParamsLayouts;
    case StructKind::kPlatform:
      return kPlatformLayouts;
    case StructKind::kPlatformFns:
      return kPlatformFnsLayouts;
    case StructKind::kCreateDeviceParams:
      return kCreateDeviceParamsLayouts;
    case StructKind::kDevice:
      return kDeviceLayouts;
    case StructKind::kCreateDeviceFnsParams:
      return kCreateDeviceFnsParamsLayouts;
    case StructKind::kDeviceFns:
      return kDeviceFnsLayouts;
    case StructKind::kCreateStreamExecutorParams:
      return kCreateStreamExecutorParamsLayouts;
    case StructKind::kStreamExecutor:
      return kStreamExecutorLayouts;
    case StructKind::kTimerFns:
      return kTimerFnsLayouts;
    case StructKind::kAllocatorStats:
      return kAllocatorStatsLayouts;
    case StructKind::kDeviceMemoryBase:
      return kDeviceMemoryBaseLayouts;
  }
  return {};
}

const StructLayout& CurrentLayout(StructKind kind) { return KnownLayouts(kind).back(); }

std::span<const StructKind> AllStructKinds() { return kAllKinds; }

StructSizeReading ReadStructSize(StructKind kind, size_t reported_size) {
  const auto layouts = KnownLayouts(kind);
  const StructLayout& current = layouts.back();
  if (reported_size == 0) return {SizeVerdict::kZero, 0, &current};
  for (const auto& layout : layouts) {
    if (layout.struct_size != reported_size) continue;
    if (&layout == &current) return {SizeVerdict::kCurrent, reported_size, &layout};
    if (!layout.compatible) return {SizeVerdict::kIncompatible, reported_size, &layout};
    return {SizeVerdict::kOlderKnown, reported_size, &layout};
  }
  // Several headers pad to the same sizeof (SP_Platform 33, 34 and 35 all
  // give 40): the newest is what a plugin built today was compiled against.
  for (auto it = layouts.rbegin(); it != layouts.rend(); ++it) {
    const StructLayout& layout = *it;
    if (layout.compatible && layout.sizeof_bytes != layout.struct_size &&
        layout.sizeof_bytes == reported_size) {
      return {SizeVerdict::kSizeofInsteadOfEnd, reported_size, &layout};
    }
  }
  if (reported_size > current.sizeof_bytes) return {SizeVerdict::kNewer, reported_size, &current};
  return {SizeVerdict::kUnknown, reported_size, &current};
}

std::string StructSizeReading::Describe() const {
  switch (verdict) {
    case SizeVerdict::kCurrent:
    case SizeVerdict::kOlderKnown:
    case SizeVerdict::kIncompatible:
      return fmt::format("{} bytes: {}, {}", reported_size, VerdictPhrase(verdict),
                         layout->vintage);
    case SizeVerdict::kSizeofInsteadOfEnd:
      return fmt::format("{} bytes: {} ({} bytes, {})", reported_size, VerdictPhrase(verdict),
                         layout->struct_size, layout->vintage);
    default:
      return fmt::format("{} bytes: {}", reported_size, VerdictPhrase(verdict));
  }
}

void DecodeToCurrentLayout(const StructSizeReading& reading, const void* plugin_bytes,
                           size_t available_bytes, void* current_out) {
  const StructLayout& current = CurrentLayout(reading.layout->kind);
  std::memset(current_out, 0, current.sizeof_bytes);
  auto* out = static_cast<unsigned char*>(current_out);
  const auto* in = static_cast<const unsigned char*>(plugin_bytes);

  // A plugin's members lie within the size it reported. A zero or
  // "sizeof" size says nothing about which members it wrote, so the whole
  // layout is read; a newer plugin's extra members are simply not known.
  size_t readable = reading.reported_size;
  if (reading.verdict == SizeVerdict::kZero ||
      reading.verdict == SizeVerdict::kSizeofInsteadOfEnd ||
      reading.verdict == SizeVerdict::kNewer) {
    readable = reading.layout->sizeof_bytes;
  }
  readable = std::min(readable, available_bytes);
  if (reading.verdict != SizeVerdict::kIncompatible) {
    for (const auto& target : current.members) {
      for (const auto& source : reading.layout->members) {
        if (source.name != target.name || source.width != target.width) continue;
        if (source.offset + source.width <= readable) {
          std::memcpy(out + target.offset, in + source.offset, target.width);
        }
      }
    }
  }
  std::memcpy(out, &reading.reported_size, sizeof(size_t));
}

}  // namespace sectl::abi
