// sectl's reference TVM runtime, the tvm-ffi flavour (TVM v0.21 and later):
// the C entry points a real TVM runtime offers through libtvm_ffi.so and
// libtvm_runtime.so for reaching its DeviceAPI, written from tvm-ffi's
// include/tvm/ffi/c_api.h, include/tvm/ffi/extra/c_env_api.h and
// src/ffi/{function,object,error}.cc, and TVM's src/runtime/device_api.cc
// (see docs/tvm-runtime-abi.md), over the device of device_core.h. It is
// not TVM, and exports none of TVM's v0.20 C API, so that sectl takes its
// tvm-ffi route. One library holds both halves (a real TVM runtime keeps
// the TVMFFI* ones in libtvm_ffi.so), so that two of these runtimes can be
// loaded into one process without sharing a global table.
//
// Errors are raised as tvm-ffi raises them: -1, then an Error object (kind,
// message) from TVMFFIErrorMoveFromRaised. Reference counting is real, and
// SectlTvmFfiOutstandingReferences tells a test how many references a caller
// still holds.
//
// Built once correct (sectl_tvm_ffi_runtime) and once per FAULT_* macro
// tvm-ffi can express (faults.h).
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "device_core.h"
#include "ffi_abi.h"
#include "ffi_objects.h"

#define EXPORT extern "C" __attribute__((visibility("default")))

namespace ffi = reference_runtime::ffi;

namespace {

// Raises the core's failure, if any, as TVM's InternalError; answers 0 or -1.
int Report(const reference_runtime::Failure& failure) {
  if (failure.empty()) return 0;
  ffi::SetRaised(ffi::MakeError("InternalError", failure));
  return -1;
}

}  // namespace

// --- tvm-ffi: objects ---------------------------------------------------------

EXPORT int TVMFFIObjectIncRef(void* obj) {
  ffi::RequireLive(obj, "TVMFFIObjectIncRef");
  ffi::IncRef(static_cast<ffi::ObjectHeader*>(obj));
  ffi::CountHandedOut();
  return 0;
}

EXPORT int TVMFFIObjectDecRef(void* obj) {
  ffi::RequireLive(obj, "TVMFFIObjectDecRef");
  ffi::CountGivenBack();
  ffi::DecRef(static_cast<ffi::ObjectHeader*>(obj));
  return 0;
}

// --- tvm-ffi: functions -------------------------------------------------------

EXPORT int TVMFFIFunctionGetGlobal(const ffi::ByteArray* name, void** out) {
  if (name == nullptr || out == nullptr) {
    ffi::SetRaised(ffi::MakeError("TypeError", "TVMFFIFunctionGetGlobal: a null argument"));
    return -1;
  }
  ffi::ObjectHeader* function = ffi::FindGlobal(std::string_view(name->data, name->size));
  if (function != nullptr) {
    // An owned reference, as tvm-ffi's function.cc hands out a copy.
    ffi::IncRef(function);
    ffi::CountHandedOut();
  }
  *out = function;
  return 0;
}

EXPORT int TVMFFIFunctionCreate(void* self, ffi::SafeCall safe_call, void (*deleter)(void*),
                                void** out) {
  if (safe_call == nullptr || out == nullptr) {
    ffi::SetRaised(ffi::MakeError("TypeError", "TVMFFIFunctionCreate: a null argument"));
    return -1;
  }
  *out = ffi::MakeExternFunction(self, safe_call, deleter);
  ffi::CountHandedOut();
  return 0;
}

// How a backend library registers its DeviceAPI factory ("device_api.vulkan")
// from a static initialiser, as TVM_FFI_STATIC_INIT_BLOCK does.
EXPORT int TVMFFIFunctionSetGlobal(const ffi::ByteArray* name, void* f, int allow_override) {
  if (name == nullptr || f == nullptr) {
    ffi::SetRaised(ffi::MakeError("TypeError", "TVMFFIFunctionSetGlobal: a null argument"));
    return -1;
  }
  ffi::RequireLive(f, "TVMFFIFunctionSetGlobal");
  const std::string_view key(name->data, name->size);
  if (!ffi::RegisterGlobal(key, static_cast<ffi::ObjectHeader*>(f), allow_override != 0)) {
    ffi::SetRaised(ffi::MakeError(
        "RuntimeError", "Global Function `" + std::string(key) + "` is already registered"));
    return -1;
  }
  return 0;
}

