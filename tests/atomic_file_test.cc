// WriteFileAtomically: whole files or none, ordinary permissions, never
// through a link or over something that is not a regular file, and a full
// disk as a one-line error that leaves the old file and no debris.
#include "base/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>

#include "isolation/child_process.h"

namespace sectl {
namespace {

namespace fs = std::filesystem;

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() /
                 ("sectl_atomic_file_test_" + std::to_string(::getpid()) + "_" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(directory_);
  }
  void TearDown() override { fs::remove_all(directory_); }

  std::string PathOf(const std::string& name) const { return (directory_ / name).string(); }
  static std::string Read(const std::string& path) {
    std::ifstream file(path);
    return {std::istreambuf_iterator<char>(file), {}};
  }
  static mode_t ModeOf(const std::string& path) {
    struct stat info {};
    ::stat(path.c_str(), &info);
    return info.st_mode & 07777;
  }
  // Everything in the directory: no temporary file may be left behind.
  size_t EntryCount() const {
    return static_cast<size_t>(std::distance(fs::directory_iterator(directory_), {}));
  }

  fs::path directory_;
};

bool IsOneLine(const std::string& message) {
  return !message.empty() && message.find('\n') == std::string::npos;
}

TEST_F(AtomicFileTest, ANewFileGetsOrdinaryPermissionsUnderTheUmask) {
  const mode_t saved = ::umask(022);
  ASSERT_TRUE(WriteFileAtomically(PathOf("usual"), "report").has_value());
  ::umask(077);
  ASSERT_TRUE(WriteFileAtomically(PathOf("private"), "report").has_value());
  ::umask(saved);
  EXPECT_EQ(ModeOf(PathOf("usual")), 0644);
  EXPECT_EQ(ModeOf(PathOf("private")), 0600);
  EXPECT_EQ(Read(PathOf("usual")), "report");
}

TEST_F(AtomicFileTest, ReplacingAFileKeepsItsPermissionsAndLeavesNoTemporary) {
  const std::string path = PathOf("report.json");
  std::ofstream(path) << "old";
  ::chmod(path.c_str(), 0640);
  ASSERT_TRUE(WriteFileAtomically(path, "new").has_value());
  EXPECT_EQ(Read(path), "new");
  EXPECT_EQ(ModeOf(path), 0640);
  EXPECT_EQ(EntryCount(), 1u);
}

TEST_F(AtomicFileTest, ASymbolicLinkIsRefusedAndItsTargetUntouched) {
  const std::string target = PathOf("precious");
  std::ofstream(target) << "keep me";
  fs::create_symlink(target, PathOf("report.json"));
  auto written = WriteFileAtomically(PathOf("report.json"), "overwritten");
  ASSERT_FALSE(written.has_value());
  EXPECT_TRUE(IsOneLine(written.error().message()));
  EXPECT_NE(written.error().message().find("symbolic link"), std::string::npos)
      << written.error().message();
  EXPECT_EQ(Read(target), "keep me");
  EXPECT_TRUE(fs::is_symlink(PathOf("report.json")));
  EXPECT_EQ(EntryCount(), 2u);
}

TEST_F(AtomicFileTest, WhatIsNotARegularFileIsRefused) {
  ASSERT_EQ(::mkfifo(PathOf("fifo").c_str(), 0600), 0);
  for (const auto& [path, reason] : {std::pair<std::string, std::string>{"/dev/full", "device"},
                                     {"/dev/null", "device"},
                                     {directory_.string(), "directory"},
                                     {PathOf("fifo"), "FIFO"}}) {
    auto written = WriteFileAtomically(path, "report");
    ASSERT_FALSE(written.has_value()) << path;
    EXPECT_TRUE(IsOneLine(written.error().message()));
    EXPECT_NE(written.error().message().find(reason), std::string::npos)
        << written.error().message();
  }
  EXPECT_EQ(EntryCount(), 1u);
}

TEST_F(AtomicFileTest, AMissingDirectoryIsAOneLineError) {
  auto written = WriteFileAtomically(PathOf("no/such/dir/report.json"), "report");
  ASSERT_FALSE(written.has_value());
  EXPECT_TRUE(IsOneLine(written.error().message()));
  EXPECT_NE(written.error().message().find("No such file or directory"), std::string::npos)
      << written.error().message();
}

// A disk that fills up mid-write, simulated with a file size limit in a
// child process (SIGXFSZ ignored, so write(2) fails with EFBIG as it would
// with ENOSPC): the old report stays whole and no temporary file remains.
TEST_F(AtomicFileTest, AFullDiskLeavesTheOldFileWholeAndNoDebris) {
  const std::string path = PathOf("report.json");
  std::ofstream(path) << "the previous report";
  auto child = isolation::RunInChildProcess(
      [&](int fd) {
        ::signal(SIGXFSZ, SIG_IGN);
        const rlimit small{4096, 4096};
        ::setrlimit(RLIMIT_FSIZE, &small);
        auto written = WriteFileAtomically(path, std::string(size_t{1} << 20, 'x'));
        isolation::WriteResult(fd, written ? "written" : written.error().message());
        return 0;
      },
      // The child sees a read-only file system but for what it is told it
      // writes (isolation/file_system_view.h).
      {.confinement = {.plugin_writes = {path}}});
  ASSERT_TRUE(child.has_value());
  EXPECT_TRUE(IsOneLine(child->result));
  EXPECT_NE(child->result.find("cannot write " + path + ": File too large"), std::string::npos)
      << child->result;
  EXPECT_EQ(Read(path), "the previous report");
  EXPECT_EQ(EntryCount(), 1u);
}

}  // namespace
}  // namespace sectl
