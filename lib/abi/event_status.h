// The names of SE_EventStatus values, for reports and messages.
#pragma once

#include <string>

#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

namespace sectl::abi {

// "PENDING": how get_event_status's answer is named in the plugin's header;
// "7 (no SE_EventStatus)" for a number the enum does not have.
std::string EventStatusName(SE_EventStatus status);

}  // namespace sectl::abi
