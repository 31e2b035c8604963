#include "base/byte_sizes.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>

namespace sectl {
namespace {

constexpr uint64_t kKiB = uint64_t{1} << 10;
constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kGiB = uint64_t{1} << 30;
constexpr uint64_t kTiB = uint64_t{1} << 40;
constexpr uint64_t kLargestSize = kTiB;  // more than any device copies in one go

// A unit as written after the number, lowercased, and the bytes it stands for.
struct Unit {
  std::string_view suffix;
  uint64_t bytes;
};

constexpr std::array<Unit, 14> kUnits = {{{"", 1},
                                          {"b", 1},
                                          {"k", kKiB},
                                          {"kib", kKiB},
                                          {"kb", 1000},
                                          {"m", kMiB},
                                          {"mib", kMiB},
                                          {"mb", uint64_t{1000} * 1000},
                                          {"g", kGiB},
                                          {"gib", kGiB},
                                          {"gb", uint64_t{1000} * 1000 * 1000},
                                          {"t", kTiB},
                                          {"tib", kTiB},
                                          {"tb", uint64_t{1000} * 1000 * 1000 * 1000}}};

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

std::string Lowercase(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

std::optional<uint64_t> UnitBytes(std::string_view suffix) {
  const std::string lower = Lowercase(suffix);
  for (const Unit& unit : kUnits) {
    if (unit.suffix == lower) return unit.bytes;
  }
  return std::nullopt;
}

// The number at the front of `text` (digits, optionally a fraction), and
// what follows it. Signs and exponents are not sizes people write.
struct LeadingNumber {
  double value = 0;
  std::string_view rest;
};

std::optional<LeadingNumber> ReadLeadingNumber(std::string_view text) {
  const size_t end = text.find_first_not_of("0123456789.");
  const std::string_view digits = text.substr(0, end);
  if (digits.empty() || digits.front() == '.') return std::nullopt;
  LeadingNumber number;
  const auto [stop, error] =
      std::from_chars(digits.data(), digits.data() + digits.size(), number.value);
  if (error != std::errc() || stop != digits.data() + digits.size()) return std::nullopt;
  number.rest = end == std::string_view::npos ? std::string_view() : text.substr(end);
  return number;
}

Error SizeError(std::string_view text, std::string_view why) {
  return Error(ErrorCode::kInvalidArgument, fmt::format("invalid size \"{}\": {}", text, why));
}

// One "FROM:TO" or "FROM:TO:xN" range of a size list, appended to `sizes`.
Expected<void> AppendRange(std::string_view item, std::vector<uint64_t>& sizes) {
  const size_t first_colon = item.find(':');
  const std::string_view from_text = item.substr(0, first_colon);
  std::string_view to_text = item.substr(first_colon + 1);
  uint64_t factor = 2;
  if (const size_t second_colon = to_text.find(':'); second_colon != std::string_view::npos) {
    const std::string_view step = Trim(to_text.substr(second_colon + 1));
    to_text = to_text.substr(0, second_colon);
    const bool has_x = !step.empty() && (step.front() == 'x' || step.front() == 'X');
    const std::string_view digits = has_x ? step.substr(1) : std::string_view();
    const auto [stop, error] =
        std::from_chars(digits.data(), digits.data() + digits.size(), factor);
    if (!has_x || digits.empty() || error != std::errc() || stop != digits.data() + digits.size() ||
        factor < 2) {
      return tl::unexpected(
          SizeError(item, fmt::format(R"(the step "{}" is not a factor like "x2" or "x4")", step)));
    }
  }
  const Expected<uint64_t> from = ParseByteSize(from_text);
  if (!from) return tl::unexpected(from.error());
  const Expected<uint64_t> to = ParseByteSize(to_text);
  if (!to) return tl::unexpected(to.error());
  if (*from > *to) {
    return tl::unexpected(SizeError(item, "the range starts above where it ends"));
  }
  // The next size would be size * factor; comparing with *to / factor
  // instead keeps a huge factor from overflowing.
  for (uint64_t size = *from;; size *= factor) {
    sizes.push_back(size);
    if (size > *to / factor) break;
  }
  return {};
}

}  // namespace

Expected<uint64_t> ParseByteSize(std::string_view text) {
  const std::string_view trimmed = Trim(text);
  if (trimmed.empty()) return tl::unexpected(SizeError(text, "empty"));
  const std::optional<LeadingNumber> number = ReadLeadingNumber(trimmed);
  if (!number) {
    return tl::unexpected(SizeError(text, "expected a number of bytes, e.g. 4096, 4KiB or 64MiB"));
  }
  const std::string_view suffix = Trim(number->rest);
  const std::optional<uint64_t> unit = UnitBytes(suffix);
  if (!unit) {
    return tl::unexpected(
        SizeError(text, fmt::format("unknown unit \"{}\" (binary: K, KiB, M, MiB, G, GiB, T, TiB; "
                                    "decimal: kB, MB, GB, TB)",
                                    suffix)));
  }
  const double bytes = number->value * static_cast<double>(*unit);
  if (bytes > static_cast<double>(kLargestSize)) {
    return tl::unexpected(SizeError(text, "larger than the largest size, 1 TiB"));
  }
  if (bytes != std::floor(bytes)) {
    return tl::unexpected(SizeError(text, "not a whole number of bytes"));
  }
  if (bytes == 0) return tl::unexpected(SizeError(text, "a size must be at least 1 byte"));
  return static_cast<uint64_t>(bytes);
}

Expected<std::vector<uint64_t>> ParseSizeList(std::string_view text) {
  std::vector<uint64_t> sizes;
  std::string_view rest = text;
  while (true) {
    const size_t comma = rest.find(',');
    const std::string_view item = Trim(rest.substr(0, comma));
    if (item.empty()) {
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("invalid size list \"{}\": an empty entry", text));
    }
    if (item.find(':') != std::string_view::npos) {
      if (Expected<void> range = AppendRange(item, sizes); !range) {
        return tl::unexpected(range.error());
      }
    } else {
      const Expected<uint64_t> size = ParseByteSize(item);
      if (!size) return tl::unexpected(size.error());
      sizes.push_back(*size);
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

std::string FormatByteSize(uint64_t bytes) {
  constexpr std::array<Unit, 4> kPrintedUnits = {
      {{"TiB", kTiB}, {"GiB", kGiB}, {"MiB", kMiB}, {"KiB", kKiB}}};
  for (const Unit& unit : kPrintedUnits) {
    if (bytes < unit.bytes) continue;
    std::string number =
        fmt::format("{:.1f}", static_cast<double>(bytes) / static_cast<double>(unit.bytes));
    if (number.ends_with(".0")) number.resize(number.size() - 2);
    return fmt::format("{} {}", number, unit.suffix);
  }
  return fmt::format("{} B", bytes);
}

Expected<double> ParsePercentage(std::string_view text) {
  std::string_view number = Trim(text);
  if (number.ends_with('%')) number = Trim(number.substr(0, number.size() - 1));
  double percent = 0;
  const auto [stop, error] = std::from_chars(number.data(), number.data() + number.size(), percent);
  if (number.empty() || error != std::errc() || stop != number.data() + number.size() ||
      !std::isfinite(percent)) {
    return Fail(
        ErrorCode::kInvalidArgument,
        fmt::format("invalid percentage \"{}\": expected a number such as 10% or 2.5%", text));
  }
  if (percent < 0 || percent >= 100) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("invalid percentage \"{}\": must be at least 0% and below 100%", text));
  }
  return percent / 100;
}

}  // namespace sectl
