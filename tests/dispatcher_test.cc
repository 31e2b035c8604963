// The one dispatch point and its journal.
#include "host/dispatcher.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "host/journal.h"
#include "host/platform.h"
#include "host/table_access.h"

namespace sectl::host {
namespace {

using abi::PluginFunction;

// The function a call is journalled as comes from the member called.
static_assert(abi::kFunctionOf<&SP_StreamExecutor::allocate> == PluginFunction::kAllocate);
static_assert(abi::kFunctionOf<&SP_PlatformFns::create_device> == PluginFunction::kCreateDevice);
static_assert(abi::kFunctionOf<&SP_TimerFns::nanoseconds> == PluginFunction::kNanoseconds);
static_assert(abi::kFunctionOf<&SE_PlatformRegistrationParams::destroy_platform_fns> ==
              PluginFunction::kDestroyPlatformFns);
static_assert(!abi::IsPluginFunction(abi::kFunctionOf<&SP_Device::struct_size>));

void CreatesStream(const SP_Device* /*device*/, SP_Stream* /*stream*/, TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
}
void RecordFails(const SP_Device* /*device*/, SP_Stream /*stream*/, SP_Event /*event*/,
                 TF_Status* status) {
  TF_SetStatus(status, TF_INTERNAL, "boom");
}
int64_t ReturnsBandwidth(const SP_Device* device) { return int64_t{device->ordinal} * 1000; }
void Throws(const SP_Device* /*device*/, TF_Status* /*status*/) {
  throw std::runtime_error("C++ exception in plugin");
}
void InitFails(SE_PlatformRegistrationParams* /*params*/, TF_Status* status) {
  TF_SetStatus(status, TF_FAILED_PRECONDITION, "no");
}
int32_t HookReturnsSeven(void* /*context*/) { return 7; }

TEST(Dispatcher, JournalsEveryCallWithItsStatusAndResult) {
  Journal journal;
  Dispatcher dispatch(journal);
  SP_Device device{};
  device.ordinal = 5;
  SP_StreamExecutor stream_executor{};
  stream_executor.create_stream = &CreatesStream;
  SP_DeviceFns device_fns{};
  device_fns.get_memory_bandwidth = &ReturnsBandwidth;
  EXPECT_TRUE(dispatch.CallWithStatus<&SP_StreamExecutor::create_stream>(stream_executor, &device,
                                                                         nullptr));
  auto bandwidth = dispatch.Call<&SP_DeviceFns::get_memory_bandwidth>(device_fns, &device);
  ASSERT_TRUE(bandwidth.has_value());
  EXPECT_EQ(*bandwidth, 5000);

  const auto entries = journal.Entries();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].function, PluginFunction::kCreateStream);
  EXPECT_EQ(entries[0].state, CallState::kReturned);
  EXPECT_EQ(entries[0].status_code, TF_OK);
  EXPECT_EQ(entries[0].arguments[0], reinterpret_cast<uintptr_t>(&device));
  EXPECT_EQ(entries[1].function, PluginFunction::kGetMemoryBandwidth);
  EXPECT_EQ(entries[1].result, 5000);
  EXPECT_EQ(entries[1].status_code, kNoStatus);
  EXPECT_LT(entries[0].sequence, entries[1].sequence);
  EXPECT_NE(DescribeEntry(entries[0]).find("SP_StreamExecutor.create_stream(0x"),
            std::string::npos);
}

TEST(Dispatcher, PluginStatusBecomesAnErrorNamingTheFunction) {
  Journal journal;
  Dispatcher dispatch(journal);
  SP_StreamExecutor stream_executor{};
  stream_executor.record_event = &RecordFails;
  auto result = dispatch.CallWithStatus<&SP_StreamExecutor::record_event>(
      stream_executor, static_cast<const SP_Device*>(nullptr), SP_Stream{}, SP_Event{});
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().message(), "SP_StreamExecutor.record_event failed: INTERNAL: boom");
  EXPECT_EQ(journal.Entries().back().status_code, TF_INTERNAL);
}

TEST(Dispatcher, NullFunctionIsUnimplementedAndCallsNothing) {
  Journal journal;
  Dispatcher dispatch(journal);
  const SP_StreamExecutor stream_executor{};
  auto result = dispatch.CallWithStatus<&SP_StreamExecutor::block_host_until_done>(
      stream_executor, static_cast<const SP_Device*>(nullptr), SP_Stream{});
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().code(), ErrorCode::kUnimplemented);
  EXPECT_EQ(result.error().message(),
            "the plugin does not provide SP_StreamExecutor.block_host_until_done");
  EXPECT_EQ(journal.Entries().back().state, CallState::kMissing);
  EXPECT_EQ(journal.Entries().back().function, PluginFunction::kBlockHostUntilDone);
}

TEST(Dispatcher, ExceptionsAcrossTheCApiAreCaught) {
  Journal journal;
  Dispatcher dispatch(journal);
  SP_StreamExecutor stream_executor{};
  stream_executor.synchronize_all_activity = &Throws;
  auto result = dispatch.CallWithStatus<&SP_StreamExecutor::synchronize_all_activity>(
      stream_executor, static_cast<const SP_Device*>(nullptr));
  ASSERT_FALSE(result.has_value());
  EXPECT_NE(result.error().message().find("threw a C++ exception"), std::string::npos);
  EXPECT_EQ(journal.Entries().back().state, CallState::kThrew);
}

TEST(Dispatcher, TheEntryPointIsJournalledAsSeInitPlugin) {
  Journal journal;
  Dispatcher dispatch(journal);
  SE_PlatformRegistrationParams params{};
  auto result = dispatch.CallInitPlugin(&InitFails, &params);
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().message(), "SE_InitPlugin failed: FAILED_PRECONDITION: no");
  EXPECT_EQ(journal.Entries().back().function, PluginFunction::kInitPlugin);
}

TEST(Dispatcher, OnlyTvmDeviceHooksAreCalledByHookNumber) {
  Journal journal;
  Dispatcher dispatch(journal);
  const PluginFunction open = abi::TvmDeviceHooks()[2].function;
  auto result = dispatch.CallTvmDeviceHook(open, &HookReturnsSeven, nullptr);
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(*result, 7);
  EXPECT_EQ(journal.Entries().back().function, open);

  auto refused = dispatch.CallTvmDeviceHook(PluginFunction::kAllocate, &HookReturnsSeven, nullptr);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code(), ErrorCode::kInternal);
  EXPECT_EQ(journal.Entries().size(), 1u);
}

// Code outside the runtime's objects (every check, every command, this test)
// cannot make the key to the raw tables, so it cannot pick a table to call
// through: the one door is the runtime's objects and host::UnusualCalls.
static_assert(!std::is_default_constructible_v<TableAccess>);
static_assert(!std::is_invocable_v<decltype(&Platform::stream_executor), const Platform&>);

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
