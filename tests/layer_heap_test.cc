// The validation layer's own memory (lib/validate/layer_heap.h): its tables
// and findings live in mappings fenced by guard pages, so a stray write
// that runs off the end of a block of the heap it shares with the plugin
// and the host never rewrites them, and one that runs into them faults.
#include "validate/layer_heap.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <memory_resource>
#include <new>
#include <string>
#include <vector>

namespace sectl::validate {
namespace {

TEST(LayerHeap, GivesWritableMemoryFencedOnBothSides) {
  GuardedMappingResource mappings;
  constexpr size_t kBytes = 100;
  auto* block = static_cast<volatile char*>(mappings.allocate(kBytes, alignof(std::max_align_t)));
  block[0] = 1;
  block[kBytes - 1] = 2;
  EXPECT_GE(mappings.mapped_bytes(), kBytes);
  // The usable span is whole pages: the fence starts at the next page.
  const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  EXPECT_DEATH(block[page] = 3, "");
  EXPECT_DEATH(block[-1] = 4, "");
  mappings.deallocate(const_cast<char*>(block), kBytes, alignof(std::max_align_t));
  EXPECT_EQ(mappings.mapped_bytes(), 0U);
}

// What the layer keeps is nowhere in the malloc heap: not within reach of a
// heap block the plugin or the host overruns.
TEST(LayerHeap, KeepsContainersOutOfTheMallocHeap) {
  std::pmr::vector<std::pmr::string> kept(LayerHeap());
  kept.emplace_back("a finding's message, long enough not to fit in a small string");
  const auto heap_block = std::make_unique<char[]>(64);  // from the ordinary heap
  const auto kept_address = reinterpret_cast<uintptr_t>(kept.front().data());
  const auto heap_address = reinterpret_cast<uintptr_t>(heap_block.get());
  // Separate mappings: far apart, not neighbours in one arena.
  const uintptr_t distance =
      kept_address > heap_address ? kept_address - heap_address : heap_address - kept_address;
  EXPECT_GT(distance, uintptr_t{1} << 20);
}

TEST(LayerHeap, RefusesWhatItCannotAlign) {
  GuardedMappingResource mappings;
  const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  EXPECT_THROW((void)mappings.allocate(64, page * 2), std::bad_alloc);
}

}  // namespace
}  // namespace sectl::validate
