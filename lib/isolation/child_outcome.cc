#include "isolation/child_outcome.h"

#include <fmt/format.h>

namespace sectl::isolation {

namespace {

ChildOutcome JudgeEnd(const ChildResult& child, const Confinement& confinement) {
  // Written by sectl's code before any plugin code ran, under the key.
  if (child.setup_failure) {
    return {Blame::kSectl,
            fmt::format("sectl could not confine the plugin's process: {}", *child.setup_failure)};
  }
  if (child.end == ChildEnd::kInterrupted) {
    return {Blame::kSectl, fmt::format("sectl was interrupted by {} and ended the plugin's process",
                                       SignalName(child.signal))};
  }
  const bool answered = child.end == ChildEnd::kExited &&
                        (child.exit_code == kChildReported || child.exit_code == kChildFailed) &&
                        child.reported && !child.result_channel_foreign;
  // A child that reported may have run near a limit; its report stands.
  if (answered) return {Blame::kNone, {}};
  if (auto exhaustion = DescribeExhaustion(child, confinement)) {
    return {Blame::kLimit, *exhaustion};
  }
  switch (child.end) {
    case ChildEnd::kTimedOut:
      return {Blame::kPlugin, fmt::format("did not return within {:.0f} s",
                                          static_cast<double>(child.timeout.count()) / 1e3)};
    case ChildEnd::kStopped:
      return {Blame::kPlugin,
              fmt::format("stopped itself with {} and was killed", SignalName(child.signal))};
    case ChildEnd::kSignaled:
      return {Blame::kPlugin, fmt::format("crashed with {}", SignalName(child.signal))};
    case ChildEnd::kInterrupted:
    case ChildEnd::kExited:
      break;
  }
  if (child.answer_too_large) {
    return {Blame::kPlugin,
            fmt::format("sent more than {} KiB on sectl's result channel, more than any answer of "
                        "sectl's, and sectl stopped reading it",
                        kMaxResultChannelBytes / 1024)};
  }
  if (child.result_channel_foreign) {
    return {Blame::kPlugin, "wrote to sectl's result channel"};
  }
  if (child.exit_code == kResultChannelLost && !child.reported) {
    // sectl's code exits with 121 when it finds its channel gone, and so
    // could the plugin: with no channel left, nothing tells the two apart.
    // Either way the plugin ended the process without an answer.
    return {Blame::kPlugin,
            "closed or replaced the descriptor sectl reads the child's answer from (or exited "
            "with status 121 itself)"};
  }
  if (child.exit_code == kServerChannelLost && !child.reported) {
    return {Blame::kPlugin,
            "closed or replaced the descriptor its plugin server answers sectl on: the server "
            "stopped answering without ending, and sectl ended it (or the check's process exited "
            "with status 123 itself)"};
  }
  if (child.exit_code == kServerBrokeProtocol && !child.reported) {
    return {Blame::kPlugin,
            "wrote to sectl's channel to its plugin server: the server answered what no server "
            "sends, and sectl ended it (or the check's process exited with status 124 itself)"};
  }
  return {Blame::kPlugin, fmt::format("exited with status {} without reporting", child.exit_code)};
}

}  // namespace

ChildOutcome JudgeChild(const ChildResult& child, const Confinement& confinement) {
  ChildOutcome outcome = JudgeEnd(child, confinement);
  if (child.stuck_after_kill && outcome.blame != Blame::kNone) {
    outcome.description +=
        "; killed, it did not end (a thread asleep in the kernel, where no signal reaches it: a "
        "driver or a FUSE file system that never answers), so sectl abandoned it";
  }
  return outcome;
}

}  // namespace sectl::isolation
