// A process's place in the process tree, as /proc shows it to anyone.
#pragma once

#include <sys/types.h>

#include <optional>

namespace sectl::isolation {

struct ProcessIds {
  pid_t pid = 0;
  pid_t parent = 0;
  pid_t group = 0;
  pid_t session = 0;
};

// Reads /proc/<pid>/stat (readable even for a non-dumpable process);
// nullopt when the process is gone or the file is not what it should be.
std::optional<ProcessIds> ReadProcessIds(pid_t pid);

}  // namespace sectl::isolation
