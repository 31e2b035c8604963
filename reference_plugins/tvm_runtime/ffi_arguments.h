// The arguments of a call into one of the reference tvm-ffi runtime's
// globals, converted as tvm-ffi converts a packed call's arguments to the
// C++ parameter types of TVM's functions (include/tvm/ffi/type_traits.h): a
// value of the wrong type index, or a wrong number of them, throws a
// TypeError naming the global's signature, as tvm-ffi's message does.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ffi_abi.h"
#include "ffi_objects.h"

namespace reference_runtime::ffi {

class Arguments {
 public:
  Arguments(const GlobalDefinition& function, const Any* values, int32_t count)
      : function_(function), values_(values), count_(count) {}

  const char* function_name() const { return function_.name; }
  int32_t size() const { return count_; }
  int32_t TypeIndexAt(int32_t index) const { return values_[index].type_index; }

  // TypeError unless exactly `count` arguments were passed.
  void ExpectCount(int32_t count) const;

  int64_t Int(int32_t index) const;             // Int or Bool
  DLDevice Device(int32_t index) const;         // Device
  DLDataType DataType(int32_t index) const;     // DataType
  void* Pointer(int32_t index) const;           // OpaquePtr, or None for null
  DLTensor* Tensor(int32_t index) const;        // DLTensorPtr, or a Tensor object
  const ShapeCell& Shape(int32_t index) const;  // a Shape object
  // Optional<String>: None, or a SmallStr, Str or RawStr.
  std::optional<std::string> OptionalString(int32_t index) const;

 private:
  const Any& At(int32_t index) const;
  [[noreturn]] void Mismatch(int32_t index, std::string_view expected) const;

  const GlobalDefinition& function_;
  const Any* values_;
  int32_t count_;
};

// How tvm-ffi names a value's type in its messages.
std::string_view TypeName(int32_t type_index);

// Results, written as tvm-ffi writes them into a call's result.
void SetNone(Any* result);
void SetInt(Any* result, int64_t value);
// Up to 7 bytes inline (SmallStr), longer as a Str object.
void SetString(Any* result, const std::string& text);
// Hands the caller the reference to `object`.
void SetObject(Any* result, ObjectHeader* object);

}  // namespace reference_runtime::ffi
