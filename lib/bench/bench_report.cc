#include "bench/bench_report.h"

#include <array>
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

}  // namespace sectl::bench
