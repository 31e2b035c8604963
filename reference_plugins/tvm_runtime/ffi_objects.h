// The objects of sectl's reference tvm-ffi runtime (tvm_ffi_api.cc): strings,
// errors, shapes, tensors and functions laid out as tvm-ffi lays them out
// (ffi_abi.h), with tvm-ffi's reference counting, a record of the live ones
// (a handle that is not live is a caller's bug, reported and aborted on),
// the raised error, and the count of references handed to callers and not
// yet given back (SectlTvmFfiOutstandingReferences).
//
// Every Make* answers an object with one strong reference, which its caller
// owns. State is process-wide: the library is dlopen'ed, so no thread_local
// (tvm-ffi's raised error is per thread).
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ffi_abi.h"

namespace reference_runtime::ffi {

// What a global's body throws to fail: the safe call raises it as an Error
// object of this kind and message and returns -1.
struct Raised {
  std::string kind;  // "TypeError", "ValueError", "InternalError", ...
  std::string message;
};

// --- reference counting -----------------------------------------------------

// Aborts, naming `operation`, unless `handle` is a live object of this
// runtime: a release too many or a foreign handle is the caller's bug.
void RequireLive(const void* handle, const char* operation);

void IncRef(ObjectHeader* object);
// Drops a strong reference; the last one deletes the object.
void DecRef(ObjectHeader* object);

// References handed to callers and not given back: +1 for each handed out,
// -1 for each TVMFFIObjectDecRef.
void CountHandedOut();
void CountGivenBack();
int64_t OutstandingReferences();

// --- objects ----------------------------------------------------------------

ObjectHeader* MakeStr(std::string text);
ObjectHeader* MakeError(std::string kind, std::string message);
ObjectHeader* MakeShape(std::vector<int64_t> dimensions);
// A tensor owning `data`, which its deletion frees with FreeDataSpace.
ObjectHeader* MakeTensor(void* data, DLDevice device, std::vector<int64_t> shape, DLDataType dtype);

// The cell after an object's header (tvm-ffi's layouts).
const ByteArray& StrBytes(const ObjectHeader* str);
const ShapeCell& ShapeDimensions(const ObjectHeader* shape);
DLTensor* TensorOf(ObjectHeader* tensor);

// --- global functions -------------------------------------------------------

// A global's body: reads its arguments, writes its result, throws Raised.
class Arguments;
using Body = void (*)(const Arguments& arguments, Any* result);

struct GlobalDefinition {
  const char* name;
  const char* signature;  // for messages: "(0: Device, 1: int) -> void"
  Body body;
};

// Every global this runtime offers (ffi_globals.cc).
const std::vector<GlobalDefinition>& GlobalDefinitions();

// The function object of a global, or null; the runtime keeps its own
// reference for as long as the library is loaded.
ObjectHeader* FindGlobal(std::string_view name);

// TVMFFIFunctionCreate: a function calling `safe_call(self, ...)`; its
// deletion calls `deleter(self)` (when not null).
ObjectHeader* MakeExternFunction(void* self, SafeCall safe_call, void (*deleter)(void*));

// TVMFFIFunctionSetGlobal: FindGlobal answers `function` for `name` from now
// on (the runtime takes a reference of its own); false when `name` is taken
// and `allow_override` is not set. A backend library registers its
// "device_api.<name>" so when loaded.
bool RegisterGlobal(std::string_view name, ObjectHeader* function, bool allow_override);

// --- the raised error -------------------------------------------------------

// Takes over the caller's reference to `error`; an error raised before and
// never fetched is released.
void SetRaised(ObjectHeader* error);
// The raised error (the caller owns the reference) or null; clears it.
ObjectHeader* MoveFromRaised();

}  // namespace reference_runtime::ffi
