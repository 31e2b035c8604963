// Fuzzes the dynamic-symbol scan, which reads a plugin file's section
// headers, symbol table and names in sectl's own process before any
// isolation. Any input must give a list of names or a one-line error, never
// a crash, a hang or a read outside the file.

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "loader/exported_symbols.h"
#include "memory_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static sectl::fuzz::MemoryFile file("exported_symbols_fuzz");
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
