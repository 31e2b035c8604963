// TensorFlow's names of its data types (TF_DataType), as op definitions and
// error messages spell them: "float", "half", "bfloat16".
#pragma once

#include <string>

namespace sectl::tf_c_api {

// The name of the TF_DataType numbered `type`, or "an unknown type (N)" for
// a number TensorFlow's tf_datatype.h does not define (a plugin may pass
// any int).
std::string DataTypeName(int type);

// Whether tf_datatype.h defines `type`.
bool IsKnownDataType(int type);

}  // namespace sectl::tf_c_api
