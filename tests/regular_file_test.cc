// ReadRegularFile: what sectl does with every file it is handed (reports,
// baselines, traces): a FIFO or a device is refused at once rather than
// blocking or reading forever, and a file over its cap is refused whole.
#include "base/regular_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sectl_process.h"

namespace sectl {
namespace {

class RegularFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "sectl-regular-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    directory_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = (directory_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  std::filesystem::path directory_;
};

TEST_F(RegularFileTest, ReadsARegularFileWhole) {
  const std::string path = Write("report.json", "{\"a\": 1}\n");
  auto text = ReadRegularFile(path, 1024, "conform report");
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_EQ(*text, "{\"a\": 1}\n");
}

TEST_F(RegularFileTest, AFifoIsRefusedWithoutWaitingForAWriter) {
  const std::string path = (directory_ / "fifo").string();
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  auto text = ReadRegularFile(path, 1024, "trace");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(text.error().message(),
            path + ": is a FIFO, not a regular file (a trace is read only from a regular file)");
}

TEST_F(RegularFileTest, ADeviceThatNeverEndsIsRefused) {
  auto text = ReadRegularFile("/dev/zero", 1024, "baseline");
  ASSERT_FALSE(text);
  EXPECT_NE(text.error().message().find("/dev/zero: is a character device"), std::string::npos)
      << text.error().message();
}

TEST_F(RegularFileTest, ADirectoryIsRefused) {
  auto text = ReadRegularFile(directory_.string(), 1024, "baseline");
  ASSERT_FALSE(text);
  EXPECT_NE(text.error().message().find("is a directory"), std::string::npos);
}

TEST_F(RegularFileTest, AFileOverItsCapIsRefusedWhole) {
  const std::string path = Write("big.json", std::string(2048, 'x'));
  auto text = ReadRegularFile(path, 1024, "bench report");
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(text.error().message().find("larger than the"), std::string::npos)
      << text.error().message();
  EXPECT_NE(text.error().message().find("a bench report may be"), std::string::npos);
}

TEST_F(RegularFileTest, AMissingFileIsNotFound) {
  auto text = ReadRegularFile((directory_ / "absent").string(), 1024, "trace");
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().code(), ErrorCode::kNotFound);
}

// Every command that reads a file sectl was handed refuses a FIFO at once
// (one line, exit 2) instead of blocking until a writer comes.
TEST_F(RegularFileTest, EveryCommandRefusesAFifoAtOnce) {
  const std::string fifo = (directory_ / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::vector<std::vector<std::string>> commands = {
      {"report", fifo},
      {"conform", "--baseline", fifo, "--filter", "registration.*"},
      {"bench", "memcpy", "--compare", fifo},
      {"trace", "show", fifo},
      {"replay", fifo},
      {"validate", "show", fifo},
  };
  for (const auto& arguments : commands) {
    testing::RunOptions options;
    options.deadline = std::chrono::seconds(60);
    const testing::CommandResult result = testing::RunSectl(arguments, options);
    SCOPED_TRACE(arguments.front() + " " + arguments[1]);
    EXPECT_FALSE(result.timed_out);
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_NE(result.err.find(fifo + ": is a FIFO, not a regular file"), std::string::npos)
        << result.err;
  }
}

}  // namespace
}  // namespace sectl
