// The ABI tables: historical layouts, reading a struct by its reported size,
// the plugin function catalogue and what each TensorFlow generation requires.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <string_view>

#include "abi/host_generations.h"
#include "abi/plugin_functions.h"
#include "abi/struct_layouts.h"
#include "host/guarded_struct.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

namespace sectl::abi {
namespace {

TEST(StructLayouts, CurrentLayoutsMatchTheHeader) {
  EXPECT_EQ(CurrentLayout(StructKind::kStreamExecutor).struct_size, 288u);
  EXPECT_EQ(CurrentLayout(StructKind::kPlatform).struct_size, 35u);
  EXPECT_EQ(CurrentLayout(StructKind::kPlatform).sizeof_bytes, 40u);
  EXPECT_EQ(CurrentLayout(StructKind::kDevice).struct_size, 56u);
  EXPECT_EQ(CurrentLayout(StructKind::kPlatformFns).struct_size, 88u);
  EXPECT_EQ(CurrentLayout(StructKind::kAllocatorStats).struct_size, 96u);
  for (StructKind kind : AllStructKinds()) {
    const auto& layout = CurrentLayout(kind);
    const auto& last = layout.members.back();
    EXPECT_EQ(last.offset + last.width, layout.struct_size) << layout.struct_name;
  }
}

TEST(StructLayouts, KnowsTheHistoricalSizesPluginsReport) {
  EXPECT_EQ(ReadStructSize(StructKind::kStreamExecutor, 264).verdict, SizeVerdict::kOlderKnown);
  EXPECT_EQ(ReadStructSize(StructKind::kPlatform, 33).verdict, SizeVerdict::kOlderKnown);
  EXPECT_EQ(ReadStructSize(StructKind::kPlatform, 34).verdict, SizeVerdict::kOlderKnown);
  EXPECT_EQ(ReadStructSize(StructKind::kPlatform, 35).verdict, SizeVerdict::kCurrent);
  EXPECT_EQ(ReadStructSize(StructKind::kDevice, 32).verdict, SizeVerdict::kOlderKnown);
  EXPECT_EQ(ReadStructSize(StructKind::kPlatform, 41).verdict, SizeVerdict::kIncompatible);
}

TEST(StructLayouts, ClassifiesSuspiciousSizes) {
  EXPECT_EQ(ReadStructSize(StructKind::kPlatform, 40).verdict, SizeVerdict::kSizeofInsteadOfEnd);
  EXPECT_EQ(ReadStructSize(StructKind::kPlatform, 0).verdict, SizeVerdict::kZero);
  EXPECT_EQ(ReadStructSize(StructKind::kStreamExecutor, 320).verdict, SizeVerdict::kNewer);
  EXPECT_EQ(ReadStructSize(StructKind::kStreamExecutor, 200).verdict, SizeVerdict::kUnknown);
  EXPECT_NE(
      ReadStructSize(StructKind::kStreamExecutor, 264).Describe().find("host_callback at 256"),
      std::string::npos);
}

TF_Bool FakeHostCallback(const SP_Device*, SP_Stream, SE_StatusCallbackFn, void*) { return 1; }
void FakeSynchronize(const SP_Device*, TF_Status*) {}

TEST(StructLayouts, ReadsTheLegacyStreamExecutorAtItsOwnOffsets) {
  // A 264-byte plugin puts host_callback where the current layout has mem_zero.
  SP_StreamExecutor legacy{};
  legacy.struct_size = 264;
  legacy.synchronize_all_activity = FakeSynchronize;
  auto* host_callback = &FakeHostCallback;
  std::memcpy(reinterpret_cast<unsigned char*>(&legacy) + 256, &host_callback,
              sizeof(host_callback));

  SP_StreamExecutor decoded{};
  DecodeToCurrentLayout(ReadStructSize(StructKind::kStreamExecutor, 264), &legacy, sizeof(legacy),
                        &decoded);
  EXPECT_EQ(decoded.host_callback, &FakeHostCallback);
  EXPECT_EQ(decoded.mem_zero, nullptr);
  EXPECT_EQ(decoded.synchronize_all_activity, &FakeSynchronize);
  EXPECT_EQ(decoded.struct_size, 264u);
}

TEST(StructLayouts, LeavesMembersBeyondTheReportedSizeAbsent) {
  SP_Platform platform{};
  platform.struct_size = 33;
  platform.supports_unified_memory = 1;
  platform.use_bfc_allocator = 1;  // beyond the 33 bytes the plugin claims
  SP_Platform decoded{};
  DecodeToCurrentLayout(ReadStructSize(StructKind::kPlatform, 33), &platform, sizeof(platform),
                        &decoded);
  EXPECT_EQ(decoded.supports_unified_memory, 1);
  EXPECT_EQ(decoded.use_bfc_allocator, 0);
}

TEST(PluginFunctions, CatalogueCoversEveryFunctionPointer) {
  EXPECT_EQ(FunctionsOf("SP_StreamExecutor").size(), (288u - 16u) / 8u);
  EXPECT_EQ(FunctionsOf("SP_PlatformFns").size(), (88u - 16u) / 8u);
  EXPECT_EQ(FunctionsOf("SP_DeviceFns").size(), 3u);
  EXPECT_EQ(FunctionsOf("SP_TimerFns").size(), 1u);
  EXPECT_EQ(QualifiedName(PluginFunction::kHostCallback), "SP_StreamExecutor.host_callback");
  EXPECT_EQ(InfoOf(PluginFunction::kHostCallback).offset, 280u);
  EXPECT_EQ(QualifiedName(PluginFunction::kInitPlugin), "SE_InitPlugin");
}

// A name handed out before the TVM devices are named stays valid and
// unchanged (a report may still hold it); later ones carry the new name.
TEST(PluginFunctions, TvmHookNamesHandedOutEarlierStayValid) {
  const std::string_view before = QualifiedName(PluginFunction::kTvmDevice0Open);
  const std::string before_text(before);
  SetTvmDeviceNames("Woofles", "Bark");
  EXPECT_EQ(before, before_text);
  EXPECT_EQ(QualifiedName(PluginFunction::kTvmDevice0Open), "TVMDeviceWooflesOpen");
  EXPECT_EQ(QualifiedName(PluginFunction::kTvmDevice1Open), "TVMDeviceBarkOpen");
  const std::string_view woofles = QualifiedName(PluginFunction::kTvmDevice0Open);
  SetTvmDeviceNames("Other", "Bark");
  EXPECT_EQ(woofles, "TVMDeviceWooflesOpen");
  EXPECT_EQ(QualifiedName(PluginFunction::kTvmDevice0Open), "TVMDeviceOtherOpen");
}

TEST(HostGenerations, TimersAreRequiredOnlyByOlderHosts) {
  const auto old_host = *FindHostGeneration("2.5");
  const auto& latest = LatestHostGeneration();
  EXPECT_EQ(RequirementOf(PluginFunction::kCreateTimer, old_host, false), Requirement::kValidated);
  EXPECT_EQ(RequirementOf(PluginFunction::kCreateTimer, latest, false), Requirement::kUnused);
  EXPECT_EQ(RequirementOf(PluginFunction::kDestroyTimerFns, latest, false),
            Requirement::kCalledUnconditionally);
  EXPECT_EQ(RequirementOf(PluginFunction::kMemZero, old_host, false), Requirement::kUnused);
  EXPECT_EQ(RequirementOf(PluginFunction::kMemZero, latest, false), Requirement::kValidated);
  EXPECT_EQ(old_host.stream_executor_struct_size, 264u);
}

TEST(HostGenerations, UnifiedMemoryIsRequiredOnlyWhenAdvertised) {
  const auto& latest = LatestHostGeneration();
  EXPECT_EQ(RequirementOf(PluginFunction::kUnifiedMemoryAllocate, latest, true),
            Requirement::kValidated);
  EXPECT_EQ(RequirementOf(PluginFunction::kUnifiedMemoryAllocate, latest, false),
            Requirement::kOptional);
  EXPECT_EQ(RequirementOf(PluginFunction::kMemcpyDtoD, latest, false),
            Requirement::kCalledUnconditionally);
  EXPECT_EQ(TensorFlowMissingMemberMessage(PluginFunction::kHostCallback),
            "'host_callback' field in SP_StreamExecutor must be set.");
  EXPECT_FALSE(FindHostGeneration("3.0").has_value());
}

}  // namespace
}  // namespace sectl::abi

// A write past the end is described by the bytes written and where they
// end, not only by how far past the end the last one lies.
TEST(GuardedStruct, SaysWhichBytesPastTheEndWereWritten) {
  constexpr size_t kOlderHost = 264;
  sectl::host::GuardedStruct<SP_StreamExecutor> older(kOlderHost, kOlderHost);
  EXPECT_TRUE(older.WrittenPastEnd().empty());
  // A plugin that sets only host_callback, at today's offset 280.
  auto* bytes = reinterpret_cast<unsigned char*>(older.get());
  std::memset(bytes + 280, 0x11, 8);
  const sectl::host::WritePastEnd written = older.WrittenPastEnd();
  EXPECT_EQ(written.first, 280u);
  EXPECT_EQ(written.end, 288u);
  EXPECT_EQ(written.bytes(), 8u);
}
