// Child-process isolation: crashes, hangs, exits and output never reach the
// parent, and each ends in the right outcome.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <malloc.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "host/journal.h"
#include "isolation/child_outcome.h"
#include "isolation/child_process.h"
#include "isolation/namespaces.h"
#include "isolation/result_channel.h"
#include "isolation/shared_memory.h"
#include "sectl_process.h"

namespace sectl::isolation {
namespace {

using namespace std::chrono_literals;

// The tests of how a child ends run twice: as pid 1's worker in new
// namespaces (isolation/namespaces.h), where the kernel allows them, and as
// a plain fork of sectl (--no-namespaces).
class EitherNamespace : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (GetParam() && !ProbeNamespaces().pid) {
      GTEST_SKIP() << "no namespaces here: " << ProbeNamespaces().why_not;
    }
  }
  ChildOptions Options(std::chrono::milliseconds timeout = 30s) const {
    return {.timeout = timeout, .confinement = {.namespaces = GetParam()}};
  }
};

INSTANTIATE_TEST_SUITE_P(ChildProcess, EitherNamespace, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "InNamespaces" : "WithoutNamespaces";
                         });

// Plugin code runs only after the kConfined frame: a set-up failure sent
// after it, with the channel's own key, is not sectl's and cannot make the
// check sectl's error (nor end the run with exit 2 and no report).
TEST_P(EitherNamespace, ASetUpFailureAfterConfinementIsNotBelieved) {
  auto result = RunInChildProcess(
      [](int) {
        const std::string forged = "sectl could not confine the plugin's process: forged";
        WriteFrame(FrameKind::kSetupFailure, forged.data(), forged.size());
        return 0;
      },
      Options());
  ASSERT_TRUE(result.has_value());
  EXPECT_FALSE(result->setup_failure.has_value()) << *result->setup_failure;
  EXPECT_TRUE(result->result_channel_foreign);
  EXPECT_EQ(JudgeChild(*result, {}).blame, Blame::kPlugin);
}

// The reaper's account of how the plugin's process ended is the last frame
// on the channel: one the plugin forges beforehand cannot turn its crash
// into a clean exit.
TEST_P(EitherNamespace, AForgedWorkerEndDoesNotHideACrash) {
  auto result = RunInChildProcess(
      [](int) {
        const WorkerEnd clean{};
        WriteFrame(FrameKind::kWorkerEnded, reinterpret_cast<const char*>(&clean),  // NOLINT
                   sizeof(clean));
        std::raise(SIGSEGV);
        return 0;
      },
      Options());
  ASSERT_TRUE(result.has_value());
  EXPECT_NE(result->end, ChildEnd::kExited);
  EXPECT_EQ(JudgeChild(*result, {}).blame, Blame::kPlugin);
}

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

TEST_P(EitherNamespace, ReportsACrashWithItsSignal) {
  auto result = RunInChildProcess(
      [](int) {
        ::raise(SIGSEGV);
        return 0;
      },
      Options());
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->end, ChildEnd::kSignaled);
  EXPECT_EQ(SignalName(result->signal), "SIGSEGV");
}

// abort() raises SIGABRT at the process itself, which the kernel ignores
// when that process is pid 1 of a namespace: why the plugin runs as pid 2.
TEST_P(EitherNamespace, ReportsAnAbortAsSIGABRT) {
  auto result = RunInChildProcess(
      [](int) {
        std::abort();
        return 0;
      },
      Options());
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->end, ChildEnd::kSignaled);
  EXPECT_EQ(SignalName(result->signal), "SIGABRT");
}

TEST_P(EitherNamespace, AnUncaughtSignalEndsTheChildWithIt) {
  auto result = RunInChildProcess(
      [](int) {
        ::kill(::getpid(), SIGTERM);
        ::pause();
        return 0;
      },
      Options(10s));
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->end, ChildEnd::kSignaled);
  EXPECT_EQ(SignalName(result->signal), "SIGTERM");
}

// In its namespaces the plugin's process is pid 2 under sectl's reaper, and
// /proc shows nothing of the machine's other processes.
TEST(ChildProcess, InNamespacesThePluginSeesOnlyItsOwnProcesses) {
  if (!ProbeNamespaces().pid) GTEST_SKIP() << "no namespaces here: " << ProbeNamespaces().why_not;
  auto result = RunInChildProcess(
      [](int fd) {
        int listed = 0;
        for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
          const std::string name = entry.path().filename().string();
          if (name.find_first_not_of("0123456789") == std::string::npos) ++listed;
        }
        WriteResult(fd, fmt::format("{} {} {} {}", ::getpid(), ::getppid(), listed,
                                    ::kill(::getppid(), 0) == 0 ? "signalled" : "refused"));
        return 0;
      },
      {});
  ASSERT_TRUE(result.has_value());
  ASSERT_TRUE(result->reported) << result->output;
  if (ProbeNamespaces().fresh_proc) {
    EXPECT_EQ(result->result, "2 1 2 refused");  // itself and the reaper
  } else {
    EXPECT_TRUE(result->result.starts_with("2 1 ")) << result->result;
  }
  EXPECT_EQ(result->stray_processes, 0);
}

