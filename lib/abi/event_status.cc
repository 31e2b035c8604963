#include "abi/event_status.h"

#include <fmt/format.h>

namespace sectl::abi {

std::string EventStatusName(SE_EventStatus status) {
  switch (status) {
    case SE_EVENT_UNKNOWN:
      return "UNKNOWN";
    case SE_EVENT_ERROR:
      return "ERROR";
    case SE_EVENT_PENDING:
      return "PENDING";
    case SE_EVENT_COMPLETE:
      return "COMPLETE";
  }
  // A plugin may answer any int: the report says which.
  return fmt::format("{} (no SE_EventStatus)", static_cast<int>(status));
}

}  // namespace sectl::abi
