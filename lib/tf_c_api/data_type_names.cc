#include "tf_c_api/data_type_names.h"

#include <fmt/format.h>

#include <array>
#include <string_view>

namespace sectl::tf_c_api {
namespace {

// Indexed by the TF_DataType value; empty for a number tf_datatype.h skips
// (0: DT_INVALID).
constexpr std::array<std::string_view, 33> kNames = {"",
                                                     "float",
                                                     "double",
                                                     "int32",
                                                     "uint8",
                                                     "int16",
                                                     "int8",
                                                     "string",
                                                     "complex64",
                                                     "int64",
                                                     "bool",
                                                     "qint8",
                                                     "quint8",
                                                     "qint32",
                                                     "bfloat16",
                                                     "qint16",
                                                     "quint16",
                                                     "uint16",
                                                     "complex128",
                                                     "half",
                                                     "resource",
                                                     "variant",
                                                     "uint32",
                                                     "uint64",
                                                     "float8_e5m2",
                                                     "float8_e4m3fn",
                                                     "float8_e4m3fnuz",
                                                     "float8_e4m3b11fnuz",
                                                     "float8_e5m2fnuz",
                                                     "int4",
                                                     "uint4",
                                                     "int2",
                                                     "uint2"};

}  // namespace

bool IsKnownDataType(int type) {
  return type > 0 && static_cast<size_t>(type) < kNames.size() && !kNames[type].empty();
}

std::string DataTypeName(int type) {
  if (IsKnownDataType(type)) return std::string(kNames[type]);
  return fmt::format("an unknown type ({})", type);
}

}  // namespace sectl::tf_c_api
