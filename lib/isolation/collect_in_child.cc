#include "isolation/collect_in_child.h"

#include <fmt/format.h>

#include "isolation/child_error.h"
#include "isolation/child_exit_codes.h"
#include "isolation/child_outcome.h"
#include "isolation/child_process.h"

namespace sectl::isolation {

Expected<std::string> CollectInChild(const std::function<Expected<std::string>()>& collect,
                                     const CollectOptions& options) {
  auto child = RunInChildProcess(
      [&](int result_fd) {
        auto collected = collect();
        if (!collected) {
          WriteResult(result_fd, EncodeChildError(collected.error()));
          return kChildFailed;
        }
        WriteResult(result_fd, *collected);
        return kChildReported;
      },
      {.timeout = options.timeout, .confinement = options.confinement});
  if (!child) return tl::unexpected(child.error());
  const ChildOutcome judged = JudgeChild(*child, options.confinement);
  switch (judged.blame) {
    case Blame::kSectl:
      return Fail(ErrorCode::kInternal, judged.description);
    case Blame::kLimit:
    case Blame::kPlugin:
      return Fail(child->end == ChildEnd::kTimedOut ? ErrorCode::kTimeout
                  : child->end == ChildEnd::kExited ? ErrorCode::kPluginError
                                                    : ErrorCode::kCrashed,
                  fmt::format("{}: {} {}", options.plugin_path, options.doing, judged.description));
    case Blame::kNone:
      break;
  }
  if (child->exit_code != kChildReported) {
    return tl::unexpected(DecodeChildError(child->result, options.process_name));
  }
  return std::move(child->result);
}

}  // namespace sectl::isolation
