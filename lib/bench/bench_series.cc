#include "bench/bench_series.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/text.h"

namespace sectl::bench {

SeriesKey SeriesKeyOf(const BandwidthResult& result) {
  return {result.direction, result.host_memory, result.mode};
}

std::string SeriesName(const SeriesKey& key) {
  if (key.host_memory == HostMemory::kNone) {
    return fmt::format("{} {}", DirectionName(key.direction), CopyModeName(key.mode));
  }
  return fmt::format("{} {} {}", DirectionName(key.direction), HostMemoryName(key.host_memory),
                     CopyModeName(key.mode));
}

std::vector<Series> GroupIntoSeries(const std::vector<BandwidthResult>& results) {
  std::vector<Series> all_series;
  for (const BandwidthResult& result : results) {
    const SeriesKey key = SeriesKeyOf(result);
    auto series = std::find_if(all_series.begin(), all_series.end(),
                               [&key](const Series& candidate) { return candidate.key == key; });
    if (series == all_series.end()) series = all_series.insert(all_series.end(), Series{key, {}});
    series->results.push_back(&result);
  }
  for (Series& series : all_series) {
    std::stable_sort(
        series.results.begin(), series.results.end(),
        [](const BandwidthResult* a, const BandwidthResult* b) { return a->bytes < b->bytes; });
  }
  return all_series;
}

std::string FormatMeasurement(double value) {
  if (!std::isfinite(value)) return "n/a";
  const double magnitude = std::fabs(value);
  if (magnitude >= 100 || magnitude == 0) return fmt::format("{:.0f}", value);
  if (magnitude >= 10) return fmt::format("{:.1f}", value);
  if (magnitude >= 1) return fmt::format("{:.2f}", value);
  if (magnitude >= 0.1) return fmt::format("{:.3f}", value);
  return fmt::format("{:.3g}", value);
}

std::string OneLine(std::string_view text) {
  const std::string escaped = EscapeControlCharacters(text);
  std::string line;
  line.reserve(escaped.size());
  for (char c : escaped) {
    if (c == '\n') {
      line += "\\n";
    } else if (c == '\t') {
      line += ' ';
    } else {
      line += c;
    }
  }
  return line;
}

}  // namespace sectl::bench
