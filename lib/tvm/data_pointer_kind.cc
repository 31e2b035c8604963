// Which device types' data pointers are addresses: see data_pointer_kind.h
// and docs/tvm-profiles.md for the table and where it comes from.
#include "tvm/data_pointer_kind.h"

#include <dlpack/dlpack.h>
#include <fmt/format.h>

#include "tvm/device_api_route.h"

namespace sectl::tvm {

DataPointerKind DataPointerKindOf(int device_type) {
  switch (device_type) {
    // CPUDeviceAPI: `bool SupportsDevicePointerArithmeticsOnHost() final
    // { return true; }` (src/runtime/cpu_device_api.cc:124, v0.20.0 and
    // v0.26.0).
    case kDLCPU:
    // CUDADeviceAPI overrides it to true
    // (src/runtime/cuda/cuda_device_api.cc:267 at v0.20.0,
    // src/backend/cuda/runtime/cuda_device_api.cc:285 at v0.26.0), and
    // "device_api.cuda_host" hands out that same CUDADeviceAPI.
    case kDLCUDA:
    case kDLCUDAHost:
      return DataPointerKind::kAddress;
    // Everything else keeps DeviceAPI's default, false: OpenCL (4, a
    // cl::BufferDescriptor*), Vulkan (7, a VulkanBuffer*), Metal (8, an
    // id<MTLBuffer>), WebGPU (15, a buffer index from the JavaScript side),
    // Hexagon (16, a HexagonBuffer's allocation, or its table of allocations
    // for 2-d scopes), and ROCm and rocm_host (10, 11) too: ROCMDeviceAPI's
    // hipMalloc memory is addressable, but TVM does not declare it, so the
    // VM's vm.builtin.ensure_zero_offset copies a tensor there rather than
    // offset its pointer (src/runtime/vm/builtin.cc:719 at v0.26.0), as on
    // any handle. ext_dev (12; VTA's buffers were vta::DataBuffer*),
    // cuda_managed (13), vpi, oneapi, maia, trn and unnamed types have no
    // backend in TVM that says otherwise.
    default:
      return DataPointerKind::kOpaqueHandle;
  }
}

DataPointerKind DataPointerKindOn(const DeviceApiRoute& route) {
  return route.IsTvmRuntime() ? DataPointerKindOf(route.device_type()) : DataPointerKind::kAddress;
}

std::string DescribeDataPointer(const DeviceApiRoute& route) {
  const std::string type = DeviceTypeName(route.device_type());
  if (!route.IsTvmRuntime()) {
    return "a device address (a StreamExecutor plugin's SP_DeviceMemoryBase::opaque, which "
           "TensorFlow offsets on the host)";
  }
  if (DataPointerKindOn(route) == DataPointerKind::kAddress) {
    return fmt::format(
        "a device address (TVM's {} backend overrides SupportsDevicePointerArithmeticsOnHost "
        "to true)",
        type);
  }
  return fmt::format(
      "an opaque handle (TVM's {} backend keeps DeviceAPI's SupportsDevicePointerArithmeticsOnHost "
      "default, false: the pointer is a descriptor only the backend interprets)",
      type);
}

}  // namespace sectl::tvm
