// Bench reports for the format and compare tests: every kind of result a
// run produces, and plugin text meant to break every format.
#pragma once

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_report.h"

namespace sectl::bench::testing {

inline constexpr uint64_t kKiB = 1024;
inline constexpr uint64_t kMiB = 1024 * kKiB;

// What a plugin might call its device: a control character, a colour escape,
// and every character XML and CSV treat specially.
inline const std::string kNastyName = "dev\x01 \x1b[31mred\x1b[0m <&>\"', end\nnext";

inline Distribution Gbps(double median, double width = 0.1) {
  return {.median = median,
          .p5 = median * (1 - width),
          .p95 = median * (1 + width / 2),
          .min = median * (1 - 2 * width),
          .max = median * (1 + width),
          .spread = 1.5 * width,
          .samples = 25};
}

// `count` samples spread evenly at random within `noise` (0.03: 3%) of
// `median`, the same for the same `seed`.
inline std::vector<double> Around(double median, double noise, int count, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> off(-noise, noise);
  std::vector<double> values;
  values.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) values.push_back(median * (1 + off(generator)));
  return values;
}

inline BandwidthResult Bandwidth(Direction direction, HostMemory memory, CopyMode mode,
                                 uint64_t bytes, double median) {
  BandwidthResult result;
  result.direction = direction;
  result.host_memory = memory;
  result.mode = mode;
  result.bytes = bytes;
  result.gbps = Gbps(median);
  result.ceiling_gbps = 20;
  result.ratio_to_ceiling = median / 20;
  result.warmup_copies = 3;
  result.copies_per_sample = bytes < kMiB ? 64 : 1;
  result.stable = true;
  result.enqueue_excluded = true;
  result.verification = {VerificationStatus::kPassed, ""};
  return result;
}

inline BenchReport Provenance(std::string kind) {
  BenchReport report;
  report.kind = std::move(kind);
  report.tool_version = "0.1.0";
  report.plugin_path = "/opt/vendor/libvendor_plugin.so";
  report.plugin_sha256 = "3a4f5b6c7d8e9f00112233445566778899aabbccddeeff00112233445566778f";
  report.platform_name = "MY_DEVICE";
  report.device_ordinal = 1;
  report.device_name = "Example Accelerator";
  report.host = {"Linux", "6.1.0-18-amd64", "x86_64", "Example CPU @ 3.0GHz", 16, 68719476736ULL};
  report.command_line = {"sectl", "bench", "memcpy", "/opt/vendor/libvendor_plugin.so"};
  report.started_at = "2026-11-21T08:00:00Z";
  report.duration_s = 42.5;
  report.threads = 1;
  return report;
}

// Three copy paths over three sizes, with a result of every kind: plugin
// timers, a warning, an unstable one, a failed verification, an unverified
// one, one that could not be measured, and one whose ratio is not a number.
inline BenchReport SampleMemcpyReport() {
  BenchReport report = Provenance("memcpy");
  using enum Direction;
  for (uint64_t bytes : {4 * kKiB, kMiB, 64 * kMiB}) {
    const double scale = bytes == 4 * kKiB ? 0.1 : (bytes == kMiB ? 0.6 : 1.0);
    report.results.push_back(
        Bandwidth(kHostToDevice, HostMemory::kPinned, CopyMode::kAsync, bytes, 12 * scale));
    report.results.push_back(
        Bandwidth(kDeviceToHost, HostMemory::kPageable, CopyMode::kSync, bytes, 6 * scale));
    report.results.push_back(
        Bandwidth(kDeviceToDevice, HostMemory::kNone, CopyMode::kAsync, bytes, 300 * scale));
  }
  for (uint64_t bytes : {4 * kKiB, kMiB, 64 * kMiB}) {
    report.ceiling.push_back({.bytes = bytes, .gbps = Gbps(20)});
  }
  report.results[0].plugin_timer_gbps = Gbps(1.25, 0.05);
  report.results[1].stable = false;
  report.results[4].verification = {VerificationStatus::kFailed, "byte 17 is 0x00, expected 0x5a"};
  report.results[5].warnings = {"implausible: 15.0x the host memcpy ceiling"};
  report.results[5].verification = {VerificationStatus::kSkipped, ""};
  report.results[7].error = "the plugin has no sync_memcpy_dtoh\x07";
  report.results[7].gbps = {};
  report.results[8].ratio_to_ceiling = std::numeric_limits<double>::quiet_NaN();
  report.device_name = kNastyName;
  return report;
}

inline BenchReport SampleLatencyReport() {
  BenchReport report = Provenance("latency");
  report.command_line = {"sectl", "bench", "latency", "/opt/vendor/libvendor_plugin.so"};
  report.latency.push_back({.operation = "enqueue_tiny_copy",
                            .description = "memcpy_htod of 4 bytes, enqueue only",
                            .ns = {850, 800, 1200, 790, 1500, 0.47, 1000},
                            .operations_per_sample = 100});
  report.latency.push_back({.operation = "host_callback_round_trip",
                            .description = "host_callback, enqueue to run",
                            .ns = {12000, 11000, 15000, 10500, 30000, 0.33, 200},
                            .operations_per_sample = 1});
  report.latency.push_back({.operation = "event_record_to_complete",
                            .description = "record_event until get_event_status says complete",
                            .operations_per_sample = 1,
                            .error = "the plugin has no record_event"});
  return report;
}

}  // namespace sectl::bench::testing
