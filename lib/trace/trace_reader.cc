#include "trace/trace_reader.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "trace/trace_format.h"

namespace sectl::trace {
namespace {

Error FileError(const std::string& path, int error) {
  return {error == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIoError,
          fmt::format("{}: {}", path, std::strerror(error))};
}

// The file's bytes, read through one descriptor so that what was checked
// (a regular file) is what is read.
Expected<std::vector<std::byte>> ReadWholeFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return tl::unexpected(FileError(path, errno));
  struct stat status {};
  if (::fstat(fd, &status) != 0) {
    const int error = errno;
    ::close(fd);
    return tl::unexpected(FileError(path, error));
  }
  if (S_ISDIR(status.st_mode)) {
    ::close(fd);
    return Fail(ErrorCode::kIoError, fmt::format("{}: is a directory, not a trace", path));
  }
  std::vector<std::byte> bytes;
  if (S_ISREG(status.st_mode)) bytes.reserve(static_cast<size_t>(status.st_size));
  std::array<std::byte, size_t{64} * 1024> chunk{};
  for (;;) {
    const ssize_t got = ::read(fd, chunk.data(), chunk.size());
    if (got < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::close(fd);
      return tl::unexpected(FileError(path, error));
    }
    if (got == 0) break;
    bytes.insert(bytes.end(), chunk.begin(), chunk.begin() + got);
  }
  ::close(fd);
  return bytes;
}

}  // namespace

Expected<Trace> ReadTraceFile(const std::string& path) {
  auto bytes = ReadWholeFile(path);
  if (!bytes) return tl::unexpected(bytes.error());
  auto trace = DecodeTrace(*bytes);
  if (!trace) return tl::unexpected(trace.error().WithContext(path));
  return trace;
}

}  // namespace sectl::trace
