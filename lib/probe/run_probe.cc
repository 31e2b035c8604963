#include "probe/run_probe.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "host/journal.h"
#include "isolation/child_error.h"
#include "isolation/child_process.h"
#include "isolation/shared_memory.h"
#include "probe/probe_json.h"

namespace sectl::probe {
namespace {

// The child's exit codes: a report, or sectl's own error about the plugin.
constexpr int kChildReported = 0;
constexpr int kChildFailed = 3;

std::string PluginOutputTail(const std::string& captured) {
  constexpr size_t kTail = 200;
  const std::string output = isolation::SplitBacktrace(captured).plugin_output;
  std::string tail = output.size() > kTail ? output.substr(output.size() - kTail) : output;
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
  for (char& c : tail) {
    if (c == '\n') c = ' ';
  }
  return tail.empty() ? "" : fmt::format("; it printed: \"{}\"", tail);
}

Expected<ProbeReport> RunInProcess(const RunProbeOptions& options) {
  host::Journal journal;
  return CollectProbe(options.probe, journal);
}

}  // namespace

Expected<ProbeReport> RunProbe(const RunProbeOptions& options) {
  if (options.isolation == Isolation::kNone) return RunInProcess(options);

  auto region = isolation::SharedObject<host::JournalRegion>::Create();
  if (!region) return tl::unexpected(region.error());
  host::Journal journal(region->get());

  auto child = isolation::RunInChildProcess(
      [&](int result_fd) {
        auto report = CollectProbe(options.probe, journal);
        if (!report) {
          isolation::WriteResult(result_fd, isolation::EncodeChildError(report.error()));
          return kChildFailed;
        }
        isolation::WriteResult(result_fd, ProbeReportToJson(*report));
        return kChildReported;
      },
      {.timeout = options.timeout, .confinement = options.confinement});
  if (!child) return tl::unexpected(child.error());

  const std::string& plugin = options.probe.plugin_path;
  switch (child->end) {
    case isolation::ChildEnd::kTimedOut:
      return Fail(ErrorCode::kTimeout,
                  fmt::format("{}: the plugin did not return within {:.0f} s {}; it was killed",
                              plugin, static_cast<double>(options.timeout.count()) / 1e3,
                              journal.WhereCallsStopped()));
    case isolation::ChildEnd::kSignaled:
      if (auto exhaustion = isolation::DescribeExhaustion(*child, options.confinement)) {
        return Fail(ErrorCode::kCrashed, fmt::format("{}: the plugin {} {}", plugin, *exhaustion,
                                                     journal.WhereCallsStopped()));
      }
      return Fail(ErrorCode::kCrashed,
                  fmt::format("{}: the plugin crashed with {} {}{}", plugin,
                              isolation::SignalName(child->signal), journal.WhereCallsStopped(),
                              PluginOutputTail(child->output)));
    case isolation::ChildEnd::kExited:
      break;
  }
  if (child->exit_code == kChildFailed && !child->result.empty())
    return tl::unexpected(isolation::DecodeChildError(child->result, "the probe process"));
  if (child->exit_code != kChildReported || child->result.empty()) {
    return Fail(ErrorCode::kPluginError,
                fmt::format("{}: the plugin ended the process with exit status {} {}{}", plugin,
                            child->exit_code, journal.WhereCallsStopped(),
                            PluginOutputTail(child->output)));
  }
  auto report = ProbeReportFromJson(child->result);
  if (!report) return tl::unexpected(report.error().WithContext("reading the probe's report"));
  report->plugin_output = isolation::SplitBacktrace(child->output).plugin_output;
  return report;
}

}  // namespace sectl::probe
