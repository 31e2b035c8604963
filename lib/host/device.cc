#include "host/device.h"

#include <fmt/format.h>

#include <cstring>

#include "host/compatibility.h"
#include "host/event.h"
#include "host/guarded_struct.h"
#include "host/platform.h"
#include "host/plugin_string.h"
#include "host/stream.h"
#include "host/timer.h"

namespace sectl::host {
using abi::PluginFunction;

Device::Device(Passkey, Platform& platform, int ordinal, const SP_Device& device)
    : platform_(platform),
      requested_ordinal_(ordinal),
      device_(device),
      hardware_name_(ReadPluginString(device.hardware_name)),
      vendor_(ReadPluginString(device.device_vendor)),
      pci_bus_id_(ReadPluginString(device.pci_bus_id)) {}

Expected<std::unique_ptr<Device>> Device::Create(Platform& platform, int ordinal) {
  auto device = platform.HandOver<SP_Device>(abi::StructKind::kDevice);
  auto params = platform.HandOver<SE_CreateDeviceParams>(abi::StructKind::kCreateDeviceParams);
  params->ordinal = ordinal;
  params->device = device.get();
  auto created = platform.dispatcher().InvokeWithStatus(PluginFunction::kCreateDevice,
                                                        platform.platform_fns().create_device,
                                                        platform.plugin_platform(), params.get());
  if (!created) return tl::unexpected(created.error());

  platform.NoteOverrun("SP_Device", device);
  platform.NoteOverrun("SE_CreateDeviceParams", params);
  const auto reading = platform.NoteStructSize(abi::StructKind::kDevice, device->struct_size);
  SP_Device decoded{};
  abi::DecodeToCurrentLayout(reading, device.get(), device.host_bytes(), &decoded);

  // TensorFlow asks for the count right after creating a device.
  (void)platform.DeviceCount();

  auto result = std::make_unique<Device>(Passkey{}, platform, ordinal, decoded);
  if (decoded.ordinal != ordinal) {
    const auto& judgement = JudgeDeviceBehaviour(DeviceBehaviour::kOrdinalNotFilled);
    result->findings_.Add(judgement.severity, "device.ordinal_mismatch",
                          fmt::format("create_device for ordinal {} left SP_Device.ordinal = {} "
                                      "({})",
                                      ordinal, decoded.ordinal, judgement.reason));
  }
  return result;
}

Device::~Device() {
  (void)dispatcher().Invoke(PluginFunction::kDestroyDevice, platform_.platform_fns().destroy_device,
                            platform_.plugin_platform(), &device_);
}

const Dispatcher& Device::dispatcher() const { return platform_.dispatcher(); }

const SP_StreamExecutor& Device::fns() const { return platform_.stream_executor(); }

std::optional<int32_t> Device::NumaNode() const {
  auto node = dispatcher().Invoke(PluginFunction::kGetNumaNode,
                                  platform_.device_fns().get_numa_node, &device_);
  if (!node) return std::nullopt;
  return *node;
}

std::optional<int64_t> Device::MemoryBandwidth() const {
  auto bandwidth = dispatcher().Invoke(PluginFunction::kGetMemoryBandwidth,
                                       platform_.device_fns().get_memory_bandwidth, &device_);
  if (!bandwidth) return std::nullopt;
  return *bandwidth;
}

std::optional<double> Device::Gflops() const {
  auto gflops =
      dispatcher().Invoke(PluginFunction::kGetGflops, platform_.device_fns().get_gflops, &device_);
  if (!gflops) return std::nullopt;
  return *gflops;
}

Expected<MemoryUsage> Device::QueryMemoryUsage() const {
  MemoryUsage usage;
  auto answered = dispatcher().Invoke(PluginFunction::kDeviceMemoryUsage, fns().device_memory_usage,
                                      &device_, &usage.free_bytes, &usage.total_bytes);
  if (!answered) return tl::unexpected(answered.error());
  if (*answered == 0) {
    return PluginFailure(
        PluginFunction::kDeviceMemoryUsage,
        "device_memory_usage returned false: TensorFlow fails to create the device "
        "(\"Failed to query available memory\")");
  }
  return usage;
}

Expected<std::optional<SP_AllocatorStats>> Device::QueryAllocatorStats() const {
  auto stats = platform_.HandOver<SP_AllocatorStats>(abi::StructKind::kAllocatorStats);
  auto answered = dispatcher().Invoke(PluginFunction::kGetAllocatorStats, fns().get_allocator_stats,
                                      &device_, stats.get());
  if (!answered) return tl::unexpected(answered.error());
  platform_.NoteOverrun("SP_AllocatorStats", stats);
  if (*answered == 0) return std::optional<SP_AllocatorStats>();
  return std::optional<SP_AllocatorStats>(*stats.get());
}

Expected<DeviceMemory> Device::Allocate(uint64_t size, int64_t memory_space) const {
  auto memory = platform_.HandOver<SP_DeviceMemoryBase>(abi::StructKind::kDeviceMemoryBase);
  auto called = dispatcher().Invoke(PluginFunction::kAllocate, fns().allocate, &device_, size,
                                    memory_space, memory.get());
  if (!called) return tl::unexpected(called.error());
  platform_.NoteOverrun("SP_DeviceMemoryBase", memory);
  if (memory->opaque == nullptr && size > 0) {
    return PluginFailure(PluginFunction::kAllocate,
                         fmt::format("allocate returned no memory for {} bytes", size));
  }
  return DeviceMemory(this, *memory.get());
}

void Device::Deallocate(void* opaque) const {
  // TensorFlow's allocator frees through DeviceMemoryBase(ptr): only
  // `opaque` is set.
  SP_DeviceMemoryBase memory{};
  memory.struct_size = SP_DEVICE_MEMORY_BASE_STRUCT_SIZE;
  memory.opaque = opaque;
  (void)dispatcher().Invoke(PluginFunction::kDeallocate, fns().deallocate, &device_, &memory);
}

Expected<HostMemory> Device::AllocateHost(HostMemoryKind kind, uint64_t size) const {
  const bool pinned = kind == HostMemoryKind::kPinned;
  auto data = pinned ? dispatcher().Invoke(PluginFunction::kHostMemoryAllocate,
                                           fns().host_memory_allocate, &device_, size)
                     : dispatcher().Invoke(PluginFunction::kUnifiedMemoryAllocate,
                                           fns().unified_memory_allocate, &device_, size);
  if (!data) return tl::unexpected(data.error());
  if (*data == nullptr && size > 0) {
    return PluginFailure(
        pinned ? PluginFunction::kHostMemoryAllocate : PluginFunction::kUnifiedMemoryAllocate,
        fmt::format("{} returned null for {} bytes",
                    pinned ? "host_memory_allocate" : "unified_memory_allocate", size));
  }
  return HostMemory(this, kind, *data, size);
}

void Device::DeallocateHost(HostMemoryKind kind, void* data) const {
  if (kind == HostMemoryKind::kPinned) {
    (void)dispatcher().Invoke(PluginFunction::kHostMemoryDeallocate, fns().host_memory_deallocate,
                              &device_, data);
  } else {
    (void)dispatcher().Invoke(PluginFunction::kUnifiedMemoryDeallocate,
                              fns().unified_memory_deallocate, &device_, data);
  }
}

Expected<std::unique_ptr<Stream>> Device::CreateStream() const { return Stream::Create(*this); }

Expected<std::unique_ptr<Event>> Device::CreateEvent() const { return Event::Create(*this); }

Expected<std::unique_ptr<Timer>> Device::CreateTimer() const { return Timer::Create(*this); }

Expected<void> Device::SynchronizeAllActivity() const {
  return dispatcher().InvokeWithStatus(PluginFunction::kSynchronizeAllActivity,
                                       fns().synchronize_all_activity, &device_);
}

Expected<void> Device::SyncMemcpyHtoD(SP_DeviceMemoryBase destination, const void* source,
                                      uint64_t size) const {
  return dispatcher().InvokeWithStatus(PluginFunction::kSyncMemcpyHtoD, fns().sync_memcpy_htod,
                                       &device_, &destination, source, size);
}

Expected<void> Device::SyncMemcpyDtoH(void* destination, SP_DeviceMemoryBase source,
                                      uint64_t size) const {
  return dispatcher().InvokeWithStatus(PluginFunction::kSyncMemcpyDtoH, fns().sync_memcpy_dtoh,
                                       &device_, destination,
                                       static_cast<const SP_DeviceMemoryBase*>(&source), size);
}

Expected<void> Device::SyncMemcpyDtoD(SP_DeviceMemoryBase destination, SP_DeviceMemoryBase source,
                                      uint64_t size) const {
  return dispatcher().InvokeWithStatus(PluginFunction::kSyncMemcpyDtoD, fns().sync_memcpy_dtod,
                                       &device_, &destination,
                                       static_cast<const SP_DeviceMemoryBase*>(&source), size);
}

}  // namespace sectl::host
