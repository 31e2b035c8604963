#include "bench/physical_bounds.h"

#include <fmt/format.h>

#include <cmath>

namespace sectl::bench {
namespace {

// physical_bounds.h says why each is where it is.
constexpr double kHostSideBoundGbps = 1e6;    // 1 PB/s
constexpr double kDeviceOnlyBoundGbps = 1e8;  // 100 PB/s

// "1 PB/s", "100 PB/s": the bound as people say it.
std::string PetabytesPerSecond(double gbps) { return fmt::format("{:g} PB/s", gbps / 1e6); }

}  // namespace

double PhysicalBoundGbps(Direction direction) {
  return direction == Direction::kDeviceToDevice ? kDeviceOnlyBoundGbps : kHostSideBoundGbps;
}

std::optional<std::string> WhyPhysicallyImpossible(Direction direction, double gbps,
                                                   std::string_view clock) {
  if (!std::isfinite(gbps)) {
    return fmt::format("{} measured no time at all for the copies: they cannot have moved a byte",
                       clock);
  }
  const double bound = PhysicalBoundGbps(direction);
  if (gbps <= bound) return std::nullopt;
  const std::string_view why = direction == Direction::kDeviceToDevice
                                   ? "faster than the widest memory on any device"
                                   : "faster than any host's memory can be read or written";
  return fmt::format("{} says {:.0f} GB/s, beyond {} for {}: {}", clock, gbps,
                     PetabytesPerSecond(bound), DirectionName(direction), why);
}

}  // namespace sectl::bench
