// An anonymous in-memory file for fuzzers of readers that take a path: the
// bytes are reached through /proc, so no directory fills up with inputs.
#pragma once

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace sectl::fuzz {

class MemoryFile {
 public:
  explicit MemoryFile(const char* name) : fd_(::memfd_create(name, MFD_CLOEXEC)) {
    if (fd_ < 0) std::abort();
  }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  ~MemoryFile() { ::close(fd_); }

  // Makes the file hold exactly `data`.
  void Replace(const uint8_t* data, size_t size) {
    if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, data, size, 0) != static_cast<ssize_t>(size)) {
      std::abort();
    }
  }
  std::string Path() const { return fmt::format("/proc/self/fd/{}", fd_); }

 private:
  int fd_;
};

}  // namespace sectl::fuzz
