#include "isolation/process_ids.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <string>

namespace sectl::isolation {

// "pid (comm) state ppid pgrp session ...", where comm may itself hold ") ".
std::optional<ProcessIds> ReadProcessIds(pid_t pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/stat";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::array<char, 512> buffer{};
  const ssize_t got = ::read(fd, buffer.data(), buffer.size() - 1);
  ::close(fd);
  if (got <= 0) return std::nullopt;
  const std::string text(buffer.data(), static_cast<size_t>(got));
  const auto close_paren = text.rfind(')');
  if (close_paren == std::string::npos || close_paren + 4 > text.size()) return std::nullopt;
  const char* cursor = text.c_str() + close_paren + 2;  // the state letter
  ++cursor;
  char* end = nullptr;
  ProcessIds ids;
  ids.pid = pid;
  ids.parent = static_cast<pid_t>(std::strtol(cursor, &end, 10));
  ids.group = static_cast<pid_t>(std::strtol(end, &end, 10));
  ids.session = static_cast<pid_t>(std::strtol(end, &end, 10));
  return ids;
}

}  // namespace sectl::isolation
