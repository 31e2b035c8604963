// Child-process isolation: crashes, hangs, exits and output never reach the
// parent, and each ends in the right outcome.
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "host/journal.h"
#include "isolation/child_outcome.h"
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
        WriteResult(fd, "the answer");
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

TEST(ChildProcess, TheResultChannelIsAtAHighDescriptor) {
  auto result = RunInChildProcess(
      [](int fd) {
        WriteResult(fd, std::to_string(fd));
        return 0;
      },
      {});
  ASSERT_TRUE(result.has_value());
  ASSERT_TRUE(result->reported);
  EXPECT_GE(std::stoi(result->result), 64);
}

// A "pass" in the old protocol's shape and as a frame with a guessed key,
// on every descriptor, then exit(0) as a reporting child would.
TEST(ChildProcess, AForgedResultOnEveryDescriptorIsForeign) {
  auto result = RunInChildProcess(
      [](int) -> int {
        const std::string pass = R"({"status":"pass"})";
        std::array<char, 24> header{};
        header[16] = 1;
        header[20] = static_cast<char>(pass.size());
        for (int fd = 0; fd < 1024; ++fd) {
          (void)!::write(fd, pass.data(), pass.size());
          (void)!::write(fd, header.data(), header.size());
          (void)!::write(fd, pass.data(), pass.size());
        }
        ::_exit(0);
      },
      {});
  ASSERT_TRUE(result.has_value());
  EXPECT_FALSE(result->reported);
  EXPECT_TRUE(result->result_channel_foreign);
  const ChildOutcome judged = JudgeChild(*result, {});
  EXPECT_EQ(judged.blame, Blame::kPlugin);
  EXPECT_EQ(judged.description, "wrote to sectl's result channel");
}

TEST(ChildProcess, AFloodedResultChannelIsCappedAndForeign) {
  auto result = RunInChildProcess(
      [](int fd) {
        const std::string block(size_t{1} << 20, 'F');
        for (size_t written = 0; written < kMaxResultChannelBytes + (size_t{4} << 20);
             written += block.size()) {
          if (!WriteAll(fd, block)) break;  // sectl stopped reading
        }
        WriteResult(fd, "pass");
        return 0;
      },
      {.timeout = 20s});
  ASSERT_TRUE(result.has_value());
  EXPECT_TRUE(result->result_channel_foreign);
  EXPECT_FALSE(result->reported);
  EXPECT_TRUE(result->result.empty());
  EXPECT_EQ(JudgeChild(*result, {}).blame, Blame::kPlugin);
}

TEST(ChildProcess, AStoppedChildIsKilledAtOnceNotAtItsDeadline) {
  auto result = RunInChildProcess(
      [](int) {
        ::raise(SIGSTOP);
        return 0;
      },
      {.timeout = 30s});
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->end, ChildEnd::kStopped);
  EXPECT_EQ(SignalName(result->signal), "SIGSTOP");
  EXPECT_LT(result->seconds, 20.0);
  const ChildOutcome judged = JudgeChild(*result, {});
  EXPECT_EQ(judged.blame, Blame::kPlugin);
  EXPECT_EQ(judged.description, "stopped itself with SIGSTOP and was killed");
}

// A grandchild that leaves the child's session is reparented to the
// subreaper (sectl; here the test), found, killed and counted.
TEST(ChildProcess, EndsAndCountsProcessesThatLeftTheSession) {
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  auto result = RunInChildProcess(
      [](int fd) {
        const pid_t stray = ::fork();
        if (stray == 0) {
          ::setsid();
          ::sleep(60);
          ::_exit(0);
        }
        WriteResult(fd, std::to_string(stray));
        return 0;
      },
      {});
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
  ASSERT_TRUE(result.has_value());
  ASSERT_TRUE(result->reported);
  EXPECT_EQ(result->stray_processes, 1);
  EXPECT_NE(::kill(std::stoi(result->result), 0), 0) << "the stray is still there";
}

// sectl could not set the child's limit (a hard limit below --cpu-limit, no
// CAP_SYS_RESOURCE): sectl's failure, said on the channel, never the
// plugin's exit status.
TEST(ChildProcess, SectlsOwnSetupFailureIsBlamedOnSectl) {
  auto result = RunInChildProcess(
      [](int fd) {
        // A supervisor whose hard CPU limit is lower than asked, and which
        // cannot raise it (as root, without CAP_SYS_RESOURCE).
        __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
        std::array<__user_cap_data_struct, 2> capabilities{};
        if (::syscall(SYS_capget, &header, capabilities.data()) != 0) return 4;
        capabilities[CAP_SYS_RESOURCE / 32].effective &= ~(1U << (CAP_SYS_RESOURCE % 32));
        if (::syscall(SYS_capset, &header, capabilities.data()) != 0) return 4;
        const rlimit hard{100, 100};
        if (::setrlimit(RLIMIT_CPU, &hard) != 0) return 5;
        auto inner =
            RunInChildProcess([](int) { return 0; }, {.confinement = {.cpu_limit_seconds = 500}});
        if (!inner) return 6;
        const ChildOutcome judged = JudgeChild(*inner, {.cpu_limit_seconds = 500});
        WriteResult(fd, std::to_string(static_cast<int>(judged.blame)) + " " + judged.description);
        return 0;
      },
      {});
  ASSERT_TRUE(result.has_value());
  ASSERT_TRUE(result->reported) << result->exit_code << " " << result->output;
  EXPECT_EQ(result->result.substr(0, 2), std::to_string(static_cast<int>(Blame::kSectl)) + " ")
      << result->result;
  EXPECT_NE(result->result.find("sectl could not confine the plugin's process: cannot set "
                                "--cpu-limit 500 s"),
            std::string::npos)
      << result->result;
}

TEST(ChildProcess, ACrashSendsABacktraceOnTheResultChannel) {
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
  // The backtrace comes as a frame on the result channel, not in the output.
  EXPECT_EQ(result->output, "before the crash\n");
  ASSERT_FALSE(result->backtrace.empty());
  bool demangled = false;
  for (const auto& frame : result->backtrace) {
    if (frame.find("sectl::isolation::") != std::string::npos) demangled = true;
  }
  EXPECT_TRUE(demangled) << result->backtrace.front();
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
