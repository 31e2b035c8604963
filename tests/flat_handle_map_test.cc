// The layer's lookup table (lib/validate/flat_handle_map.h) against
// std::unordered_map, over long runs of inserts and erases that collide
// and wrap around the end of the table, where backward-shift deletion goes
// wrong if it goes wrong at all.
#include "validate/flat_handle_map.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory_resource>
#include <random>
#include <unordered_map>

namespace sectl::validate {
namespace {

const void* Handle(uint64_t value) {
  // NOLINTNEXTLINE(performance-no-int-to-ptr): a key, never followed
  return reinterpret_cast<const void*>(static_cast<uintptr_t>(value));
}

TEST(FlatHandleMap, FindsWhatWasInsertedAndNothingElse) {
  FlatHandleMap<const void*, int> map(std::pmr::new_delete_resource());
  EXPECT_EQ(map.find(Handle(8)), map.end());
  map[Handle(8)] = 1;
  map[Handle(16)] = 2;
  ASSERT_NE(map.find(Handle(8)), map.end());
  EXPECT_EQ(map.find(Handle(8))->second, 1);
  EXPECT_EQ(map.find(Handle(16))->second, 2);
  EXPECT_EQ(map.find(Handle(24)), map.end());
  EXPECT_EQ(map.size(), 2U);
  map.erase(map.find(Handle(8)));
  EXPECT_EQ(map.find(Handle(8)), map.end());
  EXPECT_EQ(map.find(Handle(16))->second, 2);
  EXPECT_EQ(map.size(), 1U);
}

// Keys a few apart, as a plugin's handles are (one allocator, one size),
// and a few integers (callback ids): many share a home slot or a run.
TEST(FlatHandleMap, AgreesWithUnorderedMapOverRandomInsertsAndErases) {
  FlatHandleMap<const void*, uint64_t> map(std::pmr::new_delete_resource());
  std::unordered_map<const void*, uint64_t> oracle;
  std::mt19937_64 random(28);
  for (int step = 0; step < 200'000; ++step) {
    const void* key = Handle(0x1000 + 32 * (random() % 700));
    switch (random() % 3) {
      case 0:
      case 1:
        map[key] += step;
        oracle[key] += step;
        break;
      case 2:
        map.erase(key);
        oracle.erase(key);
        break;
    }
    if (step % 997 == 0) {
      ASSERT_EQ(map.size(), oracle.size()) << "at step " << step;
      size_t seen = 0;
      for (const auto& [handle, value] : map) {
        ++seen;
        const auto expected = oracle.find(handle);
        ASSERT_NE(expected, oracle.end()) << "at step " << step;
        ASSERT_EQ(value, expected->second) << "at step " << step;
      }
      ASSERT_EQ(seen, oracle.size());
    }
  }
  for (const auto& [handle, value] : oracle) {
    const auto found = map.find(handle);
    ASSERT_NE(found, map.end());
    EXPECT_EQ(found->second, value);
  }
}

TEST(FlatHandleMap, TakesIntegerKeys) {
  FlatHandleMap<uint64_t, int> map(std::pmr::new_delete_resource());
  for (uint64_t id = 1; id <= 1000; ++id) map[id] = static_cast<int>(id);
  for (uint64_t id = 1; id <= 1000; id += 2) map.erase(id);
  EXPECT_EQ(map.size(), 500U);
  for (uint64_t id = 1; id <= 1000; ++id) {
    EXPECT_EQ(map.find(id) != map.end(), id % 2 == 0) << id;
  }
}

}  // namespace
}  // namespace sectl::validate
