// TVM's rules for tensors, the same for both device cores (device_core.cc
// and cpu_backend_core.cc): a tensor's byte size, the alignment of a data
// space made for a shape, and what a copy between two tensors demands
// before any device sees it (TVM's DeviceAPI::CopyDataFromTo and
// GetDataSize, src/runtime/device_api.cc).
#include <algorithm>
#include <string>

#include "device_core.h"

namespace reference_runtime {
namespace {

constexpr size_t kAllocAlignment = 64;  // TVM's kAllocAlignment

bool Contiguous(const DLTensor& tensor) {
  if (tensor.strides == nullptr) return true;
  int64_t expected = 1;
  for (int i = tensor.ndim - 1; i >= 0; --i) {
    if (tensor.shape[i] != 1 && tensor.strides[i] != expected) return false;
    expected *= tensor.shape[i];
  }
  return true;
}

}  // namespace

bool TensorBytes(const DLTensor& tensor, size_t* bytes) {
  uint64_t elements = 1;
  for (int i = 0; i < tensor.ndim; ++i) {
    if (tensor.shape[i] < 0) return false;
    if (__builtin_mul_overflow(elements, static_cast<uint64_t>(tensor.shape[i]), &elements)) {
      return false;
    }
  }
  const uint64_t bits_per_element = uint64_t{tensor.dtype.bits} * tensor.dtype.lanes;
  uint64_t bits = 0;
  if (__builtin_mul_overflow(elements, bits_per_element, &bits) || bits > UINT64_MAX - 7) {
    return false;
  }
  *bytes = (bits + 7) / 8;
  return true;
}

Failure AllocDataSpaceForShape(DLDevice device, int ndim, const int64_t* shape, DLDataType dtype,
                               std::string_view memory_scope, void** out) {
  if (!memory_scope.empty() && memory_scope != "global") {
    return "AllocDataSpace: unknown memory scope \"" + std::string(memory_scope) + "\"";
  }
  DLTensor layout{};
  layout.ndim = ndim;
  layout.shape = const_cast<int64_t*>(shape);
  layout.dtype = dtype;
  size_t bytes = 0;
  if (!TensorBytes(layout, &bytes)) return "AllocDataSpace: the tensor's byte size overflows";
  // TVM's GetDataAlignment.
  const size_t alignment = std::max<size_t>(kAllocAlignment, size_t{dtype.bits} / 8 * dtype.lanes);
  return AllocDataSpace(device, bytes, alignment, out);
}

Failure CheckCopy(const DLTensor& from, const DLTensor& to, size_t* bytes, DLDevice* device) {
  size_t target_bytes = 0;
  if (!TensorBytes(from, bytes) || !TensorBytes(to, &target_bytes)) {
    return "CopyDataFromTo: a tensor's byte size overflows";
  }
  if (*bytes != target_bytes) {
    return "CopyDataFromTo: the tensors' byte sizes differ (" + std::to_string(*bytes) + " and " +
           std::to_string(target_bytes) + ")";
  }
  if (!Contiguous(from) || !Contiguous(to)) {
    return "CopyDataFromTo: only contiguous tensors can be copied";
  }
  // As TVM does: the device of the side that is not the CPU, else the target's.
  *device = from.device.device_type != kDLCPU ? from.device : to.device;
  for (const DLTensor* side : {&from, &to}) {
    if (side->device.device_type != kDLCPU && side->device.device_type != device->device_type) {
      return "CopyDataFromTo: copies between two device types need the CPU on one side";
    }
  }
  return {};
}

}  // namespace reference_runtime
