#include "bench/bench_report.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

namespace sectl::bench {
namespace {

// Each enum's values beside their names, so naming and parsing cannot drift
// apart.
template <typename Enum, size_t N>
using NameTable = std::array<std::pair<Enum, std::string_view>, N>;

constexpr NameTable<Direction, 3> kDirectionNames = {{{Direction::kHostToDevice, "h2d"},
                                                      {Direction::kDeviceToHost, "d2h"},
                                                      {Direction::kDeviceToDevice, "d2d"}}};
constexpr NameTable<HostMemory, 3> kHostMemoryNames = {{{HostMemory::kPinned, "pinned"},
                                                        {HostMemory::kPageable, "pageable"},
                                                        {HostMemory::kNone, "none"}}};
constexpr NameTable<CopyMode, 2> kCopyModeNames = {
    {{CopyMode::kAsync, "async"}, {CopyMode::kSync, "sync"}}};
constexpr NameTable<VerificationStatus, 4> kVerificationStatusNames = {
    {{VerificationStatus::kPassed, "passed"},
     {VerificationStatus::kFailed, "failed"},
     {VerificationStatus::kNotVerified, "not_verified"},
     {VerificationStatus::kSkipped, "skipped"}}};

// How Describe() starts a line of each status that carries a reason.
constexpr std::string_view kFailedPrefix = "failed: ";
constexpr std::string_view kNotVerifiedPrefix = "not verified: ";

template <typename Enum, size_t N>
std::string_view NameIn(const NameTable<Enum, N>& table, Enum value) {
  for (const auto& [candidate, name] : table) {
    if (candidate == value) return name;
  }
  return "unknown";
}

template <typename Enum, size_t N>
std::optional<Enum> ParseIn(const NameTable<Enum, N>& table, std::string_view name) {
  for (const auto& [value, candidate] : table) {
    if (candidate == name) return value;
  }
  return std::nullopt;
}

}  // namespace

std::string_view DirectionName(Direction direction) { return NameIn(kDirectionNames, direction); }

std::optional<Direction> ParseDirection(std::string_view name) {
  return ParseIn(kDirectionNames, name);
}

std::string_view HostMemoryName(HostMemory memory) { return NameIn(kHostMemoryNames, memory); }

std::optional<HostMemory> ParseHostMemory(std::string_view name) {
  return ParseIn(kHostMemoryNames, name);
}

std::string_view CopyModeName(CopyMode mode) { return NameIn(kCopyModeNames, mode); }

std::optional<CopyMode> ParseCopyMode(std::string_view name) {
  return ParseIn(kCopyModeNames, name);
}

std::string_view VerificationStatusName(VerificationStatus status) {
  return NameIn(kVerificationStatusNames, status);
}

std::optional<VerificationStatus> ParseVerificationStatus(std::string_view name) {
  return ParseIn(kVerificationStatusNames, name);
}

std::string Verification::Describe() const {
  switch (status) {
    case VerificationStatus::kPassed:
      return "passed";
    case VerificationStatus::kSkipped:
      return "skipped";
    case VerificationStatus::kFailed:
      return std::string(kFailedPrefix) + reason;
    case VerificationStatus::kNotVerified:
      return std::string(kNotVerifiedPrefix) + reason;
  }
  return "unknown";
}

namespace {

// A distribution of nothing: every statistic not finite, so that no writer
// can show one as a number (JSON writes null).
Distribution NoNumbers() {
  constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  return {.median = kNone,
          .p5 = kNone,
          .p95 = kNone,
          .min = kNone,
          .max = kNone,
          .spread = kNone,
          .samples = 0,
          .values = {}};
}

}  // namespace

void MarkNotMeasurable(BandwidthResult& result, std::string why) {
  result.gbps = NoNumbers();
  result.plugin_timer_gbps.reset();
  result.ratio_to_ceiling = std::numeric_limits<double>::quiet_NaN();
  result.stable = false;
  result.enqueue_excluded = false;
  result.not_measurable = std::move(why);
}

void MarkNotMeasurable(LatencyResult& result, std::string why) {
  result.ns = NoNumbers();
  result.stable = false;
  result.not_measurable = std::move(why);
}

bool HasNumbers(const BandwidthResult& result) {
  return !result.error && !result.not_measurable && std::isfinite(result.gbps.median);
}

bool HasNumbers(const LatencyResult& result) {
  return !result.error && !result.not_measurable && std::isfinite(result.ns.median);
}

bool AnyNotMeasurable(const BenchReport& report) {
  return std::any_of(report.results.begin(), report.results.end(),
                     [](const auto& result) { return result.not_measurable.has_value(); }) ||
         std::any_of(report.latency.begin(), report.latency.end(),
                     [](const auto& result) { return result.not_measurable.has_value(); });
}

Verification Verification::FromDescription(std::string_view description) {
  if (description.starts_with(kFailedPrefix)) {
    return {VerificationStatus::kFailed, std::string(description.substr(kFailedPrefix.size()))};
  }
  if (description.starts_with(kNotVerifiedPrefix)) {
    return {VerificationStatus::kNotVerified,
            std::string(description.substr(kNotVerifiedPrefix.size()))};
  }
  if (description == "passed") return {VerificationStatus::kPassed, ""};
  return {VerificationStatus::kSkipped, ""};
}

}  // namespace sectl::bench
