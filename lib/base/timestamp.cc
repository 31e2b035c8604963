#include "base/timestamp.h"

#include <fmt/chrono.h>

namespace sectl {

std::string IsoTimestamp(std::chrono::system_clock::time_point when) {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", std::chrono::floor<std::chrono::seconds>(when));
}

}  // namespace sectl
