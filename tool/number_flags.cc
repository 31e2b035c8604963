#include "tool/number_flags.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <optional>
#include <string>

namespace sectl::tool {
namespace {

// `text` whole as a T, or nothing (trailing characters, overflow, empty).
template <typename T>
std::optional<T> ParseWhole(const std::string& text) {
  T value{};
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || stop != end) return std::nullopt;
  return value;
}

}  // namespace

CLI::Validator SecondsBetween(double minimum, double maximum) {
  const std::string range = fmt::format("{:.10g} to {:.10g}", minimum, maximum);
  return {[minimum, maximum, range](const std::string& text) -> std::string {
            const std::optional<double> seconds = ParseWhole<double>(text);
            if (!seconds || !std::isfinite(*seconds) || *seconds < minimum || *seconds > maximum) {
              return fmt::format("expected seconds from {}, not '{}'", range, text);
            }
            return {};
          },
          fmt::format("SECONDS in [{:.10g} - {:.10g}]", minimum, maximum), "seconds"};
}

CLI::Validator WholeNumberBetween(int64_t minimum, int64_t maximum) {
  return {[minimum, maximum](const std::string& text) -> std::string {
            const std::optional<int64_t> number = ParseWhole<int64_t>(text);
            if (!number || *number < minimum || *number > maximum) {
              return fmt::format("expected a whole number from {} to {}, not '{}'", minimum,
                                 maximum, text);
            }
            return {};
          },
          fmt::format("INT in [{} - {}]", minimum, maximum), "whole number"};
}

}  // namespace sectl::tool
