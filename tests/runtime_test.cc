// The embedded host runtime against both reference plugins: registration,
// devices, memory, copies, fills, streams, events, callbacks, timers and
// TensorFlow's teardown order, plus reading an older plugin's layout.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <numeric>
#include <thread>
#include <vector>

#include "host/device.h"
#include "host/event.h"
#include "host/platform.h"
#include "host/stream.h"
#include "host/timer.h"
#include "loader/plugin_library.h"
#include "sectl_process.h"

namespace sectl::host {
namespace {

using abi::PluginFunction;

// A registered plugin with one device, torn down in TensorFlow's order.
class RuntimeTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { Load(testing::ReferencePlugin(GetParam())); }
  void Load(const std::string& path, const PlatformOptions& options = {}) {
    auto library = loader::PluginLibrary::Open(path, {});
    ASSERT_TRUE(library.has_value()) << library.error().message();
    library_ = std::make_unique<loader::PluginLibrary>(std::move(*library));
    auto platform = Platform::Create(*library_, journal_, options);
    ASSERT_TRUE(platform.has_value()) << platform.error().message();
    platform_ = std::move(*platform);
    auto device = platform_->CreateDevice(0);
    ASSERT_TRUE(device.has_value()) << device.error().message();
    device_ = std::move(*device);
  }
  void TearDown() override {
    device_.reset();
    platform_.reset();
  }
  std::unique_ptr<Stream> NewStream() {
    auto stream = device_->CreateStream();
    EXPECT_TRUE(stream.has_value()) << stream.error().message();
    return stream ? std::move(*stream) : nullptr;
  }
  DeviceMemory NewMemory(uint64_t size) {
    auto memory = device_->Allocate(size);
    EXPECT_TRUE(memory.has_value()) << memory.error().message();
    return memory ? std::move(*memory) : DeviceMemory();
  }

  Journal journal_;
  std::unique_ptr<loader::PluginLibrary> library_;
  std::unique_ptr<Platform> platform_;
  std::unique_ptr<Device> device_;
};

std::vector<unsigned char> Pattern(size_t size, unsigned seed) {
  std::vector<unsigned char> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<unsigned char>((i * 131 + seed) & 0xFF);
  return bytes;
}

TEST_P(RuntimeTest, RegistersWithoutErrorFindings) {
  EXPECT_FALSE(platform_->name().empty());
  EXPECT_FALSE(platform_->findings().HasErrors());
  for (const auto& finding : platform_->findings().all()) ADD_FAILURE() << finding.message;
  auto count = platform_->DeviceCount();
  ASSERT_TRUE(count.has_value());
  EXPECT_GE(*count, 1);
  EXPECT_EQ(device_->reported_ordinal(), 0);
  EXPECT_NE(device_->device_handle(), nullptr);
}

TEST_P(RuntimeTest, OutOfRangeOrdinalFailsCleanly) {
  auto count = platform_->DeviceCount();
  ASSERT_TRUE(count.has_value());
  auto device = platform_->CreateDevice(*count);
  ASSERT_FALSE(device.has_value());
  EXPECT_EQ(device.error().code(), ErrorCode::kPluginError);
}

TEST_P(RuntimeTest, AllocationsAreAlignedSizedAndAccounted) {
  auto before = device_->QueryAllocatorStats();
  ASSERT_TRUE(before.has_value() && before->has_value());
  std::vector<DeviceMemory> blocks;
  for (uint64_t size : {1u, 63u, 4096u, 1u << 20}) {
    blocks.push_back(NewMemory(size));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(blocks.back().opaque()) % 64, 0u);
    EXPECT_EQ(blocks.back().size(), size);
  }
  auto during = device_->QueryAllocatorStats();
  EXPECT_GE((*during)->bytes_in_use - (*before)->bytes_in_use, int64_t{(1 << 20) + 4096 + 63 + 1});
  auto usage = device_->QueryMemoryUsage();
  ASSERT_TRUE(usage.has_value());
  EXPECT_LE(usage->free_bytes, usage->total_bytes);
  blocks.clear();
  auto after = device_->QueryAllocatorStats();
  EXPECT_EQ((*after)->bytes_in_use, (*before)->bytes_in_use);
}

TEST_P(RuntimeTest, AsyncCopiesRoundTripAtOffsets) {
  constexpr uint64_t kSize = 100'003;  // odd, page-crossing
  auto stream = NewStream();
  auto first = NewMemory(kSize + 128);
  auto second = NewMemory(kSize + 128);
  const auto source = Pattern(kSize, 7);
  std::vector<unsigned char> back(kSize, 0);
  ASSERT_TRUE(stream->MemcpyHtoD(first.Slice(64, kSize), source.data(), kSize));
  ASSERT_TRUE(stream->MemcpyDtoD(second.Slice(32, kSize), first.Slice(64, kSize), kSize));
  ASSERT_TRUE(stream->MemcpyDtoH(back.data(), second.Slice(32, kSize), kSize));
  ASSERT_TRUE(stream->BlockHostUntilDone());
  EXPECT_EQ(back, source);
  EXPECT_TRUE(stream->Status());
}

