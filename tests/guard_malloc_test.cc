// The guard-page allocator (lib/isolation/guard_malloc.h), driven directly:
// each test runs in a child process, because enabling the guard changes
// the process for good and an overrun must crash it.
#include "isolation/guard_malloc.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>

#include "isolation/child_process.h"

namespace sectl::isolation {
namespace {

constexpr uintptr_t kPage = 4096;

// A return address that is in no code mapped when the guard was enabled,
// as a plugin's is: the guard takes such callers' blocks.
const void* PluginCaller() {
  static const char kNotCode = 0;
  return &kNotCode;
}

// Runs `body` in a child with the guard on; returns how it ended.
ChildResult InGuardedChild(const std::function<int()>& body) {
  auto child = RunInChildProcess(
      [&](int /*result_fd*/) {
        if (!EnableGuardMalloc()) return 3;
        return body();
      },
      {});
  EXPECT_TRUE(child.has_value());
  return child ? *child : ChildResult{};
}

TEST(GuardMalloc, PlacesBlocksFlushAgainstTheGuardPage) {
  const ChildResult child = InGuardedChild([] {
    for (size_t size : {size_t{1}, size_t{3}, size_t{24}, size_t{4096}, size_t{5000}}) {
      auto* block = static_cast<char*>(GuardedAllocate(size, 1, PluginCaller()));
      if (block == nullptr) return 10;
      if ((reinterpret_cast<uintptr_t>(block) + size) % kPage != 0) return 11;
      std::memset(block, 0x5A, size);  // all of it is usable
      if (!GuardedFree(block)) return 12;
    }
    return 0;
  });
  EXPECT_EQ(child.end, ChildEnd::kExited) << child.output;
  EXPECT_EQ(child.exit_code, 0) << child.output;
}

TEST(GuardMalloc, HonoursAlignmentAskedFor) {
  const ChildResult child = InGuardedChild([] {
    auto* block = GuardedAllocate(100, 64, PluginCaller());
    if (block == nullptr) return 10;
    if (reinterpret_cast<uintptr_t>(block) % 64 != 0) return 11;
    return GuardedFree(block) ? 0 : 12;
  });
  EXPECT_EQ(child.exit_code, 0) << child.output;
}

TEST(GuardMalloc, LeavesSectlsOwnAllocationsAlone) {
  const ChildResult child = InGuardedChild([] {
    // This test's own code was mapped when the guard was enabled.
    const void* own_code = __builtin_return_address(0);
    return GuardedAllocate(16, 1, own_code) == nullptr ? 0 : 10;
  });
  EXPECT_EQ(child.exit_code, 0) << child.output;
}

TEST(GuardMalloc, CountsLiveBlocksAndBytes) {
  const ChildResult child = InGuardedChild([] {
    void* first = GuardedAllocate(10, 1, PluginCaller());
    void* second = GuardedAllocate(20, 1, PluginCaller());
    const GuardMallocCounters both = GuardMallocCountersNow();
    GuardedFree(first);
    const GuardMallocCounters one = GuardMallocCountersNow();
    GuardedFree(second);
    if (both.live_blocks != 2 || both.live_bytes != 30) return 10;
    if (one.live_blocks != 1 || one.live_bytes != 20) return 11;
    return GuardMallocCountersNow().live_blocks == 0 ? 0 : 12;
  });
  EXPECT_EQ(child.exit_code, 0) << child.output;
}

TEST(GuardMalloc, AnOverrunCrashesAndIsDescribedExactly) {
  const ChildResult child = InGuardedChild([] {
    auto* block = static_cast<unsigned char*>(GuardedAllocate(1, 1, PluginCaller()));
    const uint32_t four_bytes = 0x01020304;
    unsigned char* volatile target = block;  // hides the overrun from the compiler
    std::memcpy(target, &four_bytes, sizeof four_bytes);
    return 0;
  });
  EXPECT_EQ(child.end, ChildEnd::kSignaled) << child.output;
  EXPECT_EQ(child.signal, SIGSEGV);
  const auto fault = FindGuardPageFault(child.output);
  ASSERT_TRUE(fault.has_value()) << child.output;
  EXPECT_NE(fault->find("the plugin wrote 3 bytes past the end of a 1-byte block it allocated"),
            std::string::npos)
      << *fault;
}

// malloc(0) returns a unique pointer that must never be written: glibc's
// 0-byte blocks have room for 24 bytes, so only the guard shows the write.
TEST(GuardMalloc, AWriteIntoAZeroByteBlockCrashesAndIsDescribedExactly) {
  const ChildResult child = InGuardedChild([] {
    auto* block = static_cast<unsigned char*>(GuardedAllocate(0, 1, PluginCaller()));
    if (block == nullptr) return 10;  // the guard must take 0-byte blocks too
    const uint32_t four_bytes = 0x01020304;
    unsigned char* volatile target = block;  // hides the overrun from the compiler
    std::memcpy(target, &four_bytes, sizeof four_bytes);
    return 0;
  });
  EXPECT_EQ(child.end, ChildEnd::kSignaled) << child.output;
  EXPECT_EQ(child.signal, SIGSEGV);
  const auto fault = FindGuardPageFault(child.output);
  ASSERT_TRUE(fault.has_value()) << child.output;
  EXPECT_NE(fault->find("the plugin wrote 4 bytes past the end of a 0-byte block it allocated"),
            std::string::npos)
      << *fault;
}

TEST(GuardMalloc, ZeroByteBlocksAreDistinctCountedAndFreed) {
  const ChildResult child = InGuardedChild([] {
    void* first = GuardedAllocate(0, 1, PluginCaller());
    void* second = GuardedAllocate(0, 64, PluginCaller());  // memalign(64, 0)
    if (first == nullptr || second == nullptr || first == second) return 10;
    if (reinterpret_cast<uintptr_t>(second) % 64 != 0) return 11;
    const GuardMallocCounters both = GuardMallocCountersNow();
    if (both.live_blocks != 2 || both.live_bytes != 0) return 12;
    if (!GuardedFree(first) || !GuardedFree(second)) return 13;
    void* moved = nullptr;  // realloc of a 0-byte block keeps nothing, and moves
    void* third = GuardedAllocate(0, 1, PluginCaller());
    if (!GuardedReallocate(third, 8, PluginCaller(), &moved) || moved == nullptr) return 14;
    if (!GuardedFree(moved)) return 15;
    return GuardMallocCountersNow().live_blocks == 0 ? 0 : 16;
  });
  EXPECT_EQ(child.end, ChildEnd::kExited) << child.output;
  EXPECT_EQ(child.exit_code, 0) << child.output;
}

TEST(GuardMalloc, FreeingAZeroByteBlockTwiceIsNamed) {
  const ChildResult child = InGuardedChild([] {
    void* block = GuardedAllocate(0, 1, PluginCaller());
    GuardedFree(block);
    GuardedFree(block);
    return 0;
  });
  EXPECT_EQ(child.end, ChildEnd::kSignaled) << child.output;
  EXPECT_NE(child.output.find("freed a 0-byte block twice"), std::string::npos) << child.output;
}

TEST(GuardMalloc, AWriteFarPastTheEndIsMeasured) {
  const ChildResult child = InGuardedChild([] {
    auto* block = static_cast<volatile unsigned char*>(GuardedAllocate(8, 1, PluginCaller()));
    block[8 + 23] = 1;  // the 24th byte past the end, alone
    return 0;
  });
  const auto fault = FindGuardPageFault(child.output);
  ASSERT_TRUE(fault.has_value()) << child.output;
  EXPECT_NE(fault->find("wrote 24 bytes past the end of an 8-byte block"), std::string::npos)
      << *fault;
}

TEST(GuardMalloc, AUseAfterFreeCrashes) {
  const ChildResult child = InGuardedChild([] {
    auto* block = static_cast<volatile unsigned char*>(GuardedAllocate(32, 1, PluginCaller()));
    GuardedFree(const_cast<unsigned char*>(block));
    block[0] = 1;
    return 0;
  });
  EXPECT_EQ(child.end, ChildEnd::kSignaled) << child.output;
  const auto fault = FindGuardPageFault(child.output);
  ASSERT_TRUE(fault.has_value()) << child.output;
  EXPECT_NE(fault->find("after it was freed"), std::string::npos) << *fault;
}

TEST(GuardMalloc, FallsBackBeyondItsLimitOnLiveBlocks) {
  const ChildResult child = InGuardedChild([] {
    for (size_t i = 0; i < kMaxLiveGuardedBlocks; ++i) {
      if (GuardedAllocate(8, 1, PluginCaller()) == nullptr) return 10;
    }
    if (GuardedAllocate(8, 1, PluginCaller()) != nullptr) return 11;
    return GuardMallocCountersNow().fallbacks == 1 ? 0 : 12;
  });
  EXPECT_EQ(child.exit_code, 0) << child.output;
}

TEST(GuardMalloc, FindsNoFaultInOrdinaryOutput) {
  EXPECT_FALSE(FindGuardPageFault("plugin says hello\n").has_value());
  EXPECT_EQ(FindGuardPageFault("x\nsectl: guard page: what happened\nmore"), "what happened");
}

}  // namespace
}  // namespace sectl::isolation
