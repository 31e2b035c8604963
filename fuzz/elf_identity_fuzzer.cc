// Fuzzes the ELF header reader, which sees a plugin file's bytes before
// dlopen does. Any input must give an identity or a one-line error, never a
// crash, a hang or a read outside the file.
#include <elf.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

#include "loader/elf_identity.h"

namespace {

// The reader takes a path, so the bytes go into an anonymous in-memory file
// reached through /proc; no directory fills up with inputs.
class MemoryFile {
 public:
  MemoryFile() : fd_(::memfd_create("elf_identity_fuzz", MFD_CLOEXEC)) {
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
  const auto identity = sectl::loader::InspectPluginFile(file.Path());
  if (identity) {
    // Accepted means: a whole 64-bit shared library for this machine.
    if (identity->bits != 64 || identity->type != ET_DYN ||
        identity->machine != sectl::loader::HostMachine() || identity->file_size != size) {
      std::abort();
    }
  } else if (identity.error().message().empty() ||
             identity.error().message().find('\n') != std::string::npos) {
    std::abort();  // an error is exactly one line
  }
  return 0;
}
