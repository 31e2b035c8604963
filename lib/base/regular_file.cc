#include "base/regular_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "base/byte_sizes.h"

namespace sectl {
namespace {

// What a path that is no regular file names, for the error.
std::string_view KindOfFile(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Closes the descriptor however the read ends.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

Error NotRegular(const std::string& path, mode_t mode, std::string_view what) {
  return {ErrorCode::kInvalidArgument,
          fmt::format("{}: is {}, not a regular file (a {} is read only from a regular file)", path,
                      KindOfFile(mode), what)};
}

Error TooLarge(const std::string& path, std::string_view what, size_t max_bytes) {
  return {ErrorCode::kInvalidArgument,
          fmt::format("{}: larger than the {} a {} may be", path, FormatByteSize(max_bytes), what)};
}

}  // namespace

Expected<std::string> ReadRegularFile(const std::string& path, size_t max_bytes,
                                      std::string_view what) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
  // writer. What is opened is what fstat judges and what is read.
  FileDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (file.get() < 0) {
    const int error = errno;
    if (error == ENOENT) return Fail(ErrorCode::kNotFound, fmt::format("{}: no such file", path));
    return Fail(ErrorCode::kIoError, fmt::format("{}: {}", path, std::strerror(error)));
  }
  struct stat status {};
  if (::fstat(file.get(), &status) != 0) {
    return Fail(ErrorCode::kIoError, fmt::format("{}: {}", path, std::strerror(errno)));
  }
  if (!S_ISREG(status.st_mode)) return tl::unexpected(NotRegular(path, status.st_mode, what));
  if (static_cast<uint64_t>(status.st_size) > max_bytes) {
    return tl::unexpected(TooLarge(path, what, max_bytes));
  }
  std::string text;
  text.reserve(static_cast<size_t>(status.st_size));
  std::array<char, size_t{64} * 1024> chunk{};
  for (;;) {
    const ssize_t got = ::read(file.get(), chunk.data(), chunk.size());
    if (got < 0) {
      if (errno == EINTR) continue;
      return Fail(ErrorCode::kIoError, fmt::format("{}: {}", path, std::strerror(errno)));
    }
    if (got == 0) break;
    if (text.size() + static_cast<size_t>(got) > max_bytes) {
      return tl::unexpected(TooLarge(path, what, max_bytes));  // it grew while being read
    }
    text.append(chunk.data(), static_cast<size_t>(got));
  }
  return text;
}

Expected<void> RequireRegularFile(const std::string& path, std::string_view what) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) {
    const int error = errno;
    if (error == ENOENT) return Fail(ErrorCode::kNotFound, fmt::format("{}: no such file", path));
    return Fail(ErrorCode::kIoError, fmt::format("{}: {}", path, std::strerror(error)));
  }
  if (!S_ISREG(status.st_mode)) return tl::unexpected(NotRegular(path, status.st_mode, what));
  return {};
}

}  // namespace sectl
