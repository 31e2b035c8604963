// The names of TF_Code values, for reports and messages.
#pragma once

#include <cstdint>
#include <string>

namespace sectl::abi {

// "INVALID_ARGUMENT" for 3; "code 99" for a number TF_Code does not have.
std::string TfCodeName(int32_t code);

}  // namespace sectl::abi
