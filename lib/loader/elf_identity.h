// Reading just enough of an ELF file to say why it cannot be a plugin here,
// before dlopen gets a chance to give a vaguer answer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/error.h"

namespace sectl::loader {

struct ElfIdentity {
  int bits = 0;  // 32 or 64
  bool little_endian = true;
  uint16_t type = 0;     // ET_DYN for a shared library
  uint16_t machine = 0;  // EM_X86_64, EM_AARCH64, ...
  uint64_t file_size = 0;
};

// "x86-64", "aarch64", ...; "machine 0x1234" for ones not in the table.
std::string MachineName(uint16_t machine);

// The machine this sectl was built for.
uint16_t HostMachine();

// Checks that `path` is a readable ELF shared library for this machine, whole
// (not truncated). The error says in one line what is wrong: no such file, a
// directory, not ELF, truncated, wrong class, wrong machine, not a shared
// library (an executable, PIE programs such as /bin/ls included).
Expected<ElfIdentity> InspectPluginFile(const std::string& path);

// Whether an error of InspectPluginFile says that the path names no shared
// library at all (nothing there, a directory, a script, an executable, an
// object file): the wrong file was named. A truncated library or one built
// for another machine is a broken plugin instead.
bool NamesNoSharedLibrary(const Error& error);

}  // namespace sectl::loader