TEST_P(RuntimeTest, SyncCopiesRoundTrip) {
  constexpr uint64_t kSize = 4097;
  auto memory = NewMemory(kSize);
  const auto source = Pattern(kSize, 3);
  std::vector<unsigned char> back(kSize, 0);
  ASSERT_TRUE(device_->SyncMemcpyHtoD(memory.base(), source.data(), kSize));
  ASSERT_TRUE(device_->SyncMemcpyDtoH(back.data(), memory.base(), kSize));
  EXPECT_EQ(back, source);
}

TEST_P(RuntimeTest, FillsWriteExactlyTheirRange) {
  auto stream = NewStream();
  auto memory = NewMemory(64);
  std::vector<unsigned char> ones(64, 0xFF);
  ASSERT_TRUE(stream->MemcpyHtoD(memory.base(), ones.data(), 64));
  ASSERT_TRUE(stream->MemZero(memory.Slice(0, 8), 8));
  ASSERT_TRUE(stream->Memset8(memory.Slice(8, 8), 0x5A, 8));
  ASSERT_TRUE(stream->Memset32(memory.Slice(16, 16), 0xA1B2C3D4u, 16));
  std::vector<unsigned char> back(64, 0);
  ASSERT_TRUE(stream->MemcpyDtoH(back.data(), memory.base(), 64));
  ASSERT_TRUE(stream->BlockHostUntilDone());
  for (int i = 0; i < 8; ++i) EXPECT_EQ(back[i], 0x00);
  for (int i = 8; i < 16; ++i) EXPECT_EQ(back[i], 0x5A);
  uint32_t words[4];
  std::memcpy(words, back.data() + 16, sizeof(words));
  for (uint32_t word : words) EXPECT_EQ(word, 0xA1B2C3D4u);
  for (int i = 32; i < 64; ++i) EXPECT_EQ(back[i], 0xFF);
}

TEST_P(RuntimeTest, EventsCompleteAfterTheStreamReachesThem) {
  auto stream = NewStream();
  auto event = device_->CreateEvent();
  ASSERT_TRUE(event.has_value());
  ASSERT_TRUE(stream->RecordEvent(**event));
  ASSERT_TRUE((*event)->BlockHost());
  auto status = (*event)->Status();
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(*status, SE_EVENT_COMPLETE);
}

TEST_P(RuntimeTest, HostCallbacksRunExactlyOnceInOrder) {
  auto stream = NewStream();
  std::vector<int> order;
  std::vector<std::shared_ptr<const HostCallbackRecord>> records;
  for (int i = 0; i < 20; ++i) {
    auto record = stream->EnqueueHostCallback([&order, i](TF_Status*) { order.push_back(i); });
    ASSERT_TRUE(record.has_value()) << record.error().message();
    records.push_back(*record);
  }
  ASSERT_TRUE(stream->BlockHostUntilDone());
  std::vector<int> expected(20);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(order, expected);
  for (const auto& record : records) EXPECT_EQ(record->calls.load(), 1);
}

TEST_P(RuntimeTest, FailingHostCallbackReachesTheStreamStatus) {
  auto stream = NewStream();
  auto record = stream->EnqueueHostCallback(
      [](TF_Status* status) { TF_SetStatus(status, TF_DATA_LOSS, "callback failed on purpose"); });
  ASSERT_TRUE(record.has_value());
  (void)stream->BlockHostUntilDone();
  auto status = stream->Status();
  ASSERT_FALSE(status.has_value());
  EXPECT_NE(status.error().message().find("DATA_LOSS"), std::string::npos);
  EXPECT_NE(status.error().message().find("callback failed on purpose"), std::string::npos);
}

TEST_P(RuntimeTest, TeardownFollowsTensorFlowsOrder) {
  device_.reset();
  platform_.reset();
  std::vector<PluginFunction> destroys;
  for (const auto& entry : journal_.Entries()) {
    const auto name = abi::InfoOf(entry.function).member;
    if (name.starts_with("destroy_device") || name.starts_with("destroy_stream_executor") ||
        name.starts_with("destroy_timer_fns") || name.starts_with("destroy_platform")) {
      destroys.push_back(entry.function);
    }
  }
  std::vector<PluginFunction> expected = {
      PluginFunction::kDestroyDevice,         PluginFunction::kDestroyDeviceFns,
      PluginFunction::kDestroyStreamExecutor, PluginFunction::kDestroyTimerFns,
      PluginFunction::kDestroyPlatform,       PluginFunction::kDestroyPlatformFns};
  EXPECT_EQ(destroys, expected);
}

