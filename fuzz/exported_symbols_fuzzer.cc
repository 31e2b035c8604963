// Fuzzes the dynamic-symbol scan, which reads a plugin file's section
// headers, symbol table and names in sectl's own process before any
// isolation. Any input must give a list of names or a one-line error, never
// a crash, a hang or a read outside the file.
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "loader/exported_symbols.h"

namespace {

// The scan takes a path, so the bytes go into an anonymous in-memory file
// reached through /proc; no directory fills up with inputs.
class MemoryFile {
 public:
  MemoryFile() : fd_(::memfd_create("exported_symbols_fuzz", MFD_CLOEXEC)) {
    if (fd_ < 0) std::abort();
  }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  ~MemoryFile() { ::close(fd_); }

  void Replace(const uint8_t* data, size_t size) {
    if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, data, size, 0) != static_cast<ssize_t>(size)) {
      std::abort();
    }
  }
  std::string Path() const { return fmt::format("/proc/self/fd/{}", fd_); }

 private:
  int fd_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static MemoryFile file;
  file.Replace(data, size);
  const auto functions = sectl::loader::ExportedFunctions(file.Path());
  if (functions) {
    // Names come from inside the file: none empty, none longer than it,
    // sorted and unique.
    for (const auto& name : *functions) {
      if (name.empty() || name.size() > size) std::abort();
    }
    if (!std::is_sorted(functions->begin(), functions->end()) ||
        std::adjacent_find(functions->begin(), functions->end()) != functions->end()) {
      std::abort();
    }
  } else if (functions.error().message().empty() ||
             functions.error().message().find('\n') != std::string::npos) {
    std::abort();  // an error is exactly one line
  }
  return 0;
}
