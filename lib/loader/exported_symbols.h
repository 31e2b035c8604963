// The functions a shared library exports, read from its dynamic symbol table
// on disk. dlsym can only answer "is this name there?"; recognising a plugin
// by the names it exports (TVMDevice<Name>Open, ...) needs the whole list.
// Reading the file runs no plugin code, so the parent process may do it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/error.h"

namespace sectl::loader {

// The names of the defined, globally visible functions in the file's
// .dynsym, sorted. An error for a file that is not a readable 64-bit
// little-endian ELF shared library.
Expected<std::vector<std::string>> ExportedFunctions(const std::string& path);

// An exported function and its address relative to where the file is
// loaded: what addr2line takes for a frame in it.
struct ExportedFunction {
  std::string name;
  uint64_t address = 0;
};

// The same functions with their addresses, sorted by name (a name defined
// twice, by symbol versions, appears twice).
Expected<std::vector<ExportedFunction>> ExportedFunctionAddresses(const std::string& path);

// What the file's dynamic section (SHT_DYNAMIC) asks of the dynamic linker:
// the libraries it needs (DT_NEEDED, in order) and where it says to look
// for them (DT_RUNPATH, DT_RPATH; ':'-separated, $ORIGIN unexpanded).
struct DynamicDependencies {
  std::vector<std::string> needed;
  std::string runpath;
  std::string rpath;
};

// Read from the file alone, as ExportedFunctions; empty for a file with no
// dynamic section.
Expected<DynamicDependencies> ReadDynamicDependencies(const std::string& path);

}  // namespace sectl::loader
