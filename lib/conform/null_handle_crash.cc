#include "conform/null_handle_crash.h"

#include <fmt/format.h>

#include <array>
#include <vector>

namespace sectl::conform {
namespace {

using abi::PluginFunction;

// A handle argument: its position among the recorded arguments, and the
// function that creates such handles.
struct HandleArgument {
  size_t position;
  PluginFunction creator;
};

struct HandleUse {
  PluginFunction function;
  std::vector<HandleArgument> handles;
};

// The functions whose only plugin-made arguments are handles, with where
// each handle is (host::Dispatcher records arguments in order; the device
// comes first). Copies and fills also take device memory, and are left out.
const std::vector<HandleUse>& HandleUses() {
  using enum PluginFunction;
  constexpr HandleArgument kStreamSecond{1, kCreateStream};
  static const std::vector<HandleUse> uses = {
      {kNanoseconds, {{0, kCreateTimer}}},
      {kStartTimer, {kStreamSecond, {2, kCreateTimer}}},
      {kStopTimer, {kStreamSecond, {2, kCreateTimer}}},
      {kDestroyTimer, {{1, kCreateTimer}}},
      {kGetEventStatus, {{1, kCreateEvent}}},
      {kBlockHostForEvent, {{1, kCreateEvent}}},
      {kDestroyEvent, {{1, kCreateEvent}}},
      {kRecordEvent, {kStreamSecond, {2, kCreateEvent}}},
      {kWaitForEvent, {kStreamSecond, {2, kCreateEvent}}},
      {kDestroyStream, {kStreamSecond}},
      {kGetStreamStatus, {kStreamSecond}},
      {kBlockHostUntilDone, {kStreamSecond}},
      {kCreateStreamDependency, {kStreamSecond, {2, kCreateStream}}},
      {kHostCallback, {kStreamSecond}},
  };
  return uses;
}

// The newest call of `creator` before `before` that returned OK, if the
// journal still has one.
std::optional<host::JournalEntry> LastSuccessfulCall(const std::vector<host::JournalEntry>& entries,
                                                     PluginFunction creator, uint64_t before) {
  std::optional<host::JournalEntry> found;
  for (const host::JournalEntry& entry : entries) {
    if (entry.function != creator || entry.sequence >= before ||
        entry.state != host::CallState::kReturned || entry.status_code != 0) {
      continue;
    }
    found = entry;
  }
  return found;
}

std::string_view Member(PluginFunction function) { return abi::InfoOf(function).member; }

}  // namespace

std::optional<NullHandleCrash> FindNullHandleCrash(const host::Journal& journal,
                                                   const host::JournalEntry& stuck,
                                                   std::string_view how) {
  for (const HandleUse& use : HandleUses()) {
    if (use.function != stuck.function) continue;
    const auto entries = journal.Entries();
    for (const HandleArgument& handle : use.handles) {
      if (handle.position >= stuck.argument_count || stuck.arguments[handle.position] != 0) {
        continue;
      }
      const auto created = LastSuccessfulCall(entries, handle.creator, stuck.sequence);
      if (!created) continue;
      return NullHandleCrash{
          handle.creator, stuck.function,
          fmt::format("{} {} the null handle {} returned (call #{})", Member(stuck.function), how,
                      Member(handle.creator), created->sequence)};
    }
  }
  return std::nullopt;
}

}  // namespace sectl::conform
