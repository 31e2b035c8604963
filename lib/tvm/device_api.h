// TVM's DeviceAPI (include/tvm/runtime/device_api.h), served by a
// StreamExecutor plugin: what a vendor's TVM backend would do on top of the
// same plugin. The profile tvm-device-api checks the plugin against TVM's
// contract through this adapter; `sectl probe` answers GetAttr with it.
//
// Pointers are the plugin's own `opaque` device addresses; a copy names a
// position as (pointer, byte offset), as TVM's protected CopyDataFromTo does.
// Streams are sectl's; the null stream is a default stream made on first use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "base/error.h"
#include "host/device.h"
#include "host/memory.h"
#include "host/platform.h"
#include "host/stream.h"

namespace sectl::tvm {

// kAllocAlignment and kTempAllocaAlignment in TVM (both 64 since v0.10).
inline constexpr size_t kAllocAlignment = 64;
inline constexpr size_t kTempAllocaAlignment = 64;

// TVM's DeviceAttrKind, values 0-16 (values have only ever been appended).
enum class DeviceAttrKind : int {
  kExist = 0,
  kMaxThreadsPerBlock = 1,
  kWarpSize = 2,
  kMaxSharedMemoryPerBlock = 3,
  kComputeVersion = 4,
  kDeviceName = 5,
  kMaxClockRate = 6,
  kMultiProcessorCount = 7,
  kMaxThreadDimensions = 8,
  kMaxRegistersPerBlock = 9,
  kGcnArch = 10,
  kApiVersion = 11,
  kDriverVersion = 12,
  kL2CacheSizeBytes = 13,
  kTotalGlobalMemory = 14,
  kAvailableGlobalMemory = 15,
  kImagePitchAlignment = 16,
};
inline constexpr int kDeviceAttrKindCount = 17;

// "kExist", ...
std::string_view DeviceAttrName(DeviceAttrKind kind);

// An attribute's value: none (TVM's None: cannot be answered), an integer,
// or a string.
using AttrValue = std::variant<std::monostate, int64_t, std::string>;
std::string DescribeAttrValue(const AttrValue& value);  // "none", "1", "\"cpu\""

// GetAttr on a device that exists: what the StreamExecutor API can answer
// (kExist 1, kDeviceName from hardware_name, the two memory kinds from
// device_memory_usage); None for the rest.
AttrValue DeviceAttribute(const host::Device& device, DeviceAttrKind kind);

using StreamHandle = host::Stream*;  // nullptr: the default stream

class DeviceApi {
 public:
  explicit DeviceApi(host::Platform& platform) : platform_(platform) {}
  ~DeviceApi();
  DeviceApi(const DeviceApi&) = delete;
  DeviceApi& operator=(const DeviceApi&) = delete;

  // kExist is answered for any id, without creating a device; the rest need
  // an existing device.
  Expected<AttrValue> GetAttr(int device_id, DeviceAttrKind kind);

  Expected<void*> AllocDataSpace(int device_id, size_t bytes, size_t alignment);
  Expected<void> FreeDataSpace(int device_id, void* pointer);
  Expected<void*> AllocWorkspace(int device_id, size_t bytes);
  Expected<void> FreeWorkspace(int device_id, void* pointer);

  enum class Side { kHost, kDevice };
  struct Place {
    Side side;
    void* pointer;  // a host address, or a pointer from AllocDataSpace
    size_t offset;
  };
  // Enqueues the copy on `stream`; visible after StreamSync.
  Expected<void> CopyDataFromTo(const Place& from, const Place& to, size_t bytes, int device_id,
                                StreamHandle stream);

  Expected<StreamHandle> CreateStream(int device_id);
  Expected<void> FreeStream(int device_id, StreamHandle stream);
  Expected<void> StreamSync(int device_id, StreamHandle stream);
  // `to` may not go past the work queued so far until `from` has finished
  // its own (create_stream_dependency).
  Expected<void> SyncStreamFromTo(int device_id, StreamHandle from, StreamHandle to);

  // For checks that need the StreamExecutor device underneath.
  Expected<const host::Device*> DeviceOf(int device_id);

 private:
  struct PerDevice {
    std::unique_ptr<host::Device> device;
    std::map<void*, host::DeviceMemory> allocations;  // by opaque
    std::vector<std::unique_ptr<host::Stream>> streams;
    host::Stream* default_stream = nullptr;
  };
  Expected<PerDevice*> Use(int device_id);
  Expected<host::Stream*> StreamOf(PerDevice& device, StreamHandle stream);
  Expected<SP_DeviceMemoryBase> Region(PerDevice& device, void* pointer, size_t offset,
                                       size_t bytes);

  host::Platform& platform_;
  std::map<int, PerDevice> devices_;
};

}  // namespace sectl::tvm
