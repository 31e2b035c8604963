// The one dispatch point and its journal.
#include "host/dispatcher.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "host/journal.h"

namespace sectl::host {
namespace {

using abi::PluginFunction;

void SetsInternal(int /*value*/, TF_Status* status) { TF_SetStatus(status, TF_INTERNAL, "boom"); }
void SetsOk(int /*value*/, TF_Status* status) { TF_SetStatus(status, TF_OK, ""); }
int64_t ReturnsBandwidth(int value) { return int64_t{value} * 1000; }
void Throws(TF_Status*) { throw std::runtime_error("C++ exception in plugin"); }

TEST(Dispatcher, JournalsEveryCallWithItsStatusAndResult) {
  Journal journal;
  Dispatcher dispatch(journal);
  EXPECT_TRUE(dispatch.InvokeWithStatus(PluginFunction::kCreateStream, &SetsOk, 7));
  auto bandwidth = dispatch.Invoke(PluginFunction::kGetMemoryBandwidth, &ReturnsBandwidth, 5);
  ASSERT_TRUE(bandwidth.has_value());
  EXPECT_EQ(*bandwidth, 5000);

  const auto entries = journal.Entries();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].function, PluginFunction::kCreateStream);
  EXPECT_EQ(entries[0].state, CallState::kReturned);
  EXPECT_EQ(entries[0].status_code, TF_OK);
  EXPECT_EQ(entries[0].arguments[0], 7u);
  EXPECT_EQ(entries[1].result, 5000);
  EXPECT_EQ(entries[1].status_code, kNoStatus);
  EXPECT_LT(entries[0].sequence, entries[1].sequence);
  EXPECT_NE(DescribeEntry(entries[0]).find("SP_StreamExecutor.create_stream(7, "),
            std::string::npos);
}

TEST(Dispatcher, PluginStatusBecomesAnErrorNamingTheFunction) {
  Journal journal;
  Dispatcher dispatch(journal);
  auto result = dispatch.InvokeWithStatus(PluginFunction::kRecordEvent, &SetsInternal, 1);
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().message(), "SP_StreamExecutor.record_event failed: INTERNAL: boom");
  EXPECT_EQ(journal.Entries().back().status_code, TF_INTERNAL);
}

TEST(Dispatcher, NullFunctionIsUnimplementedAndCallsNothing) {
  Journal journal;
  Dispatcher dispatch(journal);
  void (*missing)(int, TF_Status*) = nullptr;
  auto result = dispatch.InvokeWithStatus(PluginFunction::kBlockHostUntilDone, missing, 1);
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().code(), ErrorCode::kUnimplemented);
  EXPECT_EQ(journal.Entries().back().state, CallState::kMissing);
}

TEST(Dispatcher, ExceptionsAcrossTheCApiAreCaught) {
  Journal journal;
  Dispatcher dispatch(journal);
  auto result = dispatch.InvokeWithStatus(PluginFunction::kSynchronizeAllActivity, &Throws);
  ASSERT_FALSE(result.has_value());
  EXPECT_NE(result.error().message().find("threw a C++ exception"), std::string::npos);
  EXPECT_EQ(journal.Entries().back().state, CallState::kThrew);
}

TEST(Journal, KeepsTheNewestCallsAndFindsTheOneThatNeverReturned) {
  Journal journal;
  for (size_t i = 0; i < kJournalCapacity + 10; ++i) {
    auto* entry = journal.Begin(PluginFunction::kAllocate, {i}, 1);
    journal.Finish(entry, CallState::kReturned, kNoStatus, 0);
  }
  journal.Begin(PluginFunction::kSynchronizeAllActivity, {}, 0);  // never finished
  const auto entries = journal.Entries();
  EXPECT_EQ(entries.size(), kJournalCapacity);
  EXPECT_EQ(entries.back().function, PluginFunction::kSynchronizeAllActivity);
  auto unfinished = journal.LastUnfinished();
  ASSERT_TRUE(unfinished.has_value());
  EXPECT_EQ(unfinished->sequence, kJournalCapacity + 11);
  EXPECT_NE(DescribeEntry(*unfinished).find("never returned"), std::string::npos);
  EXPECT_EQ(journal.call_count(), kJournalCapacity + 11);
}

}  // namespace
}  // namespace sectl::host
