// The plugin server (docs/plugin-server.md): a separate executable loads the
// bundled cpu plugin and performs calls whose arguments live in the arena,
// mapped at one address in both processes; the judge reads what the plugin
// wrote there and asks the server for the plugin's strings. A server that
// dies in a call ends that call with an error that says how it died.
#include "remote/plugin_server.h"

#include <gtest/gtest.h>

#include <array>
#include <csignal>
#include <cstring>
#include <string>

#include "sectl_process.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

namespace sectl::remote {
namespace {

constexpr size_t kArenaBytes = size_t{1} << 20;

// A struct of T in the arena, with struct_size set as TensorFlow sets it.
template <typename T>
T* InArena(Arena& arena, size_t struct_size) {
  auto* value = static_cast<T*>(arena.Allocate(sizeof(T)));
  value->struct_size = struct_size;
  return value;
}

uint64_t Word(const void* pointer) { return reinterpret_cast<uintptr_t>(pointer); }

TEST(PluginServer, RegistersThePluginThroughTheArena) {
  auto server = PluginServer::Start(SECTL_PLUGIN_SERVER, kArenaBytes);
  ASSERT_TRUE(server) << server.error().message();
  PluginServer& plugin = **server;
  auto init = plugin.Load(testing::ReferencePlugin("sectl_cpu"));
  ASSERT_TRUE(init) << init.error().message();
  ASSERT_NE(*init, 0U);

  Arena& arena = plugin.arena();
  auto* params =
      InArena<SE_PlatformRegistrationParams>(arena, SE_PLATFORM_REGISTRATION_PARAMS_STRUCT_SIZE);
  params->major_version = SE_MAJOR;
  params->minor_version = SE_MINOR;
  params->patch_version = SE_PATCH;
  params->platform = InArena<SP_Platform>(arena, SP_PLATFORM_STRUCT_SIZE);
  params->platform_fns = InArena<SP_PlatformFns>(arena, SP_PLATFORM_FNS_STRUCT_SIZE);
  const std::array<uint64_t, 2> words{Word(params), 0};
  auto registered = plugin.Call(abi::PluginFunction::kInitPlugin, *init, words);
  ASSERT_TRUE(registered) << registered.error().message();
  EXPECT_EQ(registered->outcome, Outcome::kReturned);
  EXPECT_EQ(registered->status_code, TF_OK) << registered->text;

  // The plugin filled the arena's structs; its strings stay in its process.
  ASSERT_NE(params->platform->name, nullptr);
  EXPECT_FALSE(arena.Contains(params->platform->name, 1));
  auto name = plugin.ReadString(Word(params->platform->name), 256);
  ASSERT_TRUE(name) << name.error().message();
  EXPECT_FALSE(name->empty());

  // A call through a function pointer the plugin wrote into the arena, with
  // an out-parameter in the arena.
  auto* count = static_cast<int*>(arena.Allocate(sizeof(int)));
  const std::array<uint64_t, 3> count_words{Word(params->platform), Word(count), 0};
  auto counted = plugin.Call(
      abi::PluginFunction::kGetDeviceCount,
      Word(reinterpret_cast<const void*>(params->platform_fns->get_device_count)), count_words);
  ASSERT_TRUE(counted) << counted.error().message();
  EXPECT_EQ(counted->status_code, TF_OK) << counted->text;
  EXPECT_GE(*count, 1);
  EXPECT_FALSE(plugin.ended());
}

TEST(PluginServer, ADeathInACallIsAnErrorThatSaysHow) {
  auto server = PluginServer::Start(SECTL_PLUGIN_SERVER, kArenaBytes);
  ASSERT_TRUE(server) << server.error().message();
  PluginServer& plugin = **server;
  ASSERT_TRUE(plugin.Load(testing::ReferencePlugin("sectl_cpu")));
  // A target that is no function: the server faults where the plugin would.
  const std::array<uint64_t, 2> words{0, 0};
  auto called = plugin.Call(abi::PluginFunction::kInitPlugin, 8, words);
  ASSERT_FALSE(called);
  ASSERT_TRUE(plugin.ended());
  EXPECT_TRUE(plugin.ended()->signaled);
  EXPECT_EQ(plugin.ended()->value, SIGSEGV);
  // Every later call says the same, at once.
  EXPECT_FALSE(plugin.Call(abi::PluginFunction::kInitPlugin, 8, words));
}

TEST(PluginServer, ALoadFailureIsTheDynamicLinkersWord) {
  auto server = PluginServer::Start(SECTL_PLUGIN_SERVER, kArenaBytes);
  ASSERT_TRUE(server) << server.error().message();
  auto init = (*server)->Load("/nonexistent/plugin.so");
  ASSERT_FALSE(init);
  EXPECT_NE(init.error().message().find("/nonexistent/plugin.so"), std::string::npos)
      << init.error().message();
}

TEST(Arena, AllocatesZeroedAlignedBlocksAndReusesFreedOnes) {
  auto arena = Arena::Create(kArenaBytes);
  ASSERT_TRUE(arena) << arena.error().message();
  void* first = arena->Allocate(100);
  void* second = arena->Allocate(100);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % 64, 0U);
  EXPECT_TRUE(arena->Contains(first, 100));
  EXPECT_FALSE(arena->Contains(first, kArenaBytes + 1));
  std::memset(first, 0xff, 100);
  arena->Free(first);
  void* again = arena->Allocate(64);
  EXPECT_EQ(again, first);
  EXPECT_EQ(static_cast<unsigned char*>(again)[0], 0);
  EXPECT_EQ(arena->Allocate(2 * kArenaBytes), nullptr);
}

}  // namespace
}  // namespace sectl::remote