INSTANTIATE_TEST_SUITE_P(ReferencePlugins, RuntimeTest,
                         ::testing::Values("sectl_cpu", "sectl_minimal"));

class CpuRuntimeTest : public RuntimeTest {};

TEST_P(CpuRuntimeTest, StreamDependencyOrdersTwoStreams) {
  auto slow = NewStream();
  auto dependent = NewStream();
  std::atomic<bool> slow_done{false};
  bool seen_done = false;
  ASSERT_TRUE(slow->EnqueueHostCallback([&](TF_Status*) {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    slow_done = true;
  }));
  ASSERT_TRUE(dependent->WaitFor(*slow));
  ASSERT_TRUE(dependent->EnqueueHostCallback([&](TF_Status*) { seen_done = slow_done.load(); }));
  ASSERT_TRUE(dependent->BlockHostUntilDone());
  EXPECT_TRUE(seen_done);
}

TEST_P(CpuRuntimeTest, TimersMeasureExecutionNotEnqueue) {
  auto stream = NewStream();
  auto timer = device_->CreateTimer();
  ASSERT_TRUE(timer.has_value()) << timer.error().message();
  ASSERT_TRUE((*timer)->Start(*stream));
  ASSERT_TRUE(stream->EnqueueHostCallback(
      [](TF_Status*) { std::this_thread::sleep_for(std::chrono::milliseconds(20)); }));
  ASSERT_TRUE((*timer)->Stop(*stream));
  ASSERT_TRUE(stream->BlockHostUntilDone());
  auto nanoseconds = (*timer)->Nanoseconds();
  ASSERT_TRUE(nanoseconds.has_value());
  EXPECT_GE(*nanoseconds, 15'000'000u);
  EXPECT_LT(*nanoseconds, 2'000'000'000u);
}

TEST_P(CpuRuntimeTest, OlderHostGetsTheOlderLayoutWithNothingWrittenPastIt) {
  device_.reset();
  platform_.reset();
  Load(testing::ReferencePlugin("sectl_cpu"), {.generation = *abi::FindHostGeneration("2.5")});
  EXPECT_FALSE(platform_->findings().HasErrors());
  for (const auto& finding : platform_->findings().all()) {
    EXPECT_EQ(finding.id.find("overrun"), std::string::npos) << finding.message;
  }
  EXPECT_TRUE(platform_->Provides(PluginFunction::kHostCallback));
  EXPECT_FALSE(platform_->Provides(PluginFunction::kMemZero));
  auto stream = NewStream();
  auto record = stream->EnqueueHostCallback([](TF_Status*) {});
  ASSERT_TRUE(record.has_value());
  ASSERT_TRUE(stream->BlockHostUntilDone());
  EXPECT_EQ((*record)->calls.load(), 1);
}

INSTANTIATE_TEST_SUITE_P(CpuPlugin, CpuRuntimeTest, ::testing::Values("sectl_cpu"));

TEST(LegacyLayout, HostCallbackIsReadFromOffset256) {
  Journal journal;
  auto library = loader::PluginLibrary::Open(testing::FixturePlugin("legacy_layout"), {});
  ASSERT_TRUE(library.has_value()) << library.error().message();
  auto platform = Platform::Create(*library, journal);
  ASSERT_TRUE(platform.has_value());
  EXPECT_TRUE((*platform)->Provides(PluginFunction::kHostCallback));
  EXPECT_FALSE((*platform)->Provides(PluginFunction::kMemZero));
  {
    auto device = (*platform)->CreateDevice(0);
    ASSERT_TRUE(device.has_value());
    auto stream = (*device)->CreateStream();
    ASSERT_TRUE(stream.has_value());
    auto record = (*stream)->EnqueueHostCallback([](TF_Status*) {});
    ASSERT_TRUE(record.has_value()) << record.error().message();
    EXPECT_EQ((*record)->calls.load(), 1);
  }
}

TEST(MinimalPlugin, DeclinesAnOlderHostCleanly) {
  Journal journal;
  auto library = loader::PluginLibrary::Open(testing::ReferencePlugin("sectl_minimal"), {});
  ASSERT_TRUE(library.has_value());
  auto platform =
      Platform::Create(*library, journal, {.generation = *abi::FindHostGeneration("2.5")});
  ASSERT_TRUE(platform.has_value());
  bool declined = false;
  for (const auto& finding : (*platform)->findings().all()) {
    EXPECT_EQ(finding.id.find("overrun"), std::string::npos) << finding.message;
    if (finding.id == "platform.create_stream_executor.failed") declined = true;
  }
  EXPECT_TRUE(declined);
}

}  // namespace
}  // namespace sectl::host
