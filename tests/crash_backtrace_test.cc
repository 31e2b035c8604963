// A crash's backtrace as the report gives it (lib/conform/crash_backtrace.h):
// sectl's signal handler left out, every frame an offset addr2line takes,
// sectl's own frames below the plugin folded into one line.
#include "conform/crash_backtrace.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "loader/exported_symbols.h"
#include "sectl_process.h"

namespace sectl::conform {
namespace {

constexpr const char* kSectl = "build/bin/sectl";
constexpr const char* kLibc = "/lib/x86_64-linux-gnu/libc.so.6";
constexpr const char* kPlugin = "/opt/vendor/libvendor_plugin.so";

std::string Line(const std::string& module, const std::string& inside) {
  return fmt::format("{}({})[0x7f0000001000]", module, inside);
}

TEST(CrashBacktrace, StartsAtTheCrashAndFoldsSectlsFramesBelowThePlugin) {
  const std::vector<std::string> raw = {Line(kSectl, "+0x1fae9e"),  // the signal handler
                                        Line(kLibc, "+0x3c050"),  // the kernel's return trampoline
                                        Line(kLibc, "abort+0xd3"),  // what the plugin called
                                        Line(kPlugin, "+0x33a6"),   // the plugin
                                        Line(kPlugin, "+0x1200"),   //
                                        Line(kSectl, "+0x2d6d0e"),  // the check
                                        Line(kSectl, "+0x2d7137"),  //
                                        Line(kLibc, "__libc_start_main+0x85"),
                                        Line(kSectl, "+0x54621")};
  const std::vector<std::string> expected = {
      fmt::format("{} (abort+0xd3)", kLibc), fmt::format("{}+0x33a6", kPlugin),
      fmt::format("{}+0x1200", kPlugin), "... 4 more frames: sectl's check, which made the call"};
  EXPECT_EQ(ReadableBacktrace(raw, kPlugin), expected);
}

// "SE_InitPlugin+0x10" is no offset addr2line can take: it becomes the
// symbol's address in the file plus 0x10, read from the plugin's own
// symbol table.
TEST(CrashBacktrace, APluginFrameNamingASymbolGetsItsOffsetInTheFile) {
  const std::string plugin = testing::ReferencePlugin("sectl_cpu");
  const auto functions = loader::ExportedFunctionAddresses(plugin);
  ASSERT_TRUE(functions.has_value()) << functions.error().message();
  uint64_t init = 0;
  for (const auto& function : *functions) {
    if (function.name == "SE_InitPlugin") init = function.address;
  }
  ASSERT_NE(init, 0U);
  const std::vector<std::string> raw = {Line(kSectl, "+0x100"), Line(kLibc, "+0x3c050"),
                                        Line(plugin, "SE_InitPlugin+0x10"), Line(kSectl, "+0x200")};
  const std::vector<std::string> readable = ReadableBacktrace(raw, plugin);
  ASSERT_EQ(readable.size(), 2U);
  EXPECT_EQ(readable[0], fmt::format("{}+{:#x} (SE_InitPlugin+0x10)", plugin, init + 0x10));
}

// A crash in sectl's own frames (no plugin frame at all) keeps the frames
// down to the first of sectl's below the crash site.
TEST(CrashBacktrace, WithoutAPluginFrameKeepsTheCrashSiteDownToSectl) {
  const std::vector<std::string> raw = {Line(kSectl, "+0x100"),     Line(kLibc, "+0x3c050"),
                                        Line(kLibc, "memcpy+0x40"), Line(kSectl, "+0x300"),
                                        Line(kSectl, "+0x400"),     Line(kSectl, "+0x500")};
  const std::vector<std::string> expected = {
      fmt::format("{} (memcpy+0x40)", kLibc), fmt::format("{}+0x300", kSectl),
      "... 2 more frames: sectl's check, which made the call"};
  EXPECT_EQ(ReadableBacktrace(raw, kPlugin), expected);
}

// Where no return trampoline comes between the handler and the crash site,
// no frame of the plugin's is taken for one.
TEST(CrashBacktrace, APluginFrameRightAfterTheHandlerIsKept) {
  const std::vector<std::string> raw = {Line(kSectl, "+0x100"), Line(kPlugin, "+0x1225"),
                                        Line(kSectl, "+0x200")};
  const std::vector<std::string> expected = {
      fmt::format("{}+0x1225", kPlugin), "... 1 more frame: sectl's check, which made the call"};
  EXPECT_EQ(ReadableBacktrace(raw, kPlugin), expected);
}

TEST(CrashBacktrace, LinesItCannotReadAreLeftAsTheyAre) {
  const std::vector<std::string> raw = {"[0x7f0000001000]", "garbage"};
  EXPECT_EQ(ReadableBacktrace(raw, kPlugin), raw);
}

}  // namespace
}  // namespace sectl::conform
