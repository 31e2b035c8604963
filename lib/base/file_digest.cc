#include "base/file_digest.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <memory>

namespace sectl {
namespace {

struct DigestContextDeleter {
  void operator()(EVP_MD_CTX* context) const { EVP_MD_CTX_free(context); }
};

// Closes the descriptor it owns.
class OwnedDescriptor {
 public:
  explicit OwnedDescriptor(int fd) : fd_(fd) {}
  OwnedDescriptor(const OwnedDescriptor&) = delete;
  OwnedDescriptor& operator=(const OwnedDescriptor&) = delete;
  ~OwnedDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

constexpr int64_t kNanosecondsPerSecond = 1'000'000'000;

int64_t Nanoseconds(const timespec& time) {
  return static_cast<int64_t>(time.tv_sec) * kNanosecondsPerSecond + time.tv_nsec;
}

}  // namespace

Expected<FileIdentity> IdentityOfOpenFile(int fd) {
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    return Fail(ErrorCode::kIoError, fmt::format("fstat: {}", std::strerror(errno)));
  }
  return FileIdentity{.device = static_cast<uint64_t>(info.st_dev),
                      .inode = static_cast<uint64_t>(info.st_ino),
                      .size = static_cast<int64_t>(info.st_size),
                      .modified_ns = Nanoseconds(info.st_mtim),
                      .changed_ns = Nanoseconds(info.st_ctim)};
}

Expected<FileDigest> DigestFile(const std::string& path) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it has no effect
  // on a regular file.
  OwnedDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (file.get() < 0) {
    return Fail(ErrorCode::kIoError, fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  }
  struct stat info {};
  if (::fstat(file.get(), &info) != 0 || !S_ISREG(info.st_mode)) {
    return Fail(ErrorCode::kIoError, fmt::format("cannot hash {}: not a regular file", path));
  }
  auto before = IdentityOfOpenFile(file.get());
  if (!before) return tl::unexpected(before.error().WithContext(path));

  std::unique_ptr<EVP_MD_CTX, DigestContextDeleter> context(EVP_MD_CTX_new());
  if (!context || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1) {
    return Fail(ErrorCode::kInternal, "OpenSSL could not start a SHA-256 digest");
  }
  std::array<unsigned char, size_t{1} << 16> buffer{};
  for (;;) {
    const ssize_t count = ::read(file.get(), buffer.data(), buffer.size());
    if (count == 0) break;
    if (count < 0) {
      if (errno == EINTR) continue;
      return Fail(ErrorCode::kIoError,
                  fmt::format("error while reading {}: {}", path, std::strerror(errno)));
    }
    EVP_DigestUpdate(context.get(), buffer.data(), static_cast<size_t>(count));
  }
  auto after = IdentityOfOpenFile(file.get());
  if (!after) return tl::unexpected(after.error().WithContext(path));
  if (*after != *before) {
    return Fail(ErrorCode::kIoError,
                fmt::format("{}: the file changed while sectl was hashing it", path));
  }

  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  EVP_DigestFinal_ex(context.get(), digest.data(), &length);
  std::string hex;
  hex.reserve(size_t{2} * length);
  for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
  return FileDigest{std::move(hex), *before};
}

Expected<std::string> Sha256OfFile(const std::string& path) {
  auto digest = DigestFile(path);
  if (!digest) return tl::unexpected(digest.error());
  return std::move(digest->sha256);
}

}  // namespace sectl
