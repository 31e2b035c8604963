// What the bench report's renderers share: results grouped into series (one
// copy path measured over sizes), numbers printed for people, and plugin
// text made safe for one line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "bench/bench_report.h"

namespace sectl::bench {

// One copy path: every size of it forms a curve.
struct SeriesKey {
  Direction direction = Direction::kHostToDevice;
  HostMemory host_memory = HostMemory::kPinned;
  CopyMode mode = CopyMode::kAsync;

  bool operator==(const SeriesKey&) const = default;
};

SeriesKey SeriesKeyOf(const BandwidthResult& result);

// "h2d pinned async"; "d2d async" (a device-to-device copy has no host memory).
std::string SeriesName(const SeriesKey& key);

struct Series {
  SeriesKey key;
  std::vector<const BandwidthResult*> results;  // ascending by bytes
};

// The report's results as series, in the order each path first appears.
// The pointers point into `results`.
std::vector<Series> GroupIntoSeries(const std::vector<BandwidthResult>& results);

// A bandwidth or latency with three significant digits or so ("0.0123",
// "1.23", "24.1", "512", "12345"); "n/a" for a value that is not finite.
std::string FormatMeasurement(double value);

// Plugin text for one line of a table: control characters escaped, a
// newline written as "\n".
std::string OneLine(std::string_view text);

}  // namespace sectl::bench
