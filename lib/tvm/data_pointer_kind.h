// What AllocDataSpace's pointer is on a device type, as TVM defines it:
// a device address the host may do arithmetic on, or an opaque handle only
// the backend can interpret. TVM says so per backend through
// DeviceAPI::SupportsDevicePointerArithmeticsOnHost(), whose default is
// false (include/tvm/runtime/device_api.h:245 at v0.20.0, :293 at v0.26.0);
// DLPack's DLTensor::data comment calls the pointer opaque on such devices
// ("cl_mem handle in OpenCL"). On a handle device, alignment is no property
// of the pointer, and two buffers are told apart only by their contents:
// the tvm-device-api checks judge memory accordingly (docs/tvm-profiles.md,
// "Device addresses and opaque handles").
#pragma once

#include <string>

namespace sectl::tvm {

class DeviceApiRoute;

enum class DataPointerKind {
  kAddress,       // host-side pointer arithmetic is valid: alignment and ranges are real
  kOpaqueHandle,  // a descriptor (cl::BufferDescriptor*, VulkanBuffer*, ...)
};

// TVM's answer for the backend serving `device_type` (a DLDeviceType):
// kAddress only where that backend overrides
// SupportsDevicePointerArithmeticsOnHost to true. Any other type, named or
// not, is a handle, as TVM's default is.
DataPointerKind DataPointerKindOf(int device_type);

// The kind for a route: a TVM runtime's is TVM's answer for its device
// type; the adapter over a StreamExecutor plugin hands out the plugin's own
// SP_DeviceMemoryBase::opaque, which TensorFlow offsets on the host
// (DeviceMemoryBase::GetByteSlice), so it is an address whatever the type.
DataPointerKind DataPointerKindOn(const DeviceApiRoute& route);

// "a device address (TVM's cpu backend overrides
// SupportsDevicePointerArithmeticsOnHost to true)", "an opaque handle (...)":
// for details and messages.
std::string DescribeDataPointer(const DeviceApiRoute& route);

}  // namespace sectl::tvm
