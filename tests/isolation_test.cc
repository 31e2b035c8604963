// Child-process isolation: crashes, hangs, exits and output never reach the
// parent, and each ends in the right outcome.
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>

#include "host/journal.h"
#include "isolation/child_process.h"
#include "isolation/shared_memory.h"

namespace sectl::isolation {
namespace {

using namespace std::chrono_literals;

TEST(ChildProcess, ReturnsTheResultAndCapturesOutput) {
  auto result = RunInChildProcess(
      [](int fd) {
        std::printf("to stdout\n");
        std::fprintf(stderr, "to stderr\n");
        WriteAll(fd, "the answer");
        return 0;
      },
      {});
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->end, ChildEnd::kExited);
  EXPECT_EQ(result->exit_code, 0);
  EXPECT_EQ(result->result, "the answer");
  EXPECT_NE(result->output.find("to stdout"), std::string::npos);
  EXPECT_NE(result->output.find("to stderr"), std::string::npos);
}

TEST(ChildProcess, ReportsACrashWithItsSignal) {
  auto result = RunInChildProcess(
      [](int) {
        ::raise(SIGSEGV);
        return 0;
      },
      {});
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->end, ChildEnd::kSignaled);
  EXPECT_EQ(SignalName(result->signal), "SIGSEGV");
}

TEST(ChildProcess, KillsAHangAtTheDeadline) {
  auto result = RunInChildProcess(
      [](int) {
        for (;;) ::pause();
        return 0;
      },
      {.timeout = 200ms});
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->end, ChildEnd::kTimedOut);
  EXPECT_LT(result->seconds, 5.0);
}

TEST(ChildProcess, ReportsExitWithoutResult) {
  auto result = RunInChildProcess([](int) -> int { std::exit(9); }, {});
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->end, ChildEnd::kExited);
  EXPECT_EQ(result->exit_code, 9);
  EXPECT_TRUE(result->result.empty());
}

TEST(ChildProcess, DoesNotWaitForAGrandchildHoldingThePipes) {
  auto result = RunInChildProcess(
      [](int) {
        if (::fork() == 0) {
          ::sleep(30);  // holds stdout open; killed with the process group
          ::_exit(0);
        }
        return 0;
      },
      {.timeout = 10s});
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->end, ChildEnd::kExited);
  EXPECT_LT(result->seconds, 5.0);
}

TEST(ChildProcess, TruncatesFloodsOfOutput) {
  auto result = RunInChildProcess(
      [](int) {
        std::string line(1000, 'x');
        for (int i = 0; i < 1000; ++i) std::puts(line.c_str());
        return 0;
      },
      {.max_captured_output = 4096});
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->output.size(), 4096u);
  EXPECT_TRUE(result->output_truncated);
}

TEST(ChildProcess, ACrashLeavesABacktraceAfterTheMarker) {
  auto result = RunInChildProcess(
      [](int) {
        std::printf("before the crash\n");
        std::fflush(stdout);
        ::raise(SIGSEGV);
        return 0;
      },
      {});
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(SignalName(result->signal), "SIGSEGV");
  const SplitOutput split = SplitBacktrace(result->output);
  EXPECT_EQ(split.plugin_output, "before the crash\n");
  ASSERT_FALSE(split.backtrace.empty());
  bool demangled = false;
  for (const auto& frame : split.backtrace) {
    if (frame.find("sectl::isolation::") != std::string::npos) demangled = true;
  }
  EXPECT_TRUE(demangled) << split.backtrace.front();
}

TEST(SharedMemory, TheParentReadsTheJournalOfACrashedChild) {
  auto region = SharedObject<host::JournalRegion>::Create();
  ASSERT_TRUE(region.has_value());
  host::Journal journal(region->get());
  auto result = RunInChildProcess(
      [&](int) {
        journal.Begin(abi::PluginFunction::kAllocate, {4096}, 1);
        ::abort();
        return 0;
      },
      {});
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(SignalName(result->signal), "SIGABRT");
  auto unfinished = journal.LastUnfinished();
  ASSERT_TRUE(unfinished.has_value());
  EXPECT_EQ(unfinished->function, abi::PluginFunction::kAllocate);
  EXPECT_EQ(unfinished->arguments[0], 4096u);
}

}  // namespace
}  // namespace sectl::isolation
