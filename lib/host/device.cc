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
      hardware_name_(platform.dispatcher().ReadPluginText(device.hardware_name)),
      vendor_(platform.dispatcher().ReadPluginText(device.device_vendor)),
      pci_bus_id_(platform.dispatcher().ReadPluginText(device.pci_bus_id)) {}

Expected<std::unique_ptr<Device>> Device::Create(Platform& platform, int ordinal) {
  auto device = platform.HandOver<SP_Device>(abi::StructKind::kDevice);
  auto params = platform.HandOver<SE_CreateDeviceParams>(abi::StructKind::kCreateDeviceParams);
  params->ordinal = ordinal;
  params->device = device.get();
  auto created = platform.dispatcher().CallWithStatus<&SP_PlatformFns::create_device>(
      platform.platform_fns({}), platform.plugin_platform(), params.get());
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
  (void)dispatcher().Call<&SP_PlatformFns::destroy_device>(platform_.platform_fns({}),
                                                           platform_.plugin_platform(), &device_);
}

const Dispatcher& Device::dispatcher() const { return platform_.dispatcher(); }

const SP_StreamExecutor& Device::fns(TableAccess key) const {
  return platform_.stream_executor(key);
}

std::optional<int32_t> Device::NumaNode() const {
  auto node = dispatcher().Call<&SP_DeviceFns::get_numa_node>(platform_.device_fns({}), &device_);
  if (!node) return std::nullopt;
  return *node;
}

std::optional<int64_t> Device::MemoryBandwidth() const {
  auto bandwidth =
      dispatcher().Call<&SP_DeviceFns::get_memory_bandwidth>(platform_.device_fns({}), &device_);
  if (!bandwidth) return std::nullopt;
  return *bandwidth;
}

std::optional<double> Device::Gflops() const {
  auto gflops = dispatcher().Call<&SP_DeviceFns::get_gflops>(platform_.device_fns({}), &device_);
  if (!gflops) return std::nullopt;
  return *gflops;
}

Expected<MemoryUsage> Device::QueryMemoryUsage() const {
  MemoryUsage usage;
  auto answered = dispatcher().Call<&SP_StreamExecutor::device_memory_usage>(
      fns({}), &device_, &usage.free_bytes, &usage.total_bytes);
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
  auto answered =
      dispatcher().Call<&SP_StreamExecutor::get_allocator_stats>(fns({}), &device_, stats.get());
  if (!answered) return tl::unexpected(answered.error());
  platform_.NoteOverrun("SP_AllocatorStats", stats);
  if (*answered == 0) return std::optional<SP_AllocatorStats>();
  return std::optional<SP_AllocatorStats>(*stats.get());
}

Expected<DeviceMemory> Device::Allocate(uint64_t size, int64_t memory_space) const {
  auto memory = platform_.HandOver<SP_DeviceMemoryBase>(abi::StructKind::kDeviceMemoryBase);
  auto called = dispatcher().Call<&SP_StreamExecutor::allocate>(fns({}), &device_, size,
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
  (void)dispatcher().Call<&SP_StreamExecutor::deallocate>(fns({}), &device_, &memory);
}

Expected<HostMemory> Device::AllocateHost(HostMemoryKind kind, uint64_t size) const {
  const bool pinned = kind == HostMemoryKind::kPinned;
  auto data =
      pinned
          ? dispatcher().Call<&SP_StreamExecutor::host_memory_allocate>(fns({}), &device_, size)
          : dispatcher().Call<&SP_StreamExecutor::unified_memory_allocate>(fns({}), &device_, size);
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
    (void)dispatcher().Call<&SP_StreamExecutor::host_memory_deallocate>(fns({}), &device_, data);
  } else {
    (void)dispatcher().Call<&SP_StreamExecutor::unified_memory_deallocate>(fns({}), &device_, data);
  }
}

Expected<std::unique_ptr<Stream>> Device::CreateStream() const { return Stream::Create(*this); }

Expected<std::unique_ptr<Event>> Device::CreateEvent() const { return Event::Create(*this); }

Expected<std::unique_ptr<Timer>> Device::CreateTimer() const { return Timer::Create(*this); }

Expected<void> Device::SynchronizeAllActivity() const {
  return dispatcher().CallWithStatus<&SP_StreamExecutor::synchronize_all_activity>(fns({}),
                                                                                   &device_);
}

Expected<void> Device::SyncMemcpyHtoD(SP_DeviceMemoryBase destination, const void* source,
                                      uint64_t size) const {
  return dispatcher().CallWithStatus<&SP_StreamExecutor::sync_memcpy_htod>(
      fns({}), &device_, &destination, source, size);
}

Expected<void> Device::SyncMemcpyDtoH(void* destination, SP_DeviceMemoryBase source,
                                      uint64_t size) const {
  return dispatcher().CallWithStatus<&SP_StreamExecutor::sync_memcpy_dtoh>(
      fns({}), &device_, destination, static_cast<const SP_DeviceMemoryBase*>(&source), size);
}

Expected<void> Device::SyncMemcpyDtoD(SP_DeviceMemoryBase destination, SP_DeviceMemoryBase source,
                                      uint64_t size) const {
  return dispatcher().CallWithStatus<&SP_StreamExecutor::sync_memcpy_dtod>(
      fns({}), &device_, &destination, static_cast<const SP_DeviceMemoryBase*>(&source), size);
}

}  // namespace sectl::host
