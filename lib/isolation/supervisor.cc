#include "isolation/supervisor.h"

#include <sys/prctl.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern char** environ;  // NOLINT: POSIX declares it nowhere in C++

namespace sectl::isolation {
namespace {

// clearenv() forgets the variables but leaves their bytes where the kernel
// placed them at exec; /proc/PID/environ reads exactly that block. Copy the
// variables out, zero the block, and set them again (setenv copies to the
// heap, which /proc/PID/environ never shows).
void MoveEnvironmentOffTheInitialBlock() {
  std::vector<std::string> variables;
  for (char** variable = environ; variable != nullptr && *variable != nullptr; ++variable) {
    variables.emplace_back(*variable);
  }
  for (char** variable = environ; variable != nullptr && *variable != nullptr; ++variable) {
    std::memset(*variable, 0, std::strlen(*variable));
  }
  ::clearenv();
  for (const std::string& variable : variables) {
    const auto equals = variable.find('=');
    if (equals == std::string::npos || equals == 0) continue;
    ::setenv(variable.substr(0, equals).c_str(), variable.c_str() + equals + 1, 1);
  }
}

}  // namespace

void PrepareSupervisor() {
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  ::prctl(PR_SET_DUMPABLE, 0);
  MoveEnvironmentOffTheInitialBlock();
}

}  // namespace sectl::isolation
