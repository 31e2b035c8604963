// The confinement of a child process (isolation/confinement.h), through the
// ChildProcess API: its own session without a terminal, stdin from
// /dev/null, no inherited descriptors, a cleaned environment, limits that
// bite and say so, and a result channel the plugin cannot steal.
#include "isolation/confinement.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <string>
#include <vector>

#include "isolation/child_process.h"

namespace sectl::isolation {
namespace {

using namespace std::chrono_literals;

ChildResult RunConfined(const std::function<int(int)>& body, const ChildOptions& options = {}) {
  auto result = RunInChildProcess(body, options);
  EXPECT_TRUE(result.has_value());
  return result.value_or(ChildResult{});
}

TEST(Confinement, TheChildLeadsItsOwnSessionSoItHasNoTerminal) {
  const ChildResult result = RunConfined([](int fd) {
    const bool leader = ::getsid(0) == ::getpid() && ::getpgid(0) == ::getpid();
    WriteResult(fd, leader ? "session leader" : "not a leader");
    return 0;
  });
  EXPECT_EQ(result.result, "session leader");
}

TEST(Confinement, StdinIsDevNullEvenWhenSectlsStdinStaysOpen) {
  // sectl's stdin: a pipe nobody writes to or closes. Read from it, a child
  // would wait until its deadline.
  std::array<int, 2> held_open{};
  ASSERT_EQ(::pipe(held_open.data()), 0);
  const int saved_stdin = ::dup(STDIN_FILENO);
  ::dup2(held_open[0], STDIN_FILENO);
  const ChildResult result = RunConfined(
      [](int fd) {
        char byte = 0;
        WriteResult(fd, std::to_string(::read(STDIN_FILENO, &byte, 1)));
        return 0;
      },
      {.timeout = 10s});
  ::dup2(saved_stdin, STDIN_FILENO);
  for (int fd : {saved_stdin, held_open[0], held_open[1]}) ::close(fd);
  EXPECT_EQ(result.end, ChildEnd::kExited);
  EXPECT_EQ(result.result, "0");  // end of file at once
}

TEST(Confinement, TheChildInheritsNoDescriptorButStdioAndItsChannel) {
  const int stray = ::open("/dev/null", O_RDONLY);  // not close-on-exec, like a careless library's
  ASSERT_GE(stray, 0);
  const ChildResult result = RunConfined([stray](int fd) {
    int open_descriptors = 0;
    for (int candidate = 3; candidate < 1024; ++candidate) {
      if (::fcntl(candidate, F_GETFD) != -1) ++open_descriptors;
    }
    WriteResult(fd, std::to_string(open_descriptors) +
                        (::fcntl(stray, F_GETFD) == -1 ? " closed" : " open"));
    return 0;
  });
  ::close(stray);
  EXPECT_EQ(result.result, "1 closed");
}

TEST(Confinement, TheEnvironmentKeepsTheAllowlistAndPassedNamesOnly) {
  ::setenv("SECTL_CONFINEMENT_SECRET", "hunter2", 1);
  ::setenv("SECTL_CONFINEMENT_PASSED", "yes", 1);
  ::setenv("LC_TIME", "C", 1);
  ChildOptions options;
  options.confinement.passed_environment = {"SECTL_CONFINEMENT_PASSED"};
  const ChildResult result = RunConfined(
      [](int fd) {
        auto value = [](const char* name) {
          const char* found = std::getenv(name);
          return std::string(found != nullptr ? found : "(unset)");
        };
        WriteResult(fd, value("SECTL_CONFINEMENT_SECRET") + " " +
                            value("SECTL_CONFINEMENT_PASSED") + " " + value("LC_TIME") + " " +
                            value("PATH").substr(0, 1));
        return 0;
      },
      options);
  ::unsetenv("SECTL_CONFINEMENT_SECRET");
  ::unsetenv("SECTL_CONFINEMENT_PASSED");
  EXPECT_EQ(result.result, "(unset) yes C /");
}

TEST(Confinement, PluginEnvironmentFiltersByName) {
  const char* environment[] = {"PATH=/bin", "AWS_SECRET_ACCESS_KEY=x",
                               "LC_ALL=C",  "LCX=1",
                               "TOKEN=y",   "HOME=/root",
                               "MINE=z",    "NOEQUALS",
                               nullptr};
  EXPECT_EQ(PluginEnvironment(environment, {"MINE"}),
            (std::vector<std::string>{"PATH=/bin", "LC_ALL=C", "HOME=/root", "MINE=z"}));
}

TEST(Confinement, TheCpuLimitKillsASpinningChildAndSaysSo) {
  ChildOptions options{.timeout = 30s};
  options.confinement.cpu_limit_seconds = 1;
  const ChildResult result = RunConfined(
      [](int) {
        volatile unsigned long spins = 0;
        for (;;) spins = spins + 1;
        return 0;
      },
      options);
  EXPECT_EQ(result.end, ChildEnd::kSignaled);
  EXPECT_EQ(SignalName(result.signal), "SIGXCPU");
  // The kernel sends SIGXCPU on its own account of CPU time; the one
  // wait4(2) reports is sampled at clock ticks and reads up to ~20% low on a
  // loaded machine (0.80 s seen), so only "it spun for most of it" is sure.
  EXPECT_GE(result.cpu_seconds, 0.5);
  EXPECT_TRUE(ExceededCpuLimit(result, options.confinement));
  const auto described = DescribeExhaustion(result, options.confinement);
  ASSERT_TRUE(described.has_value());
  EXPECT_TRUE(described->starts_with("exceeded --cpu-limit 1 s of CPU time (killed by SIGXCPU"))
      << *described;
}

#if !defined(SECTL_SANITIZED)  // sanitizers' shadow memory counts against RLIMIT_DATA
TEST(Confinement, TheMemoryLimitFailsAnAllocationAndSaysSo) {
  ChildOptions options;
  options.confinement.memory_limit_bytes = uint64_t{64} << 20;
  options.confinement.memory_limit_label = "64MiB";
  const ChildResult result = RunConfined(
      [](int fd) {
        std::vector<std::vector<char>> hoard;
        for (;;) hoard.emplace_back(size_t{4} << 20, 'x');  // throws std::bad_alloc at the limit
        WriteResult(fd, "never");
        return 0;
      },
      options);
  EXPECT_TRUE(result.allocation_failed) << result.output;
  const auto described = DescribeExhaustion(result, options.confinement);
  ASSERT_TRUE(described.has_value());
  EXPECT_TRUE(described->starts_with("exceeded --memory-limit 64MiB: an allocation failed"))
      << *described;
}
#endif

TEST(Confinement, NoLimitMeansNoExhaustionIsClaimed) {
  const ChildResult result = RunConfined([](int) -> int { std::abort(); });
  EXPECT_EQ(result.end, ChildEnd::kSignaled);
  EXPECT_FALSE(DescribeExhaustion(result, {}).has_value());
}

TEST(Confinement, AResultChannelThePluginReplacedIsNotWrittenTo) {
  const ChildResult result = RunConfined([](int fd) {
    const int null_device = ::open("/dev/null", O_WRONLY);
    ::dup2(null_device, fd);  // the plugin's file now sits where sectl's pipe was
    WriteResult(fd, "lost");
    return 0;
  });
  EXPECT_EQ(result.end, ChildEnd::kExited);
  EXPECT_EQ(result.exit_code, kResultChannelLost);
}

TEST(Confinement, AResultChannelThePluginClosedEndsTheChildSayingSo) {
  const ChildResult result = RunConfined([](int fd) {
    ::close(fd);
    WriteResult(fd, "lost");
    return 0;
  });
  EXPECT_EQ(result.exit_code, kResultChannelLost);
}

TEST(Confinement, AnIntactResultChannelCarriesTheResult) {
  const ChildResult result = RunConfined([](int fd) {
    WriteResult(fd, "delivered");
    return 0;
  });
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.result, "delivered");
}

}  // namespace
}  // namespace sectl::isolation
