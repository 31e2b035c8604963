/* Calls into sectl's TensorFlow C API as a C plugin makes them: C lets any
 * int through an enum parameter, which C++ may not even load as the enum
 * (UBSan's -fsanitize=enum), so tf_c_api_test passes such values from here. */
#include <stddef.h>

#include "tensorflow/c/logging.h"
#include "tensorflow/c/tf_datatype.h"

size_t DataTypeSizeOfNumber(int number) { return TF_DataTypeSize((TF_DataType)number); }

void LogAtLevelNumber(int number, const char* text) { TF_Log((TF_LogLevel)number, "%s", text); }
