// The result of a `sectl bench` run: plain data shared by the engine (which
// fills it), the writers (table, JSON, CSV, SVG plot) and `--compare` (which
// reads a saved JSON report back and judges the new run against it).
//
// Bandwidth is in GB/s, 10^9 bytes per second, as every bandwidth tool
// reports it; sizes are in bytes (KiB/MiB only when printed).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/host_info.h"

namespace sectl::bench {

inline constexpr int kBenchSchemaVersion = 1;

enum class Direction { kHostToDevice, kDeviceToHost, kDeviceToDevice };
std::string_view DirectionName(Direction direction);  // "h2d", "d2h", "d2d"
std::optional<Direction> ParseDirection(std::string_view name);
inline constexpr Direction kAllDirections[] = {Direction::kHostToDevice, Direction::kDeviceToHost,
                                               Direction::kDeviceToDevice};

// Where the host side of a copy lives. A device-to-device copy has none.
enum class HostMemory { kPinned, kPageable, kNone };
std::string_view HostMemoryName(HostMemory memory);  // "pinned", "pageable", "none"
std::optional<HostMemory> ParseHostMemory(std::string_view name);

// Asynchronous copies on a stream (memcpy_htod, ...), or the blocking
// sync_memcpy_* forms.
enum class CopyMode { kAsync, kSync };
std::string_view CopyModeName(CopyMode mode);  // "async", "sync"
std::optional<CopyMode> ParseCopyMode(std::string_view name);

// A statistical description of repeated measurements of one quantity.
struct Distribution {
  double median = 0;
  double p5 = 0;
  double p95 = 0;
  double min = 0;
  double max = 0;
  // (p95 - p5) / median: how wide the middle 90% is, relative to the median.
  double spread = 0;
  int samples = 0;
};

// One size of one copy path.
struct BandwidthResult {
  Direction direction = Direction::kHostToDevice;
  HostMemory host_memory = HostMemory::kPinned;
  CopyMode mode = CopyMode::kAsync;
  uint64_t bytes = 0;
  // Bandwidth per sample by the host's monotonic clock, GB/s.
  Distribution gbps;
  // The same samples by the plugin's timers (SP_TimerFns), when it has them.
  std::optional<Distribution> plugin_timer_gbps;
  // The host's own memcpy at the same size, median GB/s, and gbps.median
  // divided by it.
  double ceiling_gbps = 0;
  double ratio_to_ceiling = 0;
  int warmup_copies = 0;
  int copies_per_sample = 0;
  // Whether the estimate settled (the median stopped moving) before the time
  // budget for this size ran out.
  bool stable = false;
  // Whether enqueueing was kept out of the timed interval: the stream was
  // held behind a gate until every copy of the sample was queued.
  bool enqueue_excluded = false;
  // "passed", "skipped" (--no-verify) or "failed: <first difference>".
  std::string verification = "skipped";
  // Why a result should not be believed: "implausible: 12.0x the host memcpy
  // ceiling". Empty for an ordinary result.
  std::vector<std::string> warnings;
  // Set when this path could not be measured at all (the plugin lacks the
  // function, or a call failed); the numbers are then meaningless.
  std::optional<std::string> error;
};

// The host's own memcpy at one size: the ceiling results are compared with.
struct CeilingResult {
  uint64_t bytes = 0;
  Distribution gbps;
};

// One operation of `sectl bench latency`, in nanoseconds per operation.
struct LatencyResult {
  std::string operation;    // "enqueue_tiny_copy", "host_callback_round_trip", ...
  std::string description;  // one line for people
  Distribution ns;
  int operations_per_sample = 0;
  // Set when the operation could not be measured (the plugin lacks it).
  std::optional<std::string> error;
};

struct BenchReport {
  int schema_version = kBenchSchemaVersion;
  std::string kind;  // "memcpy" or "latency"
  // The program that measured: sectl, or a raw baseline writing the same report.
  std::string tool_name = "sectl";
  std::string tool_version;
  std::string plugin_path;
  std::string plugin_sha256;
  std::string platform_name;
  int device_ordinal = 0;
  std::string device_name;
  HostInfo host;
  std::vector<std::string> command_line;
  std::string started_at;  // ISO 8601, UTC
  double duration_s = 0;
  int threads = 1;  // host threads driving copies, for the ceiling as well
  std::vector<BandwidthResult> results;
  std::vector<CeilingResult> ceiling;
  std::vector<LatencyResult> latency;
};

}  // namespace sectl::bench
