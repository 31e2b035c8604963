#include "tvm/device_api.h"

#include <fmt/format.h>

#include <array>

namespace sectl::tvm {

std::string_view DeviceAttrName(DeviceAttrKind kind) {
  static constexpr std::array<std::string_view, kDeviceAttrKindCount> kNames = {
      "kExist",
      "kMaxThreadsPerBlock",
      "kWarpSize",
      "kMaxSharedMemoryPerBlock",
      "kComputeVersion",
      "kDeviceName",
      "kMaxClockRate",
      "kMultiProcessorCount",
      "kMaxThreadDimensions",
      "kMaxRegistersPerBlock",
      "kGcnArch",
      "kApiVersion",
      "kDriverVersion",
      "kL2CacheSizeBytes",
      "kTotalGlobalMemory",
      "kAvailableGlobalMemory",
      "kImagePitchAlignment"};
  const auto index = static_cast<size_t>(kind);
  return index < kNames.size() ? kNames[index] : "unknown";
}

std::string DescribeAttrValue(const AttrValue& value) {
  if (const auto* number = std::get_if<int64_t>(&value)) return std::to_string(*number);
  if (const auto* text = std::get_if<std::string>(&value)) return fmt::format("\"{}\"", *text);
  return "none";
}

AttrValue DeviceAttribute(const host::Device& device, DeviceAttrKind kind) {
  switch (kind) {
    case DeviceAttrKind::kExist:
      return AttrValue{int64_t{1}};
    case DeviceAttrKind::kDeviceName:
      if (device.hardware_name().empty()) return AttrValue{};
      return AttrValue{device.hardware_name()};
    case DeviceAttrKind::kTotalGlobalMemory:
    case DeviceAttrKind::kAvailableGlobalMemory: {
      auto usage = device.QueryMemoryUsage();
      if (!usage) return AttrValue{};  // TVM's None: the plugin cannot say
      return AttrValue{kind == DeviceAttrKind::kTotalGlobalMemory ? usage->total_bytes
                                                                  : usage->free_bytes};
    }
    default:
      return AttrValue{};  // nothing in the StreamExecutor API answers it
  }
}

DeviceApi::~DeviceApi() {
  // Streams, then memory, then the device: TensorFlow's order.
  for (auto& [id, device] : devices_) {
    device.streams.clear();
    device.allocations.clear();
  }
}

Expected<DeviceApi::PerDevice*> DeviceApi::Use(int device_id) {
  if (auto found = devices_.find(device_id); found != devices_.end()) return &found->second;
  auto device = platform_.CreateDevice(device_id);
  if (!device) return tl::unexpected(device.error());
  PerDevice& entry = devices_[device_id];
  entry.device = std::move(*device);
  return &entry;
}

Expected<const host::Device*> DeviceApi::DeviceOf(int device_id) {
  auto device = Use(device_id);
  if (!device) return tl::unexpected(device.error());
  return (*device)->device.get();
}

Expected<AttrValue> DeviceApi::GetAttr(int device_id, DeviceAttrKind kind) {
  if (kind == DeviceAttrKind::kExist) {
    // As TVM's CUDA backend does: a bounds check against the device count.
    auto count = platform_.DeviceCount();
    if (!count) return tl::unexpected(count.error());
    return AttrValue{int64_t{device_id >= 0 && device_id < *count ? 1 : 0}};
  }
  auto device = Use(device_id);
  if (!device) return tl::unexpected(device.error());
  return DeviceAttribute(*(*device)->device, kind);
}

Expected<void*> DeviceApi::AllocDataSpace(int device_id, size_t bytes, size_t /*alignment*/) {
  // StreamExecutor's allocate takes no alignment: the plugin's address is
  // returned as it is, and the checks judge it against what TVM asked.
  auto device = Use(device_id);
  if (!device) return tl::unexpected(device.error());
  auto memory = (*device)->device->Allocate(bytes);
  if (!memory) return tl::unexpected(memory.error());
  void* pointer = memory->opaque();
  if (pointer == nullptr) return pointer;  // a zero-size request answered with null
  (*device)->allocations[pointer] = std::move(*memory);
  return pointer;
}

Expected<void> DeviceApi::FreeDataSpace(int device_id, void* pointer) {
  auto device = Use(device_id);
  if (!device) return tl::unexpected(device.error());
  if (pointer == nullptr) return {};
  if ((*device)->allocations.erase(pointer) == 0) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("FreeDataSpace({}): not allocated on device {}", pointer, device_id));
  }
  return {};
}

