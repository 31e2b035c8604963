// The global functions of sectl's reference tvm-ffi runtime: what TVM from
// v0.21 registers for its DeviceAPI (apache/tvm src/runtime/device_api.cc,
// src/runtime/tensor.cc) and tvm-ffi's ffi.Shape (src/ffi/tensor.cc), with
// their names, parameter types and results, over the device of
// device_core.h. A device failure raises an InternalError, as TVM's
// ICHECK/LOG(FATAL) do.
#include <cstdint>
#include <string>
#include <vector>

#include "device_core.h"
#include "faults.h"
#include "ffi_arguments.h"
#include "ffi_objects.h"

namespace reference_runtime::ffi {
namespace {

// Throws the core's failure, if any, as TVM's InternalError.
void Require(const Failure& failure) {
  if (!failure.empty()) throw Raised{"InternalError", failure};
}

// A stream travels as an int, which TVM's globals cast back (device_api.cc).
void* StreamHandle(int64_t stream) {
  // NOLINTNEXTLINE(performance-no-int-to-ptr): the cast is the ABI's
  return reinterpret_cast<void*>(static_cast<intptr_t>(stream));
}

// runtime.GetDeviceAttr: packed (int device_type, int device_id, int kind).
void GetDeviceAttrBody(const Arguments& arguments, Any* result) {
  arguments.ExpectCount(3);
  Attribute answer;
  Require(GetDeviceAttr(static_cast<int>(arguments.Int(0)), static_cast<int>(arguments.Int(1)),
                        static_cast<int>(arguments.Int(2)), &answer));
  switch (answer.kind) {
    case Attribute::Kind::kInteger:
      SetInt(result, answer.number);
      return;
    case Attribute::Kind::kText:
      SetString(result, answer.text);
      return;
    case Attribute::Kind::kNone:
      SetNone(result);  // tvm-ffi leaves the result None when GetAttr sets nothing
      return;
  }
}

void StreamCreateBody(const Arguments& arguments, Any* result) {
  arguments.ExpectCount(1);
  const DLDevice device = arguments.Device(0);
  void* stream = nullptr;
  Require(CreateStream(device.device_type, device.device_id, &stream));
  SetInt(result, static_cast<int64_t>(reinterpret_cast<intptr_t>(stream)));
}

void StreamFreeBody(const Arguments& arguments, Any* result) {
  arguments.ExpectCount(2);
  const DLDevice device = arguments.Device(0);
  Require(FreeStream(device.device_type, device.device_id, StreamHandle(arguments.Int(1))));
  SetNone(result);
}

// DeviceAPI::SetStream, whose default records the stream with tvm-ffi's
// TVMFFIEnvSetStream; this runtime checks the stream first.
void SetStreamBody(const Arguments& arguments, Any* result) {
  arguments.ExpectCount(2);
  const DLDevice device = arguments.Device(0);
  Require(SetStream(device.device_type, device.device_id, StreamHandle(arguments.Int(1))));
  SetNone(result);
}

void StreamSyncBody(const Arguments& arguments, Any* result) {
  arguments.ExpectCount(2);
  const DLDevice device = arguments.Device(0);
  Require(Synchronize(device.device_type, device.device_id, StreamHandle(arguments.Int(1))));
  SetNone(result);
}

void StreamSyncFromToBody(const Arguments& arguments, Any* result) {
  arguments.ExpectCount(3);
  const DLDevice device = arguments.Device(0);
  Require(SyncStreamFromTo(device.device_type, device.device_id, StreamHandle(arguments.Int(1)),
                           StreamHandle(arguments.Int(2))));
  SetNone(result);
}

// runtime.TVMSetStream (int device_type, int device_id, void* stream).
void TvmSetStreamBody(const Arguments& arguments, Any* result) {
  arguments.ExpectCount(3);
  Require(SetStream(static_cast<int>(arguments.Int(0)), static_cast<int>(arguments.Int(1)),
                    arguments.Pointer(2)));
  SetNone(result);
}

// ffi.Shape: packed, any number of ints.
void ShapeBody(const Arguments& arguments, Any* result) {
  std::vector<int64_t> dimensions;
  for (int32_t i = 0; i < arguments.size(); ++i) {
    const int32_t type_index = arguments.TypeIndexAt(i);
    if (type_index != kInt && type_index != kBool) {
      throw Raised{"ValueError", "Expect shape to take list of int arguments"};
    }
    dimensions.push_back(arguments.Int(i));
  }
  SetObject(result, MakeShape(std::move(dimensions)));
}

// TVM's Tensor::Empty (ffi::Shape, DLDataType, Device, Optional<String>
// mem_scope): the data space from AllocDataSpace for the shape, owned by the
// Tensor.
void TensorAllocWithScopeBody(const Arguments& arguments, Any* result) {
  arguments.ExpectCount(4);
  const ShapeCell& cell = arguments.Shape(0);
  const DLDataType dtype = arguments.DataType(1);
  const DLDevice device = arguments.Device(2);
  const std::string memory_scope = arguments.OptionalString(3).value_or("");
  std::vector<int64_t> shape(cell.data, cell.data + cell.size);
  void* data = nullptr;
  const Failure failure = AllocDataSpaceForShape(device, static_cast<int>(shape.size()),
                                                 shape.data(), dtype, memory_scope, &data);
#ifdef FAULT_ERROR_WITHOUT_MESSAGE
  // The failure is raised, but says nothing.
  if (!failure.empty()) throw Raised{"InternalError", ""};
#endif
  Require(failure);
  SetObject(result, MakeTensor(data, device, std::move(shape), dtype));
}

// TVM's Tensor::CopyFromTo(from, to) with its default null stream.
void TensorCopyFromToBody(const Arguments& arguments, Any* result) {
  arguments.ExpectCount(2);
  Require(CopyDataFromTo(*arguments.Tensor(0), *arguments.Tensor(1), nullptr));
  SetNone(result);
}

// TVM's TensorCopyFromBytes / Tensor::CopyToBytes (DLTensor*, void*,
// size_t): a copy between the tensor and a host buffer of exactly its
// size, then StreamSync on the null stream.
DLTensor HostSide(const DLTensor& tensor, void* data) {
  DLTensor host = tensor;
  host.data = data;
  host.device = {kDLCPU, 0};
  host.strides = nullptr;
  host.byte_offset = 0;
  return host;
}

void CheckHostBytes(const DLTensor& tensor, int64_t bytes) {
  size_t size = 0;
  if (!TensorBytes(tensor, &size) || bytes < 0 || size != static_cast<uint64_t>(bytes)) {
    throw Raised{"InternalError", "TensorCopyFromBytes: size mismatch"};
  }
}

void TensorCopyFromBytesBody(const Arguments& arguments, Any* result) {
  arguments.ExpectCount(3);
  DLTensor* tensor = arguments.Tensor(0);
  CheckHostBytes(*tensor, arguments.Int(2));
  Require(CopyDataFromTo(HostSide(*tensor, arguments.Pointer(1)), *tensor, nullptr));
  Require(Synchronize(tensor->device.device_type, tensor->device.device_id, nullptr));
  SetNone(result);
}

void TensorCopyToBytesBody(const Arguments& arguments, Any* result) {
  arguments.ExpectCount(3);
  DLTensor* tensor = arguments.Tensor(0);
  CheckHostBytes(*tensor, arguments.Int(2));
  Require(CopyDataFromTo(*tensor, HostSide(*tensor, arguments.Pointer(1)), nullptr));
  Require(Synchronize(tensor->device.device_type, tensor->device.device_id, nullptr));
  SetNone(result);
}

}  // namespace

const std::vector<GlobalDefinition>& GlobalDefinitions() {
  static const std::vector<GlobalDefinition> definitions = {
      {"runtime.GetDeviceAttr", "(0: int, 1: int, 2: int) -> Any", &GetDeviceAttrBody},
      {"runtime.Device_StreamCreate", "(0: Device) -> int", &StreamCreateBody},
      {"runtime.Device_StreamFree", "(0: Device, 1: int) -> void", &StreamFreeBody},
      {"runtime.Device_SetStream", "(0: Device, 1: int) -> void", &SetStreamBody},
      {"runtime.Device_StreamSync", "(0: Device, 1: int) -> void", &StreamSyncBody},
      {"runtime.Device_StreamSyncFromTo", "(0: Device, 1: int, 2: int) -> void",
       &StreamSyncFromToBody},
      {"runtime.TVMSetStream", "(0: int, 1: int, 2: void*) -> void", &TvmSetStreamBody},
      {"ffi.Shape", "(*args: int) -> ffi.Shape", &ShapeBody},
      {"runtime.TVMTensorAllocWithScope",
       "(0: ffi.Shape, 1: DataType, 2: Device, 3: Optional<ffi.String>) -> ffi.Tensor",
       &TensorAllocWithScopeBody},
      {"runtime.TVMTensorCopyFromTo", "(0: DLTensor*, 1: DLTensor*) -> void",
       &TensorCopyFromToBody},
      {"runtime.TVMTensorCopyFromBytes", "(0: DLTensor*, 1: void*, 2: int) -> void",
       &TensorCopyFromBytesBody},
      {"runtime.TVMTensorCopyToBytes", "(0: DLTensor*, 1: void*, 2: int) -> void",
       &TensorCopyToBytesBody},
  };
  return definitions;
}

}  // namespace reference_runtime::ffi
