#include "base/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

namespace sectl {
namespace {

Error IoError(std::string_view what, const std::string& path, int error_number) {
  return Error(ErrorCode::kIoError,
               fmt::format("cannot {} {}: {}", what, path, std::strerror(error_number)));
}

// Closes the descriptor and removes the temporary file unless committed.
class TemporaryFile {
 public:
  explicit TemporaryFile(std::string path) : path_(std::move(path)) {}
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(path_.c_str());
  }
  std::string& path() { return path_; }
  int& fd() { return fd_; }
  // close(2) can report a write that failed late (a full disk, NFS).
  bool Close() {
    const int fd = fd_;
    fd_ = -1;
    return ::close(fd) == 0;
  }
  void Commit() { committed_ = true; }

 private:
  std::string path_;
  int fd_ = -1;
  bool committed_ = false;
};

// The process's umask, read without changing it (umask(2) can only set it,
// and setting it to read it races with other threads creating files).
mode_t CurrentUmask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("Umask:"))
      return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
  }
  return 022;  // the usual one, where /proc is not mounted
}

// Why `path` must not be replaced, or empty when it is absent or a regular file.
std::string RefusalReason(const struct stat& existing) {
  if (S_ISREG(existing.st_mode)) return {};
  if (S_ISLNK(existing.st_mode)) {
    return "it is a symbolic link, which sectl does not follow; name the file it points to";
  }
  if (S_ISDIR(existing.st_mode)) return "it is a directory";
  if (S_ISCHR(existing.st_mode) || S_ISBLK(existing.st_mode)) return "it is a device";
  if (S_ISFIFO(existing.st_mode)) return "it is a FIFO";
  if (S_ISSOCK(existing.st_mode)) return "it is a socket";
  return "it exists and is not a regular file";
}

Expected<void> WriteAllOf(int fd, std::string_view content, const std::string& path) {
  const char* data = content.data();
  size_t remaining = content.size();
  while (remaining > 0) {
    const ssize_t written = ::write(fd, data, remaining);
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) return tl::unexpected(IoError("write", path, errno));
    if (written == 0) return tl::unexpected(IoError("write", path, ENOSPC));
    data += written;
    remaining -= static_cast<size_t>(written);
  }
  return {};
}

}  // namespace

Expected<void> WriteFileAtomically(const std::string& path, std::string_view content) {
  if (path.empty()) return Fail(ErrorCode::kInvalidArgument, "cannot write a file with no name");
  mode_t mode = 0666 & ~CurrentUmask();
  struct stat existing {};
  if (::lstat(path.c_str(), &existing) == 0) {
    if (std::string reason = RefusalReason(existing); !reason.empty()) {
      return Fail(ErrorCode::kFailedPrecondition,
                  fmt::format("refusing to write {}: {}", path, reason));
    }
    mode = existing.st_mode & 07777;
  } else if (errno != ENOENT) {
    return tl::unexpected(IoError("write", path, errno));
  }

  const std::filesystem::path target(path);
  const std::string directory = target.has_parent_path() ? target.parent_path().string() : ".";
  // mkstemp creates the file with O_EXCL: a link planted under the
  // temporary name makes it fail rather than write through the link.
  TemporaryFile temporary(fmt::format("{}/.{}.XXXXXX", directory, target.filename().string()));
  temporary.fd() = ::mkstemp(temporary.path().data());
  if (temporary.fd() < 0) return tl::unexpected(IoError("create a file in", directory, errno));
  if (::fchmod(temporary.fd(), mode) != 0) return tl::unexpected(IoError("write", path, errno));

  if (auto written = WriteAllOf(temporary.fd(), content, path); !written) return written;
  if (::fsync(temporary.fd()) != 0) return tl::unexpected(IoError("flush", path, errno));
  if (!temporary.Close()) return tl::unexpected(IoError("write", path, errno));
  // rename(2) replaces whatever is at `path` now, a link included, without
  // following it: even a link swapped in since lstat is replaced, not
  // written through.
  if (::rename(temporary.path().c_str(), path.c_str()) != 0) {
    return tl::unexpected(IoError("replace", path, errno));
  }
  temporary.Commit();
  // The rename itself reaches the disk only with the directory.
  const int directory_fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (directory_fd >= 0) {
    ::fsync(directory_fd);
    ::close(directory_fd);
  }
  return {};
}

}  // namespace sectl