Expected<void*> DeviceApi::AllocWorkspace(int device_id, size_t bytes) {
  // TVM's default: AllocDataSpace with kTempAllocaAlignment.
  return AllocDataSpace(device_id, bytes, kTempAllocaAlignment);
}

Expected<void> DeviceApi::FreeWorkspace(int device_id, void* pointer) {
  return FreeDataSpace(device_id, pointer);
}

Expected<host::Stream*> DeviceApi::StreamOf(PerDevice& device, StreamHandle stream) {
  if (stream != nullptr) return stream;
  if (device.default_stream == nullptr) {
    auto created = device.device->CreateStream();
    if (!created) return tl::unexpected(created.error());
    device.default_stream = created->get();
    device.streams.push_back(std::move(*created));
  }
  return device.default_stream;
}

Expected<SP_DeviceMemoryBase> DeviceApi::Region(PerDevice& device, void* pointer, size_t offset,
                                                size_t bytes) {
  auto found = device.allocations.find(pointer);
  if (found == device.allocations.end()) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("{} is not a pointer from AllocDataSpace", pointer));
  }
  if (offset + bytes > found->second.size()) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("bytes [{}, {}) lie outside the {}-byte allocation", offset,
                            offset + bytes, found->second.size()));
  }
  return found->second.Slice(offset, bytes);
}

Expected<void> DeviceApi::CopyDataFromTo(const Place& from, const Place& to, size_t bytes,
                                         int device_id, StreamHandle stream) {
  auto device = Use(device_id);
  if (!device) return tl::unexpected(device.error());
  auto queue = StreamOf(**device, stream);
  if (!queue) return tl::unexpected(queue.error());
  const bool from_device = from.side == Side::kDevice;
  const bool to_device = to.side == Side::kDevice;
  if (!from_device && !to_device) {
    return Fail(ErrorCode::kInvalidArgument, "a host-to-host copy is not the device's to make");
  }
  if (from_device && to_device) {
    auto source = Region(**device, from.pointer, from.offset, bytes);
    auto destination = Region(**device, to.pointer, to.offset, bytes);
    if (!source) return tl::unexpected(source.error());
    if (!destination) return tl::unexpected(destination.error());
    return (*queue)->MemcpyDtoD(*destination, *source, bytes);
  }
  if (to_device) {
    auto destination = Region(**device, to.pointer, to.offset, bytes);
    if (!destination) return tl::unexpected(destination.error());
    return (*queue)->MemcpyHtoD(*destination, static_cast<const char*>(from.pointer) + from.offset,
                                bytes);
  }
  auto source = Region(**device, from.pointer, from.offset, bytes);
  if (!source) return tl::unexpected(source.error());
  return (*queue)->MemcpyDtoH(static_cast<char*>(to.pointer) + to.offset, *source, bytes);
}

Expected<StreamHandle> DeviceApi::CreateStream(int device_id) {
  auto device = Use(device_id);
  if (!device) return tl::unexpected(device.error());
  auto created = (*device)->device->CreateStream();
  if (!created) return tl::unexpected(created.error());
  StreamHandle handle = created->get();
  (*device)->streams.push_back(std::move(*created));
  return handle;
}

Expected<void> DeviceApi::FreeStream(int device_id, StreamHandle stream) {
  auto device = Use(device_id);
  if (!device) return tl::unexpected(device.error());
  auto& streams = (*device)->streams;
  for (auto it = streams.begin(); it != streams.end(); ++it) {
    if (it->get() == stream) {
      if ((*device)->default_stream == stream) (*device)->default_stream = nullptr;
      streams.erase(it);
      return {};
    }
  }
  return Fail(ErrorCode::kInvalidArgument, "FreeStream: not a stream of this device");
}

Expected<void> DeviceApi::StreamSync(int device_id, StreamHandle stream) {
  auto device = Use(device_id);
  if (!device) return tl::unexpected(device.error());
  auto queue = StreamOf(**device, stream);
  if (!queue) return tl::unexpected(queue.error());
  return (*queue)->BlockHostUntilDone();
}

Expected<void> DeviceApi::SyncStreamFromTo(int device_id, StreamHandle from, StreamHandle to) {
  auto device = Use(device_id);
  if (!device) return tl::unexpected(device.error());
  auto source = StreamOf(**device, from);
  auto destination = StreamOf(**device, to);
  if (!source) return tl::unexpected(source.error());
  if (!destination) return tl::unexpected(destination.error());
  if (*source == *destination) return {};
  return (*destination)->WaitFor(**source);
}

}  // namespace sectl::tvm
