// The pids cgroup around a plugin's process tree (isolation/
// process_limit_group.h): the kernel holds a forking tree to the group's
// limit, whoever it runs as, and every plugin process runs in a group of its
// own. Where the machine offers no pids hierarchy sectl may write (not root,
// a container's read-only cgroupfs), the tests skip, saying why.
#include "isolation/process_limit_group.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <fstream>
#include <string>
#include <vector>

#include "isolation/child_process.h"
#include "isolation/confinement.h"

namespace sectl::isolation {
namespace {

// The exit status a child gives when a fork failed for another reason than
// the group's limit.
constexpr int kOtherFailure = 99;

TEST(ProcessLimitGroup, HoldsAForkingTreeToItsLimit) {
  constexpr uint64_t kLimit = 8;
  auto group = ProcessLimitGroup::Create(kLimit);
  if (!group) GTEST_SKIP() << "no pids cgroup here: " << group.error().message();
  const std::string directory = group->path();

  // The child joins, then forks until it cannot; its children wait on a
  // pipe it closes once it has counted them.
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (!group->Join()) ::_exit(kOtherFailure);
    std::array<int, 2> hold{};
    if (::pipe(hold.data()) != 0) ::_exit(kOtherFailure);
    int forked = 0;
    int failure = 0;
    for (int attempt = 0; attempt < 20; ++attempt) {
      const pid_t grandchild = ::fork();
      if (grandchild == 0) {
        ::close(hold[1]);
        char byte = 0;
        (void)::read(hold[0], &byte, 1);
        ::_exit(0);
      }
      if (grandchild < 0) {
        failure = errno;
        break;
      }
      ++forked;
    }
    ::close(hold[1]);
    while (::wait(nullptr) > 0) {
    }
    ::_exit(failure == EAGAIN ? forked : kOtherFailure);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  // The child itself is one of the eight.
  EXPECT_EQ(WEXITSTATUS(status), static_cast<int>(kLimit) - 1);

  // Its processes gone, the group is kept for the next plugin process,
  // empty and with its limit.
  { ProcessLimitGroup ended = std::move(*group); }
  auto next = ProcessLimitGroup::Create(kLimit);
  ASSERT_TRUE(next.has_value()) << next.error().message();
  EXPECT_EQ(next->path(), directory);
  std::ifstream current(directory + "/pids.current");
  uint64_t processes = 1;
  EXPECT_TRUE(current >> processes);
  EXPECT_EQ(processes, 0u);
}

TEST(ProcessLimitGroup, AGroupLeftByASectlThatWasKilledIsRemovedLater) {
  if (auto trial = ProcessLimitGroup::Create(8); !trial) {
    GTEST_SKIP() << "no pids cgroup here: " << trial.error().message();
  }
  // A process that makes a group and ends without removing it, as a sectl
  // killed with SIGKILL does.
  std::array<char, 512> left_path{};
  std::array<int, 2> path_pipe{};
  ASSERT_EQ(::pipe(path_pipe.data()), 0);
  const pid_t killed = ::fork();
  ASSERT_GE(killed, 0);
  if (killed == 0) {
    auto group = ProcessLimitGroup::Create(8);
    if (group) (void)::write(path_pipe[1], group->path().c_str(), group->path().size());
    ::_exit(0);  // no destructor runs
  }
  ::close(path_pipe[1]);
  ASSERT_GT(::read(path_pipe[0], left_path.data(), left_path.size() - 1), 0);
  ::close(path_pipe[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(killed, &status, 0), killed);
  ASSERT_EQ(::access(left_path.data(), F_OK), 0) << left_path.data();

  ProcessLimitGroup::RemoveGroupsLeftBehind();
  EXPECT_NE(::access(left_path.data(), F_OK), 0) << left_path.data();
}

TEST(ProcessLimitGroup, EveryPluginProcessRunsInAGroupOfItsOwn) {
  const std::string description = ProcessLimitGroup::Describe(kMaxPluginProcesses);
  if (!description.starts_with("at most")) GTEST_SKIP() << description;
  auto result = RunInChildProcess(
      [](int fd) {
        std::ifstream groups("/proc/self/cgroup");
        std::string found = "no pids line";
        for (std::string line; std::getline(groups, line);) {
          if (line.find(":pids:") != std::string::npos || line.starts_with("0::")) found = line;
          if (line.find("/sectl-") != std::string::npos) break;
        }
        WriteResult(fd, found);
        return 0;
      },
      {});
  ASSERT_TRUE(result.has_value()) << result.error().message();
  EXPECT_NE(result->result.find("/sectl-" + std::to_string(::getpid()) + "-"), std::string::npos)
      << result->result;
}

TEST(ProcessLimitGroup, TheConfinementSaysWhetherOneIsInForce) {
  const std::string description = ProcessLimitGroup::Describe(kMaxPluginProcesses);
  EXPECT_TRUE(description.starts_with("at most 4096 processes and threads") ||
              description.starts_with("no pids cgroup: "))
      << description;
}

}  // namespace
}  // namespace sectl::isolation