EXPORT int TVMFFIFunctionCall(void* func, ffi::Any* args, int32_t num_args, ffi::Any* result) {
  ffi::RequireLive(func, "TVMFFIFunctionCall");
  auto* header = static_cast<ffi::ObjectHeader*>(func);
  if (header->type_index != ffi::kFunction) {
    ffi::SetRaised(ffi::MakeError("TypeError", "TVMFFIFunctionCall: not a function"));
    return -1;
  }
  // As tvm-ffi: through the function cell's safe call, right after the header.
  const auto* cell = reinterpret_cast<const ffi::FunctionCell*>(header + 1);
  return cell->safe_call(func, args, num_args, result);
}

// --- tvm-ffi: errors ----------------------------------------------------------

EXPORT void TVMFFIErrorMoveFromRaised(void** result) {
  ffi::ObjectHeader* error = ffi::MoveFromRaised();
  if (error != nullptr) ffi::CountHandedOut();
  *result = error;
}

EXPORT void TVMFFIErrorSetRaised(void* error) {
  ffi::RequireLive(error, "TVMFFIErrorSetRaised");
  auto* header = static_cast<ffi::ObjectHeader*>(error);
  ffi::IncRef(header);  // the runtime's own reference; the caller keeps its
  ffi::SetRaised(header);
}

EXPORT void TVMFFIErrorSetRaisedFromCStr(const char* kind, const char* message) {
  ffi::SetRaised(ffi::MakeError(kind == nullptr ? "" : kind, message == nullptr ? "" : message));
}

EXPORT int TVMFFIErrorCreate(const ffi::ByteArray* kind, const ffi::ByteArray* message,
                             const ffi::ByteArray* backtrace, void** out) {
  // As tvm-ffi's, it reports no error of its own: a bad argument is -1.
  if (kind == nullptr || message == nullptr || backtrace == nullptr || out == nullptr) return -1;
  ffi::ObjectHeader* error = ffi::MakeError(std::string(kind->data, kind->size),
                                            std::string(message->data, message->size));
  auto* cell = reinterpret_cast<ffi::ErrorCell*>(error + 1);
  cell->update_backtrace(error, backtrace, 0);
  ffi::CountHandedOut();
  *out = error;
  return 0;
}

// --- tvm-ffi: the stream context (extra/c_env_api.h) ---------------------------

EXPORT int TVMFFIEnvSetStream(int32_t device_type, int32_t device_id, void* stream,
                              void** opt_out_original_stream) {
  if (opt_out_original_stream != nullptr) {
    *opt_out_original_stream = reference_runtime::CurrentStream(device_type, device_id);
  }
  reference_runtime::RecordCurrentStream(device_type, device_id, stream);
  return 0;
}

EXPORT void* TVMFFIEnvGetStream(int32_t device_type, int32_t device_id) {
  return reference_runtime::CurrentStream(device_type, device_id);
}

// --- TVM's C backend API (c_backend_api.h, device_api.cc) ----------------------

EXPORT void* TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes,
                                      int /*dtype_code_hint*/, int /*dtype_bits_hint*/) {
  void* pointer = nullptr;
  if (Report(reference_runtime::AllocWorkspace(device_type, device_id, nbytes, &pointer)) != 0) {
    return nullptr;
  }
  return pointer;
}

EXPORT int TVMBackendFreeWorkspace(int device_type, int device_id, void* ptr) {
  return Report(reference_runtime::FreeWorkspace(device_type, device_id, ptr));
}

// --- for sectl's tests ----------------------------------------------------------

// References this runtime handed out (TVMFFIFunctionGetGlobal, call results,
// TVMFFIErrorMoveFromRaised, TVMFFIErrorCreate, TVMFFIObjectIncRef) and not
// had back through TVMFFIObjectDecRef: 0 when a caller holds nothing.
EXPORT int64_t SectlTvmFfiOutstandingReferences(void) { return ffi::OutstandingReferences(); }
