#include "baseline_options.h"

#include <fmt/format.h>

#include <chrono>
#include <optional>
#include <string_view>
#include <vector>

#include "base/byte_sizes.h"

namespace sectl::cuda_baseline {
namespace {

constexpr std::string_view kLatencyCommand = "latency";
// The flags only the memcpy baseline reads.
constexpr std::string_view kMemcpyFlags[] = {"--sizes", "--direction", "--host-memory",
                                             "--no-verify"};

// `text`, a comma-separated list of names `parse` knows, or `all` (every
// value of `all_values`). An unknown name is a usage error naming `flag`.
template <typename T, typename Parse>
Expected<std::vector<T>> ParseList(const std::string& text, std::string_view flag,
                                   std::string_view all, const std::vector<T>& all_values,
                                   Parse parse) {
  if (text == all) return all_values;
  std::vector<T> chosen;
  std::string_view rest = text;
  while (true) {
    const size_t comma = rest.find(',');
    const std::string_view name = rest.substr(0, comma);
    const std::optional<T> value = parse(name);
    if (!value) {
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("{} {}: unknown value \"{}\"", flag, text, name));
    }
    chosen.push_back(*value);
    if (comma == std::string_view::npos) return chosen;
    rest.remove_prefix(comma + 1);
  }
}

// Pinned or pageable: the host side of a copy, never "none".
std::optional<bench::HostMemory> ParseHostSide(std::string_view name) {
  const auto memory = bench::ParseHostMemory(name);
  if (memory == bench::HostMemory::kNone) return std::nullopt;
  return memory;
}

void DeclareCommonFlags(CLI::App& command, CommandLine& line) {
  command.add_option("--device", line.device, "CUDA device ordinal")->capture_default_str();
  command
      .add_option("--budget", line.budget_seconds,
                  "Seconds per measurement, at most, once the median is stable")
      ->capture_default_str();
  command.add_option("-o,--output", line.output,
                     "Write the JSON report to FILE (atomically) instead of stdout");
}

}  // namespace

CLI::App* DeclareCommandLine(CLI::App& app, CommandLine& line) {
  app.add_option("--sizes", line.sizes,
                 "Sizes as for sectl bench memcpy: 4KiB,1MiB or 4KiB:256MiB (doubling) or "
                 "4KiB:256MiB:x4")
      ->capture_default_str();
  app.add_option("--direction", line.directions, "h2d, d2h, d2d, a comma-separated list, or all")
      ->capture_default_str();
  app.add_option("--host-memory", line.host_memory,
                 "Host side of h2d/d2h: pinned (cudaMallocHost), pageable (plain heap memory, "
                 "as sectl bench memcpy --host-memory pageable), or both")
      ->capture_default_str();
  app.add_flag("--no-verify", line.no_verify, "Do not verify the copied data");
  DeclareCommonFlags(app, line);

  CLI::App* latency = app.add_subcommand(
      std::string(kLatencyCommand),
      "Nanoseconds per operation of the CUDA calls behind each operation `sectl bench latency` "
      "measures, measured the same way, written as a sectl latency report.");
  DeclareCommonFlags(*latency, line);
  return latency;
}

Expected<BaselineRequest> ToRequest(const CommandLine& line, const CLI::App& app) {
  if (!(line.budget_seconds > 0)) {
    return Fail(
        ErrorCode::kInvalidArgument,
        fmt::format("--budget {}: must be a positive number of seconds", line.budget_seconds));
  }
  BaselineRequest request;
  request.output = line.output;
  bench::SamplingPlan plan;
  plan.budget = std::chrono::duration<double>(line.budget_seconds);

  if (app.got_subcommand(std::string(kLatencyCommand))) {
    for (const std::string_view flag : kMemcpyFlags) {
      if (app.count(std::string(flag)) > 0) {
        return Fail(ErrorCode::kInvalidArgument,
                    fmt::format("{}: applies to the memcpy baseline, not to latency", flag));
      }
    }
    request.kind = BaselineKind::kLatency;
    request.latency.plan = plan;
    request.latency.device = line.device;
    return request;
  }

  BaselineOptions& options = request.memcpy;
  auto sizes = ParseSizeList(line.sizes);
  if (!sizes) return tl::unexpected(sizes.error().WithContext("--sizes"));
  options.sizes = std::move(*sizes);
  auto directions = ParseList<bench::Direction>(
      line.directions, "--direction", "all",
      {std::begin(bench::kAllDirections), std::end(bench::kAllDirections)}, bench::ParseDirection);
  if (!directions) return tl::unexpected(directions.error());
  options.directions = std::move(*directions);
  auto memories = ParseList<bench::HostMemory>(
      line.host_memory, "--host-memory", "both",
      {bench::HostMemory::kPinned, bench::HostMemory::kPageable}, ParseHostSide);
  if (!memories) return tl::unexpected(memories.error());
  options.host_memories = std::move(*memories);
  options.copy.plan = plan;
  options.copy.verify = !line.no_verify;
  options.device = line.device;
  return request;
}

}  // namespace sectl::cuda_baseline
