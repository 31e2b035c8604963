// TVM's C runtime API up to v0.20 (include/tvm/runtime/c_runtime_api.h and
// c_backend_api.h at tag v0.20.0), declared here from the facts in
// docs/tvm-runtime-abi.md: the value union, the type codes and the entry
// points' signatures that sectl calls through dlsym. sectl never includes
// TVM's headers; a mistake here is a mismatch with a real runtime, so every
// line names what it mirrors.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>

namespace sectl::tvm::c_abi {

// TVMValue: the union a TVMFuncCall argument or result travels in.
union Value {
  int64_t v_int64;
  double v_float64;
  void* v_handle;
  const char* v_str;
  DLDataType v_type;
  DLDevice v_device;
};
static_assert(sizeof(Value) == 8, "TVMValue is 8 bytes on every platform TVM supports");

// TVMArgTypeCode (v0.20): the type code beside each Value.
enum TypeCode : int {
  kArgInt = 0,    // kDLInt
  kArgFloat = 2,  // kDLFloat
  kOpaqueHandle = 3,
  kNullptr = 4,
  kDataType = 5,
  kDevice = 6,
  kDLTensorHandle = 7,
  kObjectHandle = 8,
  kModuleHandle = 9,
  kPackedFuncHandle = 10,
  kStr = 11,
  kBytes = 12,
  kNDArrayHandle = 13,
  kObjectRValueRefArg = 14,
  kArgBool = 15,
};

using StreamHandle = void*;
using FunctionHandle = void*;

// The entry points, as c_runtime_api.h and c_backend_api.h declare them.
// Every int-returning one answers 0 on success and nonzero (-1) on failure,
// with the message in TVMGetLastError.
using DeviceAllocDataSpace = int (*)(DLDevice dev, size_t nbytes, size_t alignment,
                                     DLDataType type_hint, void** out_data);
using DeviceAllocDataSpaceWithScope = int (*)(DLDevice dev, int ndim, const int64_t* shape,
                                              DLDataType dtype, const char* mem_scope,
                                              void** out_data);
using DeviceFreeDataSpace = int (*)(DLDevice dev, void* ptr);
using DeviceCopyDataFromTo = int (*)(DLTensor* from, DLTensor* to, StreamHandle stream);
using StreamCreate = int (*)(int device_type, int device_id, StreamHandle* out);
using StreamFree = int (*)(int device_type, int device_id, StreamHandle stream);
using SetStream = int (*)(int device_type, int device_id, StreamHandle handle);
using Synchronize = int (*)(int device_type, int device_id, StreamHandle stream);
using StreamStreamSynchronize = int (*)(int device_type, int device_id, StreamHandle src,
                                        StreamHandle dst);
// nullptr on error (c_backend_api.h).
using BackendAllocWorkspace = void* (*)(int device_type, int device_id, uint64_t nbytes,
                                        int dtype_code_hint, int dtype_bits_hint);
using BackendFreeWorkspace = int (*)(int device_type, int device_id, void* ptr);
using GetLastError = const char* (*)();
// The handle of a global function is the runtime's: never freed by callers.
using FuncGetGlobal = int (*)(const char* name, FunctionHandle* out);
using FuncCall = int (*)(FunctionHandle func, Value* arg_values, int* type_codes, int num_args,
                         Value* ret_val, int* ret_type_code);

// The global that answers DeviceAPI::GetAttr: (device_type, device_id, kind),
// each passed as kArgInt.
inline constexpr const char* kGetDeviceAttr = "runtime.GetDeviceAttr";

}  // namespace sectl::tvm::c_abi
