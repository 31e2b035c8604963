// A crash on a handle another function returned names both functions
// (conform/null_handle_crash.h), from what the journal recorded.
#include "conform/null_handle_crash.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>

#include "host/journal.h"

namespace sectl::conform {
namespace {

using abi::PluginFunction;

constexpr uint64_t kDevice = 0x5581c0;
constexpr int32_t kOk = 0;
constexpr int32_t kInternal = 13;

// A call that returned, with `status` left in its TF_Status.
void Returned(host::Journal& journal, PluginFunction function,
              std::array<uint64_t, host::kMaxRecordedArguments> arguments, uint8_t count,
              int32_t status = kOk) {
  host::JournalEntry* entry = journal.Begin(function, arguments, count);
  journal.Finish(entry, host::CallState::kReturned, status, 0);
}

// The call the process died in: begun, never finished.
host::JournalEntry DiedIn(host::Journal& journal, PluginFunction function,
                          std::array<uint64_t, host::kMaxRecordedArguments> arguments,
                          uint8_t count) {
  (void)journal.Begin(function, arguments, count);
  return *journal.LastUnfinished();
}

TEST(NullHandleCrash, NamesTheCreatorOfTheNullTimerAndTheFunctionThatReadIt) {
  host::Journal journal;
  Returned(journal, PluginFunction::kCreateStream, {kDevice, 0x7ffd10}, 3);
  Returned(journal, PluginFunction::kCreateTimer, {kDevice, 0x7ffd20}, 3);
  Returned(journal, PluginFunction::kStartTimer, {kDevice, 0xabc000, 0}, 4);
  const auto stuck = DiedIn(journal, PluginFunction::kNanoseconds, {0}, 1);
  const auto found = FindNullHandleCrash(journal, stuck);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->creator, PluginFunction::kCreateTimer);
  EXPECT_EQ(found->crashed, PluginFunction::kNanoseconds);
  EXPECT_EQ(found->description,
            "nanoseconds dereferenced the null handle create_timer returned "
            "(call #2)");
  // An abort or an exit without a report (an assertion, a sanitizer's
  // report) names the same two functions, saying what happened.
  const auto stopped = FindNullHandleCrash(journal, stuck, "ended the process on");
  ASSERT_TRUE(stopped);
  EXPECT_EQ(stopped->description,
            "nanoseconds ended the process on the null handle create_timer returned (call #2)");
}

TEST(NullHandleCrash, NamesTheStreamCreatorForANullStream) {
  host::Journal journal;
  Returned(journal, PluginFunction::kCreateStream, {kDevice, 0x7ffd10}, 3);
  Returned(journal, PluginFunction::kCreateEvent, {kDevice, 0x7ffd18}, 3);
  const auto stuck = DiedIn(journal, PluginFunction::kRecordEvent, {kDevice, 0, 0xe0e0, 0}, 4);
  const auto found = FindNullHandleCrash(journal, stuck);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->creator, PluginFunction::kCreateStream);
}

TEST(NullHandleCrash, BlamesOnlyTheFunctionWhenTheHandleIsSet) {
  host::Journal journal;
  Returned(journal, PluginFunction::kCreateTimer, {kDevice, 0x7ffd20}, 3);
  const auto stuck = DiedIn(journal, PluginFunction::kNanoseconds, {0xabc000}, 1);
  EXPECT_FALSE(FindNullHandleCrash(journal, stuck));
}

TEST(NullHandleCrash, BlamesOnlyTheFunctionWhenNoCreatorReturnedOk) {
  host::Journal failed;
  Returned(failed, PluginFunction::kCreateTimer, {kDevice, 0x7ffd20}, 3, kInternal);
  EXPECT_FALSE(FindNullHandleCrash(failed, DiedIn(failed, PluginFunction::kNanoseconds, {0}, 1)));

  host::Journal never_created;
  EXPECT_FALSE(FindNullHandleCrash(never_created,
                                   DiedIn(never_created, PluginFunction::kNanoseconds, {0}, 1)));
}

// A copy takes device memory too, whose defect may as well have crashed it.
TEST(NullHandleCrash, LeavesCopiesAlone) {
  host::Journal journal;
  Returned(journal, PluginFunction::kCreateStream, {kDevice, 0x7ffd10}, 3);
  const auto stuck =
      DiedIn(journal, PluginFunction::kMemcpyHtoD, {kDevice, 0, 0x7ffd40, 0x7ffd80}, 4);
  EXPECT_FALSE(FindNullHandleCrash(journal, stuck));
}

}  // namespace
}  // namespace sectl::conform
