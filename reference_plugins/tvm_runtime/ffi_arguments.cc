// Argument conversions and results of the reference tvm-ffi runtime's
// globals: see ffi_arguments.h.
#include "ffi_arguments.h"

#include <cstring>

namespace reference_runtime::ffi {

void Arguments::ExpectCount(int32_t count) const {
  if (count_ == count) return;
  throw Raised{"TypeError", "Mismatched number of arguments when calling: `" +
                                std::string(function_.name) + function_.signature + "`. Expected " +
                                std::to_string(count) + " but got " + std::to_string(count_) +
                                " arguments"};
}

const Any& Arguments::At(int32_t index) const {
  if (index >= count_) ExpectCount(index + 1);
  return values_[index];
}

void Arguments::Mismatch(int32_t index, std::string_view expected) const {
  throw Raised{"TypeError", "Mismatched type on argument #" + std::to_string(index) +
                                " when calling: `" + function_.name + function_.signature +
                                "`. Expected `" + std::string(expected) + "` but got `" +
                                std::string(TypeName(values_[index].type_index)) + "`"};
}

int64_t Arguments::Int(int32_t index) const {
  const Any& value = At(index);
  if (value.type_index != kInt && value.type_index != kBool) Mismatch(index, "int");
  return value.v_int64;
}

DLDevice Arguments::Device(int32_t index) const {
  const Any& value = At(index);
  if (value.type_index != kDevice) Mismatch(index, "Device");
  return value.v_device;
}

DLDataType Arguments::DataType(int32_t index) const {
  const Any& value = At(index);
  if (value.type_index != kDataType) Mismatch(index, "DataType");
  return value.v_dtype;
}

void* Arguments::Pointer(int32_t index) const {
  const Any& value = At(index);
  if (value.type_index == kNone) return nullptr;
  if (value.type_index != kOpaquePtr) Mismatch(index, "void*");
  return value.v_ptr;
}

DLTensor* Arguments::Tensor(int32_t index) const {
  const Any& value = At(index);
  if (value.type_index == kDLTensorPtr && value.v_ptr != nullptr) {
    return static_cast<DLTensor*>(value.v_ptr);
  }
  if (value.type_index == kTensor) return TensorOf(value.v_obj);
  Mismatch(index, "DLTensor*");
}

const ShapeCell& Arguments::Shape(int32_t index) const {
  const Any& value = At(index);
  if (value.type_index != kShape) Mismatch(index, "ffi.Shape");
  return ShapeDimensions(value.v_obj);
}

std::optional<std::string> Arguments::OptionalString(int32_t index) const {
  const Any& value = At(index);
  switch (value.type_index) {
    case kNone:
      return std::nullopt;
    case kSmallStr:
      return std::string(value.v_bytes, value.small_str_len);
    case kStr: {
      const ByteArray& bytes = StrBytes(value.v_obj);
      return std::string(bytes.data, bytes.size);
    }
    case kRawStr:
      return std::string(value.v_c_str);
    default:
      Mismatch(index, "Optional<ffi.String>");
  }
}

std::string_view TypeName(int32_t type_index) {
  switch (type_index) {
    case kNone:
      return "None";
    case kInt:
      return "int";
    case kBool:
      return "bool";
    case kFloat:
      return "float";
    case kOpaquePtr:
      return "void*";
    case kDataType:
      return "DataType";
    case kDevice:
      return "Device";
    case kDLTensorPtr:
      return "DLTensor*";
    case kRawStr:
      return "const char*";
    case kByteArrayPtr:
      return "TVMFFIByteArray*";
    case kSmallStr:
    case kStr:
      return "ffi.String";
    case kError:
      return "ffi.Error";
    case kFunction:
      return "ffi.Function";
    case kShape:
      return "ffi.Shape";
    case kTensor:
      return "ffi.Tensor";
    default:
      return type_index >= kObjectBegin ? "ffi.Object" : "unknown";
  }
}

void SetNone(Any* result) {
  result->type_index = kNone;
  result->small_str_len = 0;
  result->v_int64 = 0;
}

void SetInt(Any* result, int64_t value) {
  result->type_index = kInt;
  result->small_str_len = 0;
  result->v_int64 = value;
}

void SetString(Any* result, const std::string& text) {
  constexpr size_t kMaxSmallStr = sizeof(int64_t) - 1;  // one byte left for the NUL
  if (text.size() <= kMaxSmallStr) {
    result->type_index = kSmallStr;
    result->small_str_len = static_cast<uint32_t>(text.size());
    result->v_int64 = 0;
    std::memcpy(result->v_bytes, text.data(), text.size());
    return;
  }
  SetObject(result, MakeStr(text));
}

void SetObject(Any* result, ObjectHeader* object) {
  result->type_index = object->type_index;
  result->small_str_len = 0;
  result->v_obj = object;
}

}  // namespace reference_runtime::ffi
