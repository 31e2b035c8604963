#include "loader/exported_symbols.h"

#include <elf.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <fstream>

namespace sectl::loader {
namespace {

// Reads only the headers, the symbol table and its strings: a vendor plugin
// can be hundreds of megabytes.
template <typename T>
bool ReadAt(std::ifstream& file, uint64_t offset, T& out) {
  file.clear();
  file.seekg(static_cast<std::streamoff>(offset));
  return static_cast<bool>(file.read(reinterpret_cast<char*>(&out), sizeof(T)));
}

Error Unreadable(const std::string& path, std::string_view why) {
  return Error(ErrorCode::kFailedPrecondition,
               fmt::format("{}: cannot read its exported symbols: {}", path, why));
}

}  // namespace

Expected<std::vector<std::string>> ExportedFunctions(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return tl::unexpected(Unreadable(path, "cannot open the file"));
  Elf64_Ehdr header{};
  if (!ReadAt(file, 0, header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB) {
    return tl::unexpected(Unreadable(path, "not a 64-bit little-endian ELF file"));
  }
  if (header.e_shentsize != sizeof(Elf64_Shdr)) {
    return tl::unexpected(Unreadable(path, "unexpected section header size"));
  }
  std::vector<std::string> names;
  for (uint16_t i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr symbols{};
    if (!ReadAt(file, header.e_shoff + uint64_t{i} * sizeof(Elf64_Shdr), symbols)) {
      return tl::unexpected(Unreadable(path, "truncated section headers"));
    }
    if (symbols.sh_type != SHT_DYNSYM || symbols.sh_entsize != sizeof(Elf64_Sym)) continue;
    Elf64_Shdr strings{};
    if (!ReadAt(file, header.e_shoff + uint64_t{symbols.sh_link} * sizeof(Elf64_Shdr), strings)) {
      return tl::unexpected(Unreadable(path, "truncated string table header"));
    }
    for (uint64_t at = 0; at + sizeof(Elf64_Sym) <= symbols.sh_size; at += sizeof(Elf64_Sym)) {
      Elf64_Sym symbol{};
      if (!ReadAt(file, symbols.sh_offset + at, symbol)) break;
      const int binding = ELF64_ST_BIND(symbol.st_info);
      const int visibility = ELF64_ST_VISIBILITY(symbol.st_other);
      if (symbol.st_shndx == SHN_UNDEF || ELF64_ST_TYPE(symbol.st_info) != STT_FUNC ||
          (binding != STB_GLOBAL && binding != STB_WEAK) ||
          (visibility != STV_DEFAULT && visibility != STV_PROTECTED) ||
          symbol.st_name >= strings.sh_size) {
        continue;
      }
      file.clear();
      file.seekg(static_cast<std::streamoff>(strings.sh_offset + symbol.st_name));
      std::string name;
      if (std::getline(file, name, '\0') && !name.empty()) names.push_back(std::move(name));
    }
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

}  // namespace sectl::loader
