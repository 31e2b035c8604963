// tvm-ffi's C ABI, as TVM from v0.21 offers its runtime (apache/tvm-ffi
// include/tvm/ffi/c_api.h and include/tvm/ffi/extra/c_env_api.h; apache/tvm
// src/runtime/device_api.cc and src/runtime/tensor.cc), declared here from
// the facts in docs/tvm-runtime-abi.md: the value cell, the type indices,
// the object layouts and the entry points' signatures that sectl calls
// through dlsym. sectl never includes tvm-ffi's headers; a mistake here is
// a mismatch with a real runtime, so every line names what it mirrors.
#pragma once

#include <dlpack/dlpack.h>

#include <cstddef>
#include <cstdint>

namespace sectl::tvm::ffi_abi {

// TVMFFIObjectHandle (c_api.h): a pointer to an object's header.
using ObjectHandle = void*;

// TVMFFIObject (c_api.h): the 24-byte header every heap object starts with.
struct ObjectHeader {
  uint64_t combined_ref_count;  // strong count in the low 32 bits, weak in the high
  int32_t type_index;           // the same index an Any carrying it has
  uint32_t padding;             // __padding
  void (*deleter)(void* self, int flags);
};
static_assert(sizeof(ObjectHeader) == 24, "TVMFFIObject is 24 bytes");

// TVMFFIAny (c_api.h): the 16-byte cell an argument or a result travels in.
struct Any {
  int32_t type_index;
  uint32_t small_str_len;  // union with zero_padding: 0 except for a small string
  union {
    int64_t v_int64;
    double v_float64;
    void* v_ptr;
    const char* v_c_str;
    ObjectHeader* v_obj;
    DLDataType v_dtype;
    DLDevice v_device;
    char v_bytes[8];
    uint64_t v_uint64;
  };
};
static_assert(sizeof(Any) == 16, "TVMFFIAny is 16 bytes");

// TVMFFITypeIndex (c_api.h), the values sectl sends or reads.
enum TypeIndex : int32_t {
  kNone = 0,          // kTVMFFINone
  kInt = 1,           // kTVMFFIInt
  kBool = 2,          // kTVMFFIBool
  kFloat = 3,         // kTVMFFIFloat
  kOpaquePtr = 4,     // kTVMFFIOpaquePtr
  kDataType = 5,      // kTVMFFIDataType
  kDevice = 6,        // kTVMFFIDevice
  kDLTensorPtr = 7,   // kTVMFFIDLTensorPtr
  kRawStr = 8,        // kTVMFFIRawStr
  kByteArrayPtr = 9,  // kTVMFFIByteArrayPtr
  kSmallStr = 11,     // kTVMFFISmallStr: small_str_len bytes of v_bytes
  kSmallBytes = 12,   // kTVMFFISmallBytes
  kFirstObject = 64,  // kTVMFFIStaticObjectBegin: from here on, v_obj
  kStr = 65,          // kTVMFFIStr
  kBytes = 66,        // kTVMFFIBytes
  kError = 67,        // kTVMFFIError
  kFunction = 68,     // kTVMFFIFunction
  kShape = 69,        // kTVMFFIShape
  kTensor = 70,       // kTVMFFITensor
};

// TVMFFIByteArray (c_api.h): what follows the header of a Str or Bytes
// object; not necessarily NUL-terminated.
struct ByteArray {
  const char* data;
  size_t size;
};

// TVMFFIErrorCell (c_api.h): what follows the header of an Error object.
struct ErrorCell {
  ByteArray kind;
  ByteArray message;
  ByteArray backtrace;
  void (*update_backtrace)(ObjectHandle self, const ByteArray* backtrace, int32_t mode);
};

// A Tensor object is the header followed by a DLTensor (c_api.h,
// TVMFFITensorGetDLTensorPtr; container/tensor.h TensorObj : Object, DLTensor).
inline DLTensor* TensorOf(ObjectHandle tensor) {
  return reinterpret_cast<DLTensor*>(static_cast<char*>(tensor) + sizeof(ObjectHeader));
}
// TVMFFIErrorGetCellPtr (c_api.h).
inline const ErrorCell* ErrorCellOf(ObjectHandle error) {
  return reinterpret_cast<const ErrorCell*>(static_cast<char*>(error) + sizeof(ObjectHeader));
}
// TVMFFIBytesGetByteArrayPtr (c_api.h), for Str and Bytes objects.
inline const ByteArray* ByteArrayOf(ObjectHandle text) {
  return reinterpret_cast<const ByteArray*>(static_cast<char*>(text) + sizeof(ObjectHeader));
}

// The entry points (c_api.h, c_env_api.h, tvm's c_backend_api.h). Every
// int-returning one answers 0 on success; TVMFFIFunctionCall answers -1
// with an Error raised in the runtime's thread-local slot (taken with
// TVMFFIErrorMoveFromRaised) or -2 for an error kept by a frontend.
//
// TVMFFIFunctionGetGlobal: *out is null when no such global; otherwise an
// owned strong reference (src/ffi/function.cc copies the Function out).
using FunctionGetGlobal = int (*)(const ByteArray* name, ObjectHandle* out);
// TVMFFIFunctionCall: the caller sets result->type_index = kNone first;
// an object in *result is owned by the caller; args are borrowed.
using FunctionCall = int (*)(ObjectHandle func, Any* args, int32_t num_args, Any* result);
// TVMFFIErrorMoveFromRaised: moves the raised Error out (owned; may be null).
using ErrorMoveFromRaised = void (*)(ObjectHandle* result);
// TVMFFIObjectIncRef / TVMFFIObjectDecRef.
using ObjectIncRef = int (*)(ObjectHandle obj);
using ObjectDecRef = int (*)(ObjectHandle obj);
// TVMFFIEnvSetStream / TVMFFIEnvGetStream (c_env_api.h).
using EnvSetStream = int (*)(int32_t device_type, int32_t device_id, void* stream,
                             void** opt_out_original_stream);
using EnvGetStream = void* (*)(int32_t device_type, int32_t device_id);
// TVMBackendAllocWorkspace / TVMBackendFreeWorkspace: still plain C
// functions of libtvm_runtime.so (apache/tvm src/runtime/device_api.cc);
// null on error.
using BackendAllocWorkspace = void* (*)(int device_type, int device_id, uint64_t nbytes,
                                        int dtype_code_hint, int dtype_bits_hint);
using BackendFreeWorkspace = int (*)(int device_type, int device_id, void* ptr);

// The globals sectl calls (name: arguments -> result, as registered).
// apache/tvm src/runtime/device_api.cc:
//   runtime.GetDeviceAttr: (Int type, Int id, Int kind) -> None|Int|Bool|Float|Str
//   runtime.Device_StreamCreate: (Device) -> Int (the stream, 0 for none)
//   runtime.Device_StreamFree / Device_SetStream / Device_StreamSync: (Device, Int stream)
//   runtime.Device_StreamSyncFromTo: (Device, Int src, Int dst)
inline constexpr const char* kGetDeviceAttr = "runtime.GetDeviceAttr";
inline constexpr const char* kStreamCreate = "runtime.Device_StreamCreate";
inline constexpr const char* kStreamFree = "runtime.Device_StreamFree";
inline constexpr const char* kSetStream = "runtime.Device_SetStream";
inline constexpr const char* kStreamSync = "runtime.Device_StreamSync";
inline constexpr const char* kStreamSyncFromTo = "runtime.Device_StreamSyncFromTo";
// apache/tvm-ffi src/ffi/tensor.cc: ffi.Shape: (Int, ...) -> Shape object.
inline constexpr const char* kMakeShape = "ffi.Shape";
// apache/tvm src/runtime/tensor.cc (the NDArray-era names, before TVM's
// NDArray became Tensor, are the fallbacks):
//   runtime.TVMTensorAllocWithScope: (Shape, DataType, Device, Optional<String>) -> Tensor
//   runtime.TVMTensorCopyFromTo: (DLTensorPtr from, DLTensorPtr to), on the null stream
inline constexpr const char* kTensorAlloc = "runtime.TVMTensorAllocWithScope";
inline constexpr const char* kTensorAllocBefore = "runtime.TVMArrayAllocWithScope";
inline constexpr const char* kTensorCopy = "runtime.TVMTensorCopyFromTo";
inline constexpr const char* kTensorCopyBefore = "runtime.TVMArrayCopyFromTo";

// TVM's kAllocAlignment (include/tvm/runtime/device_api.h): the least
// alignment TVM asks of AllocDataSpace; GetDataAlignment(dtype) =
// max(kAllocAlignment, bits / 8 * lanes) (src/runtime/device_api.cc).
inline constexpr size_t kAllocAlignment = 64;

}  // namespace sectl::tvm::ffi_abi
