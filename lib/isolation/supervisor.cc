#include "isolation/supervisor.h"

#include <sys/mman.h>
#include <sys/prctl.h>

#include <cstdlib>
#include <cstring>

#include "isolation/secret_residue.h"

extern char** environ;  // NOLINT: POSIX declares it nowhere in C++

namespace sectl::isolation {
namespace {

// Whether sectl's environment lives in the mapping children do not inherit.
bool moved_environment = false;

// clearenv() forgets the variables but leaves their bytes where the kernel
// placed them at exec; /proc/PID/environ reads exactly that block. And
// setenv() copies to the heap, which every forked child inherits: a plugin
// scanning its own memory would find sectl's variables there. So the
// variables move into a mapping of their own that children do not inherit
// (MADV_DONTFORK), and the initial block is zeroed.
void MoveEnvironmentIntoAnUninheritedMapping() {
  size_t count = 0;
  size_t bytes = 0;
  for (char** variable = environ; variable != nullptr && *variable != nullptr; ++variable) {
    ++count;
    bytes += std::strlen(*variable) + 1;
  }
  const size_t table_bytes = (count + 1) * sizeof(char*);
  void* mapping = ::mmap(nullptr, table_bytes + bytes, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED) return;  // the environment stays where it is
  ::madvise(mapping, table_bytes + bytes, MADV_DONTFORK);
  auto* table = static_cast<char**>(mapping);
  char* text = static_cast<char*>(mapping) + table_bytes;
  for (size_t i = 0; i < count; ++i) {
    const size_t length = std::strlen(environ[i]);
    std::memcpy(text, environ[i], length + 1);
    std::memset(environ[i], 0, length);
    table[i] = text;
    text += length + 1;
  }
  table[count] = nullptr;
  environ = table;
  moved_environment = true;
}

}  // namespace

void PrepareSupervisor() {
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  ::prctl(PR_SET_DUMPABLE, 0);
  MoveEnvironmentIntoAnUninheritedMapping();
  // What copying the variables left in registers and below this frame.
  ClearVectorRegisters();
  ClearDeadStack();
}

void ForgetSupervisorEnvironment() {
  // In a child the mapping is gone, and `environ` (or the array setenv made
  // since) points into it: nothing may read it. An empty environment until
  // the child sets the plugin's own.
  static char* empty[] = {nullptr};  // NOLINT: environ's type
  if (moved_environment) environ = empty;
}

}  // namespace sectl::isolation
