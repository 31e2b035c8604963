#include "probe/run_probe.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "host/journal.h"
#include "isolation/child_error.h"
#include "isolation/child_outcome.h"
#include "isolation/child_process.h"
#include "isolation/shared_memory.h"
#include "loader/plugin_file_pin.h"
#include "probe/probe_json.h"

namespace sectl::probe {
namespace {

using isolation::kChildFailed;
using isolation::kChildReported;

std::string PluginOutputTail(const std::string& captured) {
  constexpr size_t kTail = 200;
  const std::string& output = captured;
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
  // Hashed here, before the child exists: the child verifies it loads this
  // file, and the report's digest is not one the plugin's process wrote.
  const auto pinned = loader::PinPluginFile(options.probe.plugin_path);

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
  const isolation::ChildOutcome judged = isolation::JudgeChild(*child, options.confinement);
  switch (judged.blame) {
    case isolation::Blame::kSectl:
      return Fail(ErrorCode::kInternal, judged.description);
    case isolation::Blame::kLimit:
      return Fail(ErrorCode::kCrashed,
                  fmt::format("{}: the plugin {} {}", plugin, judged.description,
                              journal.WhereCallsStopped()));
    case isolation::Blame::kPlugin: {
      const ErrorCode code = child->end == isolation::ChildEnd::kTimedOut ? ErrorCode::kTimeout
                             : child->end == isolation::ChildEnd::kExited ? ErrorCode::kPluginError
                                                                          : ErrorCode::kCrashed;
      return Fail(code, fmt::format("{}: the plugin {} {}{}", plugin, judged.description,
                                    journal.WhereCallsStopped(), PluginOutputTail(child->output)));
    }
    case isolation::Blame::kNone:
      break;
  }
  if (child->exit_code == kChildFailed) {
    return tl::unexpected(isolation::DecodeChildError(child->result, "the probe process"));
  }
  auto report = ProbeReportFromJson(child->result);
  if (!report) return tl::unexpected(report.error().WithContext("reading the probe's report"));
  report->plugin_output = child->output;
  if (pinned) report->plugin.sha256 = pinned->sha256();
  return report;
}

}  // namespace sectl::probe
