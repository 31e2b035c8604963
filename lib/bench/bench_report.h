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

// 2 added the samples themselves (Distribution::values), latency's "stable"
// and the report's "runs"; 3 added each result's "not_measurable"; 4 the
// report's "stopped". Version 1 to 3 reports are still read, without them.
inline constexpr int kBenchSchemaVersion = 4;
inline constexpr int kOldestReadableBenchSchemaVersion = 1;

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
  // The samples themselves, in the order they were taken, so that a later
  // run can be judged against them (`--compare`'s rank test). Empty in a
  // report from before schema version 2.
  std::vector<double> values;
};

// Whether the bytes a copy path moved were checked, and what was found.
// A copy is only ever checked through other ways in and out of the device
// that were themselves found to work (memcpy_bench.cc says how), so a
// broken device-to-host copy cannot make the other directions look broken.
enum class VerificationStatus {
  kPassed,       // the bytes were read back exactly
  kFailed,       // the copy's own bytes were wrong, shown through a verified path
  kNotVerified,  // no verified path was left to check the copy with
  kSkipped,      // --no-verify
};
// "passed", "failed", "not_verified", "skipped"
std::string_view VerificationStatusName(VerificationStatus status);
std::optional<VerificationStatus> ParseVerificationStatus(std::string_view name);

struct Verification {
  VerificationStatus status = VerificationStatus::kSkipped;
  // Failed: the first difference and the path that showed it. Not verified:
  // why no path could be trusted. Passed: the path, where it was not the
  // usual one (a device-to-host copy that itself returns wrong bytes).
  std::string reason;

  bool failed() const { return status == VerificationStatus::kFailed; }
  bool operator==(const Verification&) const = default;
  // One line: "passed", "skipped", "failed: byte 0 of 65536 ...",
  // "not verified: d2h, the only way to read the device, returns wrong bytes".
  std::string Describe() const;
  // The reverse of Describe(), for reports that carry only that line.
  static Verification FromDescription(std::string_view description);
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
  Verification verification;
  // Why a result should not be believed: "implausible: 12.0x the host memcpy
  // ceiling". Empty for an ordinary result.
  std::vector<std::string> warnings;
  // Set when this path could not be measured at all (the plugin lacks the
  // function, or a call failed); the numbers are then meaningless.
  std::optional<std::string> error;
  // Set when what the clock measured is not a bandwidth, and why: the copies'
  // completion was signalled before their bytes arrived, or depends on a
  // function known broken, or the rate is faster than any machine can copy
  // (physical_bounds.h). The numbers are then absent (not finite), and no
  // report shows one.
  std::optional<std::string> not_measurable;
};

// Makes `result` say why it is not a bandwidth (`why`), and drops every
// number measured of the plugin; the host's own ceiling stays.
void MarkNotMeasurable(BandwidthResult& result, std::string why);

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
  // Whether the median settled before the time budget ran out. A report
  // from before schema version 2 does not say, and is taken as stable.
  bool stable = true;
  // Set when the operation could not be measured (the plugin lacks it).
  std::optional<std::string> error;
  // Set when the operation never completes (a host callback accepted and
  // never run, an event recorded and never complete), and why: a latency
  // that is not a number. The numbers are then absent (not finite).
  std::optional<std::string> not_measurable;
};

// Makes `result` say why it has no latency (`why`), and drops its numbers.
void MarkNotMeasurable(LatencyResult& result, std::string why);

// Whether a result holds a number to show, compare and plot: measured, and
// neither in error nor not measurable.
bool HasNumbers(const BandwidthResult& result);
bool HasNumbers(const LatencyResult& result);

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
  // How many times the whole measurement ran (--repeat-runs): each median
  // is then the median of the runs' medians, and the values are all runs'.
  int runs = 1;
  // Why the run stopped before its last step (step_deadline.h: steps that
  // took longer than --timeout, or the run's deadline); the results it did
  // not measure say so in their error. nullopt for a run that went through.
  std::optional<std::string> stopped;
  std::vector<BandwidthResult> results;
  std::vector<CeilingResult> ceiling;
  std::vector<LatencyResult> latency;
};

// Whether any result of `report` is not measurable.
bool AnyNotMeasurable(const BenchReport& report);

}  // namespace sectl::bench
