// Validators for numeric flags: a value out of range, NaN or infinite is a
// one-line usage error (exit status 2) instead of a negative timeout or a
// hundred thousand processes. CLI11's own Range lets NaN through (every
// comparison with it is false).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>

namespace sectl::tool {

// The most seconds any duration flag accepts (about 11.6 days): its
// milliseconds still fit an int, which poll(2) takes.
inline constexpr double kMaxFlagSeconds = 1'000'000;
// The fewest: a shorter deadline rounds to zero milliseconds.
inline constexpr double kMinFlagSeconds = 0.001;

// -j: checks at once. More processes than this gain nothing on any machine
// sectl runs on and can exhaust the process table.
inline constexpr int64_t kMaxJobs = 1024;
// --repeat: each run is a result held in memory and written to the report.
inline constexpr int64_t kMaxRepeat = 10'000;
// --device: an ordinal (TensorFlow's device ids are ints; no plugin has this many).
inline constexpr int64_t kMaxDeviceOrdinal = 65'535;

// A finite number of seconds in [minimum, maximum].
CLI::Validator SecondsBetween(double minimum = kMinFlagSeconds, double maximum = kMaxFlagSeconds);

// A whole number in [minimum, maximum], written in decimal.
CLI::Validator WholeNumberBetween(int64_t minimum, int64_t maximum);

}  // namespace sectl::tool
