#include "base/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace sectl {
namespace {

Error IoError(std::string_view what, const std::string& path) {
  return Error(ErrorCode::kIoError,
               fmt::format("cannot {} {}: {}", what, path, std::strerror(errno)));
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
  void Commit() { committed_ = true; }

 private:
  std::string path_;
  int fd_ = -1;
  bool committed_ = false;
};

}  // namespace

Expected<void> WriteFileAtomically(const std::string& path, std::string_view content) {
  struct stat existing {};
  if (::lstat(path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode)) {
    return Fail(ErrorCode::kFailedPrecondition,
                fmt::format("refusing to write {}: it exists and is not a regular file", path));
  }
  std::filesystem::path target(path);
  std::string directory = target.has_parent_path() ? target.parent_path().string() : ".";
  TemporaryFile temporary(fmt::format("{}/.{}.XXXXXX", directory, target.filename().string()));
  temporary.fd() = ::mkstemp(temporary.path().data());
  if (temporary.fd() < 0) return tl::unexpected(IoError("create a file in", directory));
  ::fchmod(temporary.fd(), 0644);

  const char* data = content.data();
  size_t remaining = content.size();
  while (remaining > 0) {
    ssize_t written = ::write(temporary.fd(), data, remaining);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return tl::unexpected(IoError("write", path));
    data += written;
    remaining -= static_cast<size_t>(written);
  }
  if (::fsync(temporary.fd()) != 0) return tl::unexpected(IoError("flush", path));
  if (::rename(temporary.path().c_str(), path.c_str()) != 0) {
    return tl::unexpected(IoError("replace", path));
  }
  temporary.Commit();
  return {};
}

}  // namespace sectl
