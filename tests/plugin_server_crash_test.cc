// What the plugin server reports when the plugin crashes it
// (remote/call_protocol.h, tool/plugin_server/crash_report.h): a backtrace
// symbolised where the plugin is mapped, and, with the guard-page allocator
// on, what it saw of a heap overrun. A judge that ends the same way as its
// server sends them on its own result channel, so that sectl finds them
// where a crash in the judge's own process would have put them.
#include <gtest/gtest.h>

#include <array>
#include <csignal>
#include <cstdint>
#include <memory>
#include <string>

#include "host/device.h"
#include "host/journal.h"
#include "host/platform.h"
#include "isolation/child_process.h"
#include "loader/plugin_library.h"
#include "remote/plugin_server.h"
#include "sectl_process.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

namespace sectl::remote {
namespace {

constexpr size_t kArenaBytes = size_t{1} << 20;

// Writes 4 bytes into a 1-byte heap block of its own in allocate
// (reference_plugins/faulty/memory_faults.c): with glibc's allocator the
// write lands in padding, unseen; the guard page right after the block
// stops it.
std::string OverrunningPlugin() {
  return std::string(SECTL_FAULTY_PLUGIN_DIR) + "/faulty_allocate_overruns_small_block.so";
}

constexpr std::string_view kOverrunDescription =
    "the plugin wrote 3 bytes past the end of a 1-byte block it allocated";

// Under a sanitizer its allocator owns malloc, and the guard is not there.
#if defined(SECTL_SANITIZED)
constexpr bool kGuardPagesInUse = false;
#else
constexpr bool kGuardPagesInUse = true;
#endif

uint64_t Word(const void* pointer) { return reinterpret_cast<uintptr_t>(pointer); }

// Calls SE_InitPlugin of the plugin loaded in `server`, with registration
// params in the arena whose `ext` is null (crash_in_init writes through it).
Expected<CallAnswer> RegisterIn(PluginServer& server, uint64_t init) {
  Arena& arena = server.arena();
  auto* params = static_cast<SE_PlatformRegistrationParams*>(
      arena.Allocate(sizeof(SE_PlatformRegistrationParams)));
  params->struct_size = SE_PLATFORM_REGISTRATION_PARAMS_STRUCT_SIZE;
  params->major_version = SE_MAJOR;
  params->minor_version = SE_MINOR;
  params->patch_version = SE_PATCH;
  params->platform = static_cast<SP_Platform*>(arena.Allocate(sizeof(SP_Platform)));
  params->platform->struct_size = SP_PLATFORM_STRUCT_SIZE;
  params->platform_fns = static_cast<SP_PlatformFns*>(arena.Allocate(sizeof(SP_PlatformFns)));
  params->platform_fns->struct_size = SP_PLATFORM_FNS_STRUCT_SIZE;
  const std::array<uint64_t, 2> words{Word(params), 0};
  return server.Call(abi::PluginFunction::kInitPlugin, init, words);
}

// The plugin at `path` registered in `server` with one device, which
// allocates `bytes`: what a memory check does first.
Expected<void> AllocateOnDevice(PluginServer& server, const std::string& path, uint64_t bytes) {
  auto library = loader::PluginLibrary::OpenInServer(path, {}, server);
  if (!library) return tl::unexpected(library.error());
  host::Journal journal;
  auto platform = host::Platform::Create(*library, journal, {.server = &server});
  if (!platform) return tl::unexpected(platform.error());
  auto device = (*platform)->CreateDevice(0);
  if (!device) return tl::unexpected(device.error());
  auto memory = (*device)->Allocate(bytes);
  if (!memory) return tl::unexpected(memory.error());
  return {};
}

TEST(PluginServerCrash, TheBacktraceNamesThePluginsFunction) {
  auto server = PluginServer::Start(SECTL_PLUGIN_SERVER, kArenaBytes);
  ASSERT_TRUE(server) << server.error().message();
  PluginServer& plugin = **server;
  auto init = plugin.Load(testing::FixturePlugin("crash_in_init"));
  ASSERT_TRUE(init) << init.error().message();
  EXPECT_TRUE(plugin.crash_report().backtrace.empty());  // nothing before a crash

  ASSERT_FALSE(RegisterIn(plugin, *init));
  ASSERT_TRUE(plugin.ended());
  ASSERT_TRUE(plugin.ended()->signaled);
  EXPECT_EQ(plugin.ended()->value, SIGSEGV);
  const CrashReport report = plugin.crash_report();
  // Symbolised in the server, where the plugin is mapped: the judge never
  // maps it.
  EXPECT_NE(report.backtrace.find("crash_in_init.so(SE_InitPlugin+0x"), std::string::npos)
      << report.backtrace;
  EXPECT_NE(report.backtrace.find("sectl-plugin-server"), std::string::npos) << report.backtrace;
  // The guard is off, and the crash was on no page of its.
  EXPECT_FALSE(report.guard_page_fault) << *report.guard_page_fault;
}

// The call runs on a lane thread, whose alternate signal stack leaves the
// crash handler room when the plugin has used up the thread's own.
TEST(PluginServerCrash, AStackOverflowIsReportedToo) {
  auto server = PluginServer::Start(SECTL_PLUGIN_SERVER, kArenaBytes);
  ASSERT_TRUE(server) << server.error().message();
  PluginServer& plugin = **server;
  auto init = plugin.Load(testing::FixturePlugin("stack_overflow_in_init"));
  ASSERT_TRUE(init) << init.error().message();
  ASSERT_FALSE(RegisterIn(plugin, *init));
  ASSERT_TRUE(plugin.ended());
  ASSERT_TRUE(plugin.ended()->signaled);
  EXPECT_EQ(plugin.ended()->value, SIGSEGV);
  const std::string backtrace = plugin.crash_report().backtrace;
  EXPECT_NE(backtrace.find("stack_overflow_in_init.so("), std::string::npos) << backtrace;
}

TEST(PluginServerCrash, AHeapOverrunWithTheGuardOnIsDescribed) {
  if (!kGuardPagesInUse) GTEST_SKIP() << "a sanitizer's allocator replaces the guard pages";
  auto server = PluginServer::Start(SECTL_PLUGIN_SERVER, kArenaBytes, WhenTheServerEnds::kReportIt,
                                    PluginHeap::kGuarded);
  ASSERT_TRUE(server) << server.error().message();
  PluginServer& plugin = **server;
  EXPECT_FALSE(AllocateOnDevice(plugin, OverrunningPlugin(), 256));
  ASSERT_TRUE(plugin.ended());
  ASSERT_TRUE(plugin.ended()->signaled);
  EXPECT_EQ(plugin.ended()->value, SIGSEGV);
  const CrashReport report = plugin.crash_report();
  ASSERT_TRUE(report.guard_page_fault);
  EXPECT_NE(report.guard_page_fault->find(kOverrunDescription), std::string::npos)
      << *report.guard_page_fault;
  // The faulty write is the plugin's (a static function: the file, not a
  // name).
  EXPECT_NE(report.backtrace.find("faulty_allocate_overruns_small_block.so("), std::string::npos)
      << report.backtrace;
}

// glibc's 1-byte block has room for the 4 bytes: without the guard the
// overrun goes unseen, and nothing is described.
TEST(PluginServerCrash, WithTheGuardOffAHeapOverrunIsNotDescribed) {
  if (!kGuardPagesInUse) GTEST_SKIP() << "a sanitizer's allocator replaces the guard pages";
  auto server = PluginServer::Start(SECTL_PLUGIN_SERVER, kArenaBytes);
  ASSERT_TRUE(server) << server.error().message();
  PluginServer& plugin = **server;
  auto allocated = AllocateOnDevice(plugin, OverrunningPlugin(), 256);
  EXPECT_TRUE(allocated) << allocated.error().message();
  EXPECT_FALSE(plugin.ended());
  EXPECT_FALSE(plugin.crash_report().guard_page_fault);
}

// ---- A judge that ends the same way ------------------------------------------

// Runs a judge in a check's kind of child process: a server that ends it
// the same way, loading `plugin` with the heap `heap`, and `body`.
isolation::ChildResult InJudge(const std::string& plugin, PluginHeap heap,
                               const std::function<int(PluginServer&)>& body) {
  isolation::ChildOptions options;
  options.confinement.plugin_files = {plugin, SECTL_PLUGIN_SERVER};
  auto child = isolation::RunInChildProcess(
      [&](int /*result_fd*/) {
        auto server = PluginServer::Start(SECTL_PLUGIN_SERVER, kArenaBytes,
                                          WhenTheServerEnds::kEndTheSameWay, heap);
        if (!server) return 100;
        return body(**server);
      },
      options);
  EXPECT_TRUE(child) << child.error().message();
  return child ? *child : isolation::ChildResult{};
}

// As the check runner reads a crash in a check's process.
std::string BacktraceText(const isolation::ChildResult& child) {
  std::string text;
  for (const auto& line : child.backtrace) text += line + "\n";
  return text;
}

TEST(PluginServerCrashInAJudge, TheJudgeSendsTheServersBacktraceAsItsOwn) {
  const std::string plugin = testing::FixturePlugin("crash_in_init");
  const isolation::ChildResult child =
      InJudge(plugin, PluginHeap::kPlain, [&](PluginServer& server) {
        auto init = server.Load(plugin);
        if (!init) return 101;
        (void)RegisterIn(server, *init);
        return 102;  // the judge ended with its server before this
      });
  ASSERT_EQ(child.end, isolation::ChildEnd::kSignaled) << child.exit_code << child.output;
  EXPECT_EQ(child.signal, SIGSEGV);
  const std::string backtrace = BacktraceText(child);
  EXPECT_NE(backtrace.find("crash_in_init.so(SE_InitPlugin+0x"), std::string::npos) << backtrace;
  EXPECT_FALSE(child.guard_page_fault) << *child.guard_page_fault;
  EXPECT_FALSE(child.result_channel_foreign);
}

TEST(PluginServerCrashInAJudge, TheJudgeSendsTheGuardsDescriptionAsItsOwn) {
  if (!kGuardPagesInUse) GTEST_SKIP() << "a sanitizer's allocator replaces the guard pages";
  const std::string plugin = OverrunningPlugin();
  const isolation::ChildResult child = InJudge(
      plugin, PluginHeap::kGuarded,
      [&](PluginServer& server) { return AllocateOnDevice(server, plugin, 256) ? 101 : 102; });
  ASSERT_EQ(child.end, isolation::ChildEnd::kSignaled) << child.exit_code << child.output;
  EXPECT_EQ(child.signal, SIGSEGV);
  ASSERT_TRUE(child.guard_page_fault) << child.output;
  EXPECT_NE(child.guard_page_fault->find(kOverrunDescription), std::string::npos)
      << *child.guard_page_fault;
  EXPECT_NE(BacktraceText(child).find("faulty_allocate_overruns_small_block.so("),
            std::string::npos)
      << BacktraceText(child);
  EXPECT_FALSE(child.result_channel_foreign);
}

}  // namespace
}  // namespace sectl::remote
