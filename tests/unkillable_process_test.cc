// A process that SIGKILL cannot end: one of its threads waits, in the
// kernel and beyond the reach of any signal, for a FUSE request that its
// file system (this test) has read and never answers. sectl kills it at its
// deadline, waits a bounded grace, reports it stuck and goes on
// (isolation/bounded_reap.h); it never waits on it for good.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/fuse.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "isolation/bounded_reap.h"
#include "isolation/child_outcome.h"
#include "isolation/child_process.h"

namespace sectl::isolation {
namespace {

using namespace std::chrono_literals;

// A FUSE file system served by a thread of this process that answers
// FUSE_INIT and then reads the next request and never answers it.
class SilentFuseMount {
 public:
  // Empty `why_not` when mounted.
  SilentFuseMount() {
    if (::geteuid() != 0) {
      why_not_ = "needs root to mount FUSE";
      return;
    }
    if (directory_.path().empty()) {
      why_not_ = "cannot make a mount point in /var/tmp";
      return;
    }
    device_ = ::open("/dev/fuse", O_RDWR | O_CLOEXEC);
    if (device_ < 0) {
      why_not_ = std::string("no /dev/fuse: ") + strerrorname_np(errno);
      return;
    }
    const std::string options =
        "fd=" + std::to_string(device_) + ",rootmode=40000,user_id=0,group_id=0";
    if (::mount("sectl-silent", directory_.path().c_str(), "fuse", MS_NOSUID | MS_NODEV,
                options.c_str()) != 0) {
      why_not_ = std::string("cannot mount FUSE: ") + strerrorname_np(errno);
      ::close(device_);
      device_ = -1;
      return;
    }
    mounted_ = true;
    server_ = std::thread([this] { Serve(); });
  }
  ~SilentFuseMount() {
    // A forced unmount aborts the connection: the held request fails, the
    // killed process can end at last, and the server's read returns.
    if (mounted_) {
      ::umount2(directory_.path().c_str(), MNT_FORCE);
      ::umount2(directory_.path().c_str(), MNT_DETACH);
    }
    if (server_.joinable()) server_.join();
    if (device_ >= 0) ::close(device_);
  }
  SilentFuseMount(const SilentFuseMount&) = delete;
  SilentFuseMount& operator=(const SilentFuseMount&) = delete;

  const std::string& why_not() const { return why_not_; }
  std::string file() const { return (directory_.path() / "anything").string(); }
  bool request_held() const { return held_.load(); }

 private:
  void Serve() {
    std::vector<char> buffer(size_t{1} << 20);
    const ssize_t got = ::read(device_, buffer.data(), buffer.size());
    if (got < static_cast<ssize_t>(sizeof(fuse_in_header) + sizeof(fuse_init_in))) return;
    fuse_in_header request{};
    std::memcpy(&request, buffer.data(), sizeof(request));
    if (request.opcode != FUSE_INIT) return;
    struct {
      fuse_out_header header;
      fuse_init_out init;
    } reply{};
    reply.header.len = sizeof(reply);
    reply.header.unique = request.unique;
    reply.init.major = FUSE_KERNEL_VERSION;
    reply.init.minor = FUSE_KERNEL_MINOR_VERSION;
    reply.init.max_write = 4096;
    reply.init.max_readahead = 4096;
    reply.init.time_gran = 1;
    if (::write(device_, &reply, sizeof(reply)) != static_cast<ssize_t>(sizeof(reply))) return;
    // The next request (the lookup) is read, and so no longer pending: its
    // sender now waits without any signal reaching it.
    if (::read(device_, buffer.data(), buffer.size()) > 0) held_ = true;
    // Until the device is closed: reads then fail.
    while (::read(device_, buffer.data(), buffer.size()) > 0) {
    }
  }

  // A directory of its own under /var/tmp, which the child sees as the host
  // has it (isolation/file_system_view.h: read-only, this mount included).
  struct MountPoint {
    MountPoint() {
      std::string pattern = "/var/tmp/sectl-fuse-XXXXXX";
      if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
    }
    ~MountPoint() {
      if (!path_.empty()) ::rmdir(path_.c_str());
    }
    MountPoint(const MountPoint&) = delete;
    MountPoint& operator=(const MountPoint&) = delete;
    const std::filesystem::path& path() const { return path_; }
    std::filesystem::path path_;
  };
  MountPoint directory_;
  int device_ = -1;
  bool mounted_ = false;
  std::string why_not_;
  std::thread server_;
  std::atomic<bool> held_{false};
};

class UnkillableProcess : public ::testing::TestWithParam<bool> {};

TEST_P(UnkillableProcess, IsReportedStuckAndAbandonedWithinTheGrace) {
  SilentFuseMount fuse;
  if (!fuse.why_not().empty()) GTEST_SKIP() << fuse.why_not();
  const std::string file = fuse.file();
  const auto started = std::chrono::steady_clock::now();
  auto result = RunInChildProcess(
      [&](int) {
        struct stat status {};
        ::stat(file.c_str(), &status);
        return 0;
      },
      {.timeout = 1s, .confinement = {.namespaces = GetParam()}});
  const auto took = std::chrono::steady_clock::now() - started;
  ASSERT_TRUE(result.has_value()) << result.error().message();
  EXPECT_TRUE(fuse.request_held()) << "the child never reached the file system";
  EXPECT_EQ(result->end, ChildEnd::kTimedOut);
  EXPECT_TRUE(result->stuck_after_kill);
  // The deadline, the grace after SIGKILL, and room for a busy machine.
  EXPECT_LT(took, 1s + kKilledProcessGrace + 3s);
  const ChildOutcome judged = JudgeChild(*result, {});
  EXPECT_EQ(judged.blame, Blame::kPlugin);
  EXPECT_NE(judged.description.find("did not return within 1 s"), std::string::npos)
      << judged.description;
  EXPECT_NE(judged.description.find("sectl abandoned it"), std::string::npos) << judged.description;
}

INSTANTIATE_TEST_SUITE_P(BothWays, UnkillableProcess, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "InItsOwnNamespaces" : "WithoutNamespaces";
                         });

}  // namespace
}  // namespace sectl::isolation
