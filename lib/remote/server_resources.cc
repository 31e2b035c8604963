#include "remote/server_resources.h"

#include <dirent.h>
#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>

namespace sectl::remote {
namespace {

Error Unreadable(const std::string& path, int error) {
  return Error(ErrorCode::kIoError,
               fmt::format("cannot read {}: {}", path, strerrorname_np(error)));
}

// The number after `field` in /proc/PID/status ("VmRSS:\t  1234 kB").
Expected<uint64_t> StatusField(pid_t pid, std::string_view field) {
  const std::string path = fmt::format("/proc/{}/status", pid);
  errno = 0;
  std::ifstream status(path);
  if (!status) return tl::unexpected(Unreadable(path, errno != 0 ? errno : EACCES));
  std::string line;
  while (std::getline(status, line)) {
    if (!line.starts_with(field) || line.size() <= field.size() || line[field.size()] != ':') {
      continue;
    }
    const size_t digits = line.find_first_of("0123456789", field.size());
    uint64_t value = 0;
    if (digits == std::string::npos ||
        std::from_chars(line.data() + digits, line.data() + line.size(), value).ec != std::errc{}) {
      break;
    }
    return value;
  }
  // A zombie has no VmRSS line: not zero, unknown.
  return Fail(ErrorCode::kIoError, fmt::format("{} has no {} line", path, field));
}

}  // namespace

Expected<uint64_t> ResidentBytesOf(pid_t pid) {
  auto kilobytes = StatusField(pid, "VmRSS");
  if (!kilobytes) return kilobytes;
  return *kilobytes * 1024;
}

Expected<uint64_t> ThreadCountOf(pid_t pid) { return StatusField(pid, "Threads"); }

Expected<uint64_t> OpenDescriptorCountOf(pid_t pid) {
  const std::string path = fmt::format("/proc/{}/fd", pid);
  const std::unique_ptr<DIR, int (*)(DIR*)> directory(::opendir(path.c_str()), &::closedir);
  if (directory == nullptr) return tl::unexpected(Unreadable(path, errno));
  uint64_t count = 0;
  errno = 0;
  while (const dirent* entry = ::readdir(directory.get())) {
    if (entry->d_name[0] != '.') ++count;
  }
  if (errno != 0) return tl::unexpected(Unreadable(path, errno));
  return count;
}

}  // namespace sectl::remote
