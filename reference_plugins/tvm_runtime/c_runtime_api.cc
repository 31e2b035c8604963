// sectl's reference TVM runtime, the v0.20 flavour: the C entry points of
// TVM's runtime up to v0.20 (c_runtime_api.h, c_backend_api.h; see
// docs/tvm-runtime-abi.md) over the device of device_core.h, for `sectl
// conform --profile tvm-device-api` and `sectl probe` to be tested against.
// It is not TVM. Errors are reported as TVM reports them: -1 and a message
// in TVMGetLastError.
//
// Built once correct (sectl_tvm_runtime) and once per FAULT_* macro
// (faults.h), each seeding one defect that exactly one tvm_device_api.*
// check catches.
//
// The last error is process-wide rather than per thread (TVM's is
// thread-local): a library sectl dlopens may not use thread_local.
#include <dlpack/dlpack.h>

#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>

#include "device_core.h"

#define EXPORT extern "C" __attribute__((visibility("default")))

namespace {

namespace core = reference_runtime;

// TVMArgTypeCode values this runtime uses (c_runtime_api.h, v0.20).
constexpr int kArgInt = 0;
constexpr int kNullptr = 4;
constexpr int kStr = 11;

union Value {
  int64_t v_int64;
  double v_float64;
  void* v_handle;
  const char* v_str;
  DLDataType v_type;
  DLDevice v_device;
};

std::mutex error_mutex;
std::string last_error;

int Failure(const std::string& message) {
  std::lock_guard<std::mutex> lock(error_mutex);
  last_error = message;
  return -1;
}

// 0, or -1 with the core's reason as the last error.
int Report(const core::Failure& failure) { return failure.empty() ? 0 : Failure(failure); }

// The one global function this runtime has, and its handle.
struct GlobalFunction {
  const char* name;
};
const GlobalFunction get_device_attr{"runtime.GetDeviceAttr"};

std::mutex return_mutex;
std::string returned_text;  // what a kStr result points into

}  // namespace

EXPORT const char* TVMGetLastError(void) {
  std::lock_guard<std::mutex> lock(error_mutex);
  return last_error.c_str();
}

EXPORT void TVMAPISetLastError(const char* message) { Failure(message == nullptr ? "" : message); }

EXPORT int TVMDeviceAllocDataSpace(DLDevice dev, size_t nbytes, size_t alignment,
                                   DLDataType /*type_hint*/, void** out_data) {
  if (out_data == nullptr) return Failure("TVMDeviceAllocDataSpace: out_data is null");
  return Report(core::AllocDataSpace(dev, nbytes, alignment, out_data));
}

EXPORT int TVMDeviceAllocDataSpaceWithScope(DLDevice dev, int ndim, const int64_t* shape,
                                            DLDataType dtype, const char* mem_scope,
                                            void** out_data) {
  if (out_data == nullptr) return Failure("TVMDeviceAllocDataSpaceWithScope: out_data is null");
  return Report(core::AllocDataSpaceForShape(dev, ndim, shape, dtype,
                                             mem_scope == nullptr ? "" : mem_scope, out_data));
}

EXPORT int TVMDeviceFreeDataSpace(DLDevice dev, void* ptr) {
  return Report(core::FreeDataSpace(dev, ptr));
}

EXPORT int TVMDeviceCopyDataFromTo(DLTensor* from, DLTensor* to, void* stream) {
  if (from == nullptr || to == nullptr) return Failure("CopyDataFromTo: a tensor is null");
  return Report(core::CopyDataFromTo(*from, *to, stream));
}

EXPORT int TVMStreamCreate(int device_type, int device_id, void** out) {
  if (out == nullptr) return Failure("TVMStreamCreate: out is null");
  return Report(core::CreateStream(device_type, device_id, out));
}

EXPORT int TVMStreamFree(int device_type, int device_id, void* stream) {
  return Report(core::FreeStream(device_type, device_id, stream));
}

EXPORT int TVMSetStream(int device_type, int device_id, void* handle) {
  return Report(core::SetStream(device_type, device_id, handle));
}

EXPORT int TVMSynchronize(int device_type, int device_id, void* stream) {
  return Report(core::Synchronize(device_type, device_id, stream));
}

EXPORT int TVMStreamStreamSynchronize(int device_type, int device_id, void* src, void* dst) {
  return Report(core::SyncStreamFromTo(device_type, device_id, src, dst));
}

EXPORT void* TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes,
                                      int /*dtype_code_hint*/, int /*dtype_bits_hint*/) {
  void* pointer = nullptr;
  if (Report(core::AllocWorkspace(device_type, device_id, nbytes, &pointer)) != 0) return nullptr;
  return pointer;
}

EXPORT int TVMBackendFreeWorkspace(int device_type, int device_id, void* ptr) {
  return Report(core::FreeWorkspace(device_type, device_id, ptr));
}

EXPORT int TVMFuncGetGlobal(const char* name, void** out) {
  if (name == nullptr || out == nullptr) return Failure("TVMFuncGetGlobal: null argument");
  *out = std::strcmp(name, get_device_attr.name) == 0
             ? const_cast<GlobalFunction*>(&get_device_attr)
             : nullptr;
  return 0;
}

EXPORT int TVMFuncFree(void* /*func*/) { return 0; }  // globals are never freed

EXPORT int TVMFuncCall(void* func, Value* args, int* type_codes, int num_args, Value* ret_val,
                       int* ret_type_code) {
  if (func != &get_device_attr) return Failure("TVMFuncCall: not a function of this runtime");
  if (num_args != 3) {
    return Failure("runtime.GetDeviceAttr expects 3 arguments, got " + std::to_string(num_args));
  }
  for (int i = 0; i < 3; ++i) {
    if (type_codes[i] != kArgInt) {
      return Failure("runtime.GetDeviceAttr: argument " + std::to_string(i) + " has type code " +
                     std::to_string(type_codes[i]) + ", not int");
    }
  }
  core::Attribute answer;
  if (auto failure =
          core::GetDeviceAttr(static_cast<int>(args[0].v_int64), static_cast<int>(args[1].v_int64),
                              static_cast<int>(args[2].v_int64), &answer);
      !failure.empty()) {
    return Failure(failure);
  }
  switch (answer.kind) {
    case core::Attribute::Kind::kInteger:
      *ret_type_code = kArgInt;
      ret_val->v_int64 = answer.number;
      break;
    case core::Attribute::Kind::kText: {
      std::lock_guard<std::mutex> lock(return_mutex);
      returned_text = answer.text;
      *ret_type_code = kStr;
      ret_val->v_str = returned_text.c_str();
      break;
    }
    case core::Attribute::Kind::kNone:
      *ret_type_code = kNullptr;
      ret_val->v_handle = nullptr;
      break;
  }
  return 0;
}
