// tvm-ffi's C ABI as sectl's reference tvm-ffi runtime implements it,
// written from apache/tvm-ffi's include/tvm/ffi/c_api.h (TVMFFIAny,
// TVMFFIObject, the cells that follow an object's header, the type indices)
// and include/tvm/ffi/extra/c_env_api.h. Each type mirrors the one named in
// its comment by layout; the static_asserts pin the offsets a caller reads.
// 64-bit only, as tvm-ffi's byte arrays use size_t.
#pragma once

#include <dlpack/dlpack.h>

#include <cstddef>
#include <cstdint>

namespace reference_runtime::ffi {

// enum TVMFFITypeIndex.
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
  kSmallStr = 11,     // kTVMFFISmallStr
  kObjectBegin = 64,  // kTVMFFIStaticObjectBegin: an Any at or above holds an object
  kStr = 65,          // kTVMFFIStr
  kError = 67,        // kTVMFFIError
  kFunction = 68,     // kTVMFFIFunction
  kShape = 69,        // kTVMFFIShape
  kTensor = 70,       // kTVMFFITensor
};

// enum TVMFFIObjectDeleterFlagBitMask.
constexpr int kDeleteStrong = 1;  // run the destructor
constexpr int kDeleteWeak = 2;    // free the memory
constexpr int kDeleteBoth = kDeleteStrong | kDeleteWeak;

// TVMFFIObject's combined_ref_count: strong count low, weak count high; an
// object starts with one of each (tvm-ffi's kCombinedRefCountBothOne).
constexpr uint64_t kStrongOne = 1;
constexpr uint64_t kWeakOne = uint64_t{1} << 32;
constexpr uint64_t kStrongMask = kWeakOne - 1;

// TVMFFIObject: the header every object starts with.
struct ObjectHeader {
  uint64_t combined_ref_count;
  int32_t type_index;
  uint32_t padding;
  void (*deleter)(void* self, int flags);
};
static_assert(sizeof(ObjectHeader) == 24);
static_assert(offsetof(ObjectHeader, type_index) == 8);
static_assert(offsetof(ObjectHeader, deleter) == 16);

// TVMFFIAny: a value, 16 bytes.
struct Any {
  int32_t type_index;
  uint32_t small_str_len;  // union with zero_padding: 0 but for small strings
  union {
    int64_t v_int64;
    double v_float64;
    void* v_ptr;
    const char* v_c_str;
    ObjectHeader* v_obj;
    DLDataType v_dtype;
    DLDevice v_device;
    char v_bytes[8];
  };
};
static_assert(sizeof(Any) == 16);
static_assert(offsetof(Any, v_int64) == 8);

// TVMFFIByteArray.
struct ByteArray {
  const char* data;
  size_t size;
};

// TVMFFIShapeCell.
struct ShapeCell {
  const int64_t* data;
  size_t size;
};

// TVMFFIErrorCell.
struct ErrorCell {
  ByteArray kind;
  ByteArray message;
  ByteArray backtrace;
  void (*update_backtrace)(void* self, const ByteArray* backtrace, int32_t update_mode);
};

// TVMFFISafeCallType and TVMFFIFunctionCell.
using SafeCall = int (*)(void* self, const Any* args, int32_t num_args, Any* result);
struct FunctionCell {
  SafeCall safe_call;
  void* cpp_call;  // null: not a C++ function of the caller's
};

}  // namespace reference_runtime::ffi