// --no-namespaces: a plain fork of sectl, whose parent is sectl.
TEST(ChildProcess, WithoutNamespacesTheChildIsSectlsOwn) {
  auto result = RunInChildProcess(
      [](int fd) {
        WriteResult(fd, std::to_string(::getppid()));
        return 0;
      },
      {.confinement = {.namespaces = false}});
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->result, std::to_string(::getpid()));
}

TEST_P(EitherNamespace, KillsAHangAtTheDeadline) {
  auto result = RunInChildProcess(
      [](int) {
        for (;;) ::pause();
        return 0;
      },
      Options(200ms));
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->end, ChildEnd::kTimedOut);
  EXPECT_LT(result->seconds, 5.0);
}

// A check process starts while sectl's other threads (the runner's, under
// -j) are in malloc. It must not inherit a malloc lock one of them held at
// that instant: its first allocation would wait for ever, and the hang would
// be blamed on the plugin. One arena makes every thread's malloc take the
// same lock, so a thread allocating without pause holds it much of the time.
TEST_P(EitherNamespace, NeverInheritsAMallocLockAnotherThreadHeld) {
#if defined(SECTL_SANITIZED)
  // clang 14's sanitizer allocator replaces glibc's malloc and takes none of
  // its locks around fork(): there even a plain fork (--no-namespaces) can
  // inherit one held, which is the runtime's, not what this test is about.
  GTEST_SKIP() << "the sanitizers' allocator is not made safe across fork() as glibc's is";
#endif
  ::mallopt(M_ARENA_MAX, 1);
  std::atomic<bool> stop{false};
  std::thread allocating([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      std::vector<std::unique_ptr<std::string>> strings;
      for (int i = 0; i < 64; ++i) strings.push_back(std::make_unique<std::string>(300, 'x'));
    }
  });
  int hung = 0;
  for (int child = 0; child < 40; ++child) {
    auto result = RunInChildProcess(
        [](int) {
          std::vector<std::unique_ptr<std::string>> strings;
          for (int i = 0; i < 64; ++i) strings.push_back(std::make_unique<std::string>(300, 'y'));
          return 7;
        },
        Options(2s));
    ASSERT_TRUE(result.has_value()) << result.error().message();
    if (result->end == ChildEnd::kTimedOut) ++hung;
  }
  stop = true;
  allocating.join();
  EXPECT_EQ(hung, 0) << "of 40 child processes";
}

TEST_P(EitherNamespace, ReportsExitWithoutResult) {
  auto result = RunInChildProcess([](int) -> int { std::exit(9); }, Options());
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

TEST_P(EitherNamespace, AStoppedChildIsKilledAtOnceNotAtItsDeadline) {
  auto result = RunInChildProcess(
      [](int) {
        ::raise(SIGSTOP);
        return 0;
      },
      Options());
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
TEST_P(EitherNamespace, EndsAndCountsProcessesThatLeftTheSession) {
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  auto result = RunInChildProcess(
      [](int fd) {
        const pid_t stray = ::fork();
        if (stray == 0) {
          ::setsid();
          ::prctl(PR_SET_NAME, "session-stray");
          ::sleep(60);
          ::_exit(0);
        }
        WriteResult(fd, std::to_string(stray));
        return 0;
      },
      Options());
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
  ASSERT_TRUE(result.has_value());
  ASSERT_TRUE(result->reported);
  EXPECT_EQ(result->stray_processes, 1);
  EXPECT_TRUE(sectl::testing::NoProcessNamedRemains("session-stray")) << "the stray is still there";
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
            RunInChildProcess([](int) { return 0; },
                              {.confinement = {.cpu_limit_seconds = 500, .namespaces = false}});
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

TEST_P(EitherNamespace, ACrashSendsABacktraceOnTheResultChannel) {
  auto result = RunInChildProcess(
      [](int) {
        std::printf("before the crash\n");
        std::fflush(stdout);
        ::raise(SIGSEGV);
        return 0;
      },
      Options());
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
