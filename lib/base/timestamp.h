// Times as reports carry them.
#pragma once

#include <chrono>
#include <string>

namespace sectl {

// ISO 8601 in UTC, to the second: "2026-11-21T08:00:00Z".
std::string IsoTimestamp(std::chrono::system_clock::time_point when);

}  // namespace sectl
