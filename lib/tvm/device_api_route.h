// A route to one device type's TVM DeviceAPI: what the tvm-device-api
// checks call, whichever way the DeviceAPI is reached. There are two routes:
//
//   - over a StreamExecutor plugin, through the adapter in device_api.h
//     (what a vendor's TVM backend over the same plugin would do);
//   - over a TVM runtime library up to v0.20, through the C entry points it
//     exports (TVMDeviceAllocDataSpace, TVMStreamCreate, ...;
//     c_runtime_route.h), never through DeviceAPI's C++ vtable;
//   - over a TVM runtime library from v0.21 on, through tvm-ffi's global
//     functions (runtime.Device_StreamCreate, runtime.TVMTensorCopyFromTo,
//     ...; ffi_runtime_route.h).
//
// Every method takes the device id; the device type is the route's. Errors
// carry the runtime's own message (TVMGetLastError on the C route, the
// raised Error's kind and message on the tvm-ffi route).
#pragma once

#include <dlpack/dlpack.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "tvm/device_api.h"

namespace sectl::tvm {

// TVMStreamHandle: an opaque stream; nullptr is the device's default stream.
using RouteStream = void*;

// A position for CopyDataFromTo: host memory or a pointer from
// AllocDataSpace, plus a byte offset (DLTensor::byte_offset on the C route).
enum class Side { kHost, kDevice };
struct Place {
  Side side;
  void* pointer;
  size_t offset;
};

class DeviceApiRoute {
 public:
  virtual ~DeviceApiRoute() = default;

  // "StreamExecutor plugin through sectl's DeviceAPI adapter", ...
  virtual std::string Describe() const = 0;
  // The DLDeviceType the route serves.
  virtual int device_type() const = 0;
  // Whether the route reaches TVM's own runtime (the C entry points) rather
  // than sectl's adapter: checks that judge TVM-only rules run there.
  virtual bool IsTvmRuntime() const = 0;

  // runtime.GetDeviceAttr; kExist is answered for any id.
  virtual Expected<AttrValue> GetAttr(int device_id, DeviceAttrKind kind) = 0;

  virtual Expected<void*> AllocDataSpace(int device_id, size_t bytes, size_t alignment) = 0;
  virtual Expected<void> FreeDataSpace(int device_id, void* pointer) = 0;
  // TVMBackendAllocWorkspace / TVMBackendFreeWorkspace.
  virtual Expected<void*> AllocWorkspace(int device_id, size_t bytes) = 0;
  virtual Expected<void> FreeWorkspace(int device_id, void* pointer) = 0;

  // Enqueues `bytes` from `from` to `to` on `stream`; visible after
  // StreamSync. At least one side is the device.
  virtual Expected<void> CopyDataFromTo(const Place& from, const Place& to, size_t bytes,
                                        int device_id, RouteStream stream) = 0;

  virtual Expected<RouteStream> CreateStream(int device_id) = 0;
  virtual Expected<void> FreeStream(int device_id, RouteStream stream) = 0;
  // TVMSetStream: the stream later generated kernels run on.
  virtual Expected<void> SetStream(int device_id, RouteStream stream) = 0;
  virtual Expected<void> StreamSync(int device_id, RouteStream stream) = 0;
  // `to` may not go past the work queued so far until `from` has finished.
  virtual Expected<void> SyncStreamFromTo(int device_id, RouteStream from, RouteStream to) = 0;

  // Keeps `stream` busy for a while (tens of milliseconds), so that work
  // queued after it on the stream is still pending: for ordering checks.
  virtual Expected<void> HoldUpStream(int device_id, RouteStream stream) = 0;

  // Why CopyDataFromTo and HoldUpStream take only the null stream on this
  // route (asked for another, they fail without calling the runtime), or
  // nullopt where they take any stream. Checks that need work queued on a
  // chosen stream skip with this reason.
  virtual std::optional<std::string> CopyStreamLimit() const { return std::nullopt; }

  // What the runtime said about its last failed call (TVMGetLastError's
  // text, possibly empty), or nullopt where the route has no such channel
  // (the adapter's errors are sectl's own Error messages).
  virtual std::optional<std::string> LastRuntimeError() const { return std::nullopt; }

  // A copy between a `from_bytes` tensor and a `to_bytes` one, on the null
  // stream: TVM refuses unequal sizes, and the error contract check
  // (checks/tvm_error_contract_checks.cc) asks how. kUnimplemented, calling
  // nothing, on a route that cannot express it.
  virtual Expected<void> CopyUnequalSizes(const Place& /*from*/, size_t /*from_bytes*/,
                                          const Place& /*to*/, size_t /*to_bytes*/,
                                          int /*device_id*/, RouteStream /*stream*/) {
    return Fail(ErrorCode::kUnimplemented, "this route copies tensors of one size only");
  }
};

// The device types TVM names (DLDeviceType2Str and DLPack's enum):
// "cpu" -> 1, "cuda" -> 2, ... An unknown name is nullopt.
std::optional<int> DeviceTypeFromName(std::string_view name);
// The name of a device type, or its number as text.
std::string DeviceTypeName(int device_type);
// Every device type TVM names, in numeric order.
const std::vector<int>& NamedDeviceTypes();
// --tvm-device-type: a name above or a number from 1 to 127 (128 and up
// are TVM's RPC sessions). kInvalidArgument names what is accepted.
Expected<int> ParseDeviceType(std::string_view text);

}  // namespace sectl::tvm
