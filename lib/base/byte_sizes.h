// Sizes as people write them on a command line ("4KiB", "64MiB", "1GiB",
// "100000") and as sectl prints them ("64 MiB"), plus size sweeps and
// percentages.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"

namespace sectl {

// "4096", "4KiB", "4K", "64MiB", "64M", "1GiB", "1G" (binary units; "kB"/"MB"
// /"GB" are decimal, 10^3/10^6/10^9). Case-insensitive suffix. Zero and
// values above 2^40 are errors. The error names the text and why.
Expected<uint64_t> ParseByteSize(std::string_view text);

// A comma-separated list of sizes and ranges:
//   "64MiB"                 one size
//   "4KiB,1MiB,64MiB"       a list
//   "4KiB:256MiB"           powers of two from 4 KiB to 256 MiB (doubling)
//   "4KiB:256MiB:x4"        multiplying by 4 each step
// The result is sorted ascending with duplicates removed.
Expected<std::vector<uint64_t>> ParseSizeList(std::string_view text);

// "4 KiB", "64 MiB", "1.5 GiB", "100 B": the largest binary unit that
// keeps the number at least 1, with at most one decimal.
std::string FormatByteSize(uint64_t bytes);

// "10%", "10", "2.5%" -> 0.10, 0.10, 0.025. Negative or >= 100% is an error.
Expected<double> ParsePercentage(std::string_view text);

}  // namespace sectl
