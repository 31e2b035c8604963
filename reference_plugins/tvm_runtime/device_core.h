// The device behind sectl's reference TVM runtimes, shared by their two
// front ends: c_runtime_api.cc (TVM's C entry points up to v0.20) and
// tvm_ffi_api.cc (tvm-ffi's C ABI and TVM's globals, v0.21 on). Three cores
// implement it: device_core.cc, described here; cpu_backend_core.cc, a
// correct device written the way TVM's own CPU backend behaves; and
// handle_backend_core.cc, one written the way TVM's OpenCL backend behaves,
// whose data pointers are descriptors, not addresses (each file says how it
// differs); tensor_rules.cc and current_streams.cc hold what all share. device_core.cc serves two
// device types over host memory: cpu (1, devices 0 and 1) and ext_dev (12, device 0, a fake
// accelerator with GPU-like attributes), with
//
//   - data space from posix_memalign, honouring every power-of-two alignment
//     (on cpu, as TVM's CPU backend, none below sizeof(void*));
//   - streams that are worker threads (copies on them are asynchronous; the
//     null stream copies at once, as TVM's CPU backend does);
//   - a workspace pool of 4 KiB pages that reuses freed blocks;
//   - 1 GiB of "global memory" whose available part falls by what is held.
//
// Each operation answers the empty string when it succeeded, else the
// reason it failed in TVM's words; the front ends turn that into their API's
// error. The FAULT_* macros of faults.h seed their defects here, so that
// both front ends carry them.
#pragma once

#include <dlpack/dlpack.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace reference_runtime {

// Why an operation failed; empty when it succeeded.
using Failure = std::string;

// TVM's DeviceAttrKind values this runtime answers (device_api.h).
constexpr int kExist = 0;

Failure CheckDevice(int device_type, int device_id);

// Whether a backend library registered "device_api.ext_dev": defined, and
// used, only in the core built with EXT_DEV_FROM_BACKEND
// (backend_registration.cc).
bool ExtDevRegisteredByBackend();

// --- data space -------------------------------------------------------------

// `alignment` must be a power of two. Under FAULT_SILENT_ALLOCATION_FAILURE
// an allocation beyond the available memory "succeeds" with a null pointer.
Failure AllocDataSpace(DLDevice device, size_t bytes, size_t alignment, void** out);

// As TVM's DeviceAPI::AllocDataSpace for a shape: the size of `ndim`
// elements of `dtype`, aligned to max(64, bits / 8 * lanes); a memory scope
// other than "" or "global" is refused.
Failure AllocDataSpaceForShape(DLDevice device, int ndim, const int64_t* shape, DLDataType dtype,
                               std::string_view memory_scope, void** out);

// A null pointer is accepted, as TVM does.
Failure FreeDataSpace(DLDevice device, void* pointer);

// The bytes of a tensor, as TVM's GetDataSize: ceil(elements * bits * lanes
// / 8); false when that overflows.
bool TensorBytes(const DLTensor& tensor, size_t* bytes);

// As TVM's DeviceAPI::CopyDataFromTo: equal byte sizes, contiguous tensors,
// the CPU on one side or the same device type on both; `stream` null or made
// by CreateStream.
Failure CopyDataFromTo(const DLTensor& from, const DLTensor& to, void* stream);

// TVM's checks before any copy (the rules above): on success, the bytes to
// copy and the device whose DeviceAPI copies them.
Failure CheckCopy(const DLTensor& from, const DLTensor& to, size_t* bytes, DLDevice* device);

// --- streams ----------------------------------------------------------------

Failure CreateStream(int device_type, int device_id, void** out);
Failure FreeStream(int device_type, int device_id, void* stream);
Failure SetStream(int device_type, int device_id, void* stream);
Failure Synchronize(int device_type, int device_id, void* stream);
// Work submitted to `to` from now on waits for what `from` holds now.
Failure SyncStreamFromTo(int device_type, int device_id, void* from, void* to);

// The stream last made current for a device (null when none), and making
// one current without a check, as tvm-ffi's TVMFFIEnvSetStream records it.
void* CurrentStream(int device_type, int device_id);
void RecordCurrentStream(int device_type, int device_id, void* stream);
// A freed stream is current nowhere any more (current_streams.cc).
void ForgetCurrentStream(void* stream);

// --- workspace pool ---------------------------------------------------------

Failure AllocWorkspace(int device_type, int device_id, uint64_t bytes, void** out);
Failure FreeWorkspace(int device_type, int device_id, void* pointer);

// --- attributes -------------------------------------------------------------

// runtime.GetDeviceAttr's answer: None, an integer or a string.
struct Attribute {
  enum class Kind { kNone, kInteger, kText };
  Kind kind = Kind::kNone;
  int64_t number = 0;
  std::string text;
};

// As TVM: kExist is answered for any device (0 when absent), every other
// kind needs the device.
Failure GetDeviceAttr(int device_type, int device_id, int kind, Attribute* out);

}  // namespace reference_runtime
