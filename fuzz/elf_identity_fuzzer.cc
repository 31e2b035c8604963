// Fuzzes the ELF header reader, which sees a plugin file's bytes before
// dlopen does. Any input must give an identity or a one-line error, never a
// crash, a hang or a read outside the file.
#include <elf.h>

#include <cstdint>
#include <cstdlib>

#include "loader/elf_identity.h"
#include "memory_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static sectl::fuzz::MemoryFile file("elf_identity_fuzz");
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
