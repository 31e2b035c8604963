#include "loader/exported_symbols.h"

#include <elf.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace sectl::loader {
namespace {

// The file is untrusted and is read in sectl's own process, before any
// isolation: every loop below is bounded by one of these caps or by the
// file's size, and every table is read once, so any file is answered in time
// linear in the bytes read. Real libraries stay far below them (a large C++
// library exports some 10^5 symbols with a few MB of names).
constexpr uint64_t kMaxSymbols = uint64_t{1} << 21;
constexpr uint64_t kMaxStringTableBytes = uint64_t{64} << 20;
// Names may share bytes (a suffix of one is another), so the bytes scanned
// for names are capped on their own, not just the table holding them.
constexpr uint64_t kMaxNameBytesScanned = uint64_t{256} << 20;

class ReadOnlyFile {
 public:
  explicit ReadOnlyFile(const std::string& path)
      : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ReadOnlyFile(const ReadOnlyFile&) = delete;
  ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;
  ~ReadOnlyFile() {
    if (fd_ >= 0) ::close(fd_);
  }

  bool is_open() const { return fd_ >= 0; }
  uint64_t Size() const {
    struct stat info {};
    return ::fstat(fd_, &info) == 0 && info.st_size > 0 ? static_cast<uint64_t>(info.st_size) : 0;
  }
  // Exactly `size` bytes at `offset`, or false.
  bool ReadAt(uint64_t offset, void* out, size_t size) const {
    auto* bytes = static_cast<char*>(out);
    while (size > 0) {
      const ssize_t got = ::pread(fd_, bytes, size, static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return false;
      bytes += got;
      offset += static_cast<uint64_t>(got);
      size -= static_cast<size_t>(got);
    }
    return true;
  }

 private:
  int fd_;
};

Error Unreadable(const std::string& path, std::string_view why) {
  return Error(ErrorCode::kFailedPrecondition,
               fmt::format("{}: cannot read its exported symbols: {}", path, why));
}

// Whether [offset, offset + size) lies inside a file of `file_size` bytes,
// without overflowing.
bool InsideFile(uint64_t offset, uint64_t size, uint64_t file_size) {
  return offset <= file_size && size <= file_size - offset;
}

// A function, or an indirect function (STT_GNU_IFUNC), which the dynamic
// linker resolves to one: the validation layer exports the vendor's module
// entry points that way.
bool IsExportedFunction(const Elf64_Sym& symbol) {
  const int binding = ELF64_ST_BIND(symbol.st_info);
  const int visibility = ELF64_ST_VISIBILITY(symbol.st_other);
  const int type = ELF64_ST_TYPE(symbol.st_info);
  return symbol.st_shndx != SHN_UNDEF && (type == STT_FUNC || type == STT_GNU_IFUNC) &&
         (binding == STB_GLOBAL || binding == STB_WEAK) &&
         (visibility == STV_DEFAULT || visibility == STV_PROTECTED);
}

// The file's section headers (none for a file without any).
Expected<std::vector<Elf64_Shdr>> ReadSectionHeaders(const ReadOnlyFile& file,
                                                     const std::string& path) {
  Elf64_Ehdr header{};
  if (!file.ReadAt(0, &header, sizeof(header)) ||
      std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_ident[EI_DATA] != ELFDATA2LSB) {
    return tl::unexpected(Unreadable(path, "not a 64-bit little-endian ELF file"));
  }
  if (header.e_shnum == 0) return std::vector<Elf64_Shdr>{};
  if (header.e_shentsize != sizeof(Elf64_Shdr)) {
    return tl::unexpected(Unreadable(path, "unexpected section header size"));
  }
  // At most 65535 headers of 64 bytes, read in one go.
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  const uint64_t table_bytes = uint64_t{header.e_shnum} * sizeof(Elf64_Shdr);
  if (!InsideFile(header.e_shoff, table_bytes, file.Size()) ||
      !file.ReadAt(header.e_shoff, sections.data(), table_bytes)) {
    return tl::unexpected(Unreadable(path, "truncated section headers"));
  }
  return sections;
}

// The NUL-terminated name at `offset` of a string table, or "" when it does
// not end inside the table.
std::string NameAt(const std::vector<char>& table, uint64_t offset) {
  if (offset >= table.size()) return "";
  const char* start = table.data() + offset;
  const auto* end = static_cast<const char*>(std::memchr(start, '\0', table.size() - offset));
  return end == nullptr ? "" : std::string(start, end);
}

// The exported functions with their addresses (relative to where the file
// is loaded), unsorted, names possibly repeated.
Expected<std::vector<ExportedFunction>> ReadExportedFunctions(const std::string& path) {
  const ReadOnlyFile file(path);
  if (!file.is_open()) return tl::unexpected(Unreadable(path, "cannot open the file"));
  const uint64_t file_size = file.Size();
  auto read_sections = ReadSectionHeaders(file, path);
  if (!read_sections) return tl::unexpected(read_sections.error());
  const std::vector<Elf64_Shdr>& sections = *read_sections;
  if (sections.empty()) return std::vector<ExportedFunction>{};

  // The ELF format allows one SHT_DYNSYM section; the dynamic linker uses
  // only the one the dynamic section names. Several would each have to be
  // read, so a file with more is refused rather than scanned.
  const Elf64_Shdr* symbols = nullptr;
  size_t dynamic_symbol_tables = 0;
  for (const Elf64_Shdr& section : sections) {
    if (section.sh_type != SHT_DYNSYM) continue;
    ++dynamic_symbol_tables;
    if (symbols == nullptr) symbols = &section;
  }
  if (dynamic_symbol_tables > 1) {
    return tl::unexpected(Unreadable(
        path, fmt::format("it has {} dynamic symbol tables (SHT_DYNSYM), the ELF format allows 1",
                          dynamic_symbol_tables)));
  }
  if (symbols == nullptr) return std::vector<ExportedFunction>{};
  if (symbols->sh_entsize != sizeof(Elf64_Sym)) {
    return tl::unexpected(Unreadable(path, "unexpected dynamic symbol size"));
  }
  if (symbols->sh_link >= sections.size()) {
    return tl::unexpected(Unreadable(path, "its dynamic symbol table names no string table"));
  }
  const Elf64_Shdr& strings = sections[symbols->sh_link];
  if (!InsideFile(symbols->sh_offset, symbols->sh_size, file_size) ||
      !InsideFile(strings.sh_offset, strings.sh_size, file_size)) {
    return tl::unexpected(
        Unreadable(path, "its dynamic symbol or string table lies outside the file"));
  }
  const uint64_t symbol_count = symbols->sh_size / sizeof(Elf64_Sym);
  if (symbol_count > kMaxSymbols) {
    return tl::unexpected(Unreadable(
        path, fmt::format("its dynamic symbol table has {} symbols, more than the {} sectl reads",
                          symbol_count, kMaxSymbols)));
  }
  if (strings.sh_size > kMaxStringTableBytes) {
    return tl::unexpected(Unreadable(
        path, fmt::format("its dynamic string table has {} bytes, more than the {} sectl reads",
                          strings.sh_size, kMaxStringTableBytes)));
  }
  std::vector<Elf64_Sym> table(symbol_count);
  std::vector<char> names_bytes(strings.sh_size);
  if (!file.ReadAt(symbols->sh_offset, table.data(), symbol_count * sizeof(Elf64_Sym)) ||
      !file.ReadAt(strings.sh_offset, names_bytes.data(), names_bytes.size())) {
    return tl::unexpected(Unreadable(path, "the file changed while it was read"));
  }

  std::vector<ExportedFunction> functions;
  uint64_t bytes_scanned = 0;
  for (const Elf64_Sym& symbol : table) {
    if (!IsExportedFunction(symbol) || symbol.st_name >= names_bytes.size()) continue;
    const char* start = names_bytes.data() + symbol.st_name;
    const size_t room = names_bytes.size() - symbol.st_name;
    const auto* end = static_cast<const char*>(std::memchr(start, '\0', room));
    const size_t length = end == nullptr ? room : static_cast<size_t>(end - start);
    bytes_scanned += length;
    if (bytes_scanned > kMaxNameBytesScanned) {
      return tl::unexpected(Unreadable(
          path, fmt::format("its symbol names overlap to more than the {} bytes sectl reads",
                            kMaxNameBytesScanned)));
    }
    // A name must end inside its table.
    if (end != nullptr && length > 0) {
      functions.push_back({std::string(start, length), symbol.st_value});
    }
  }
  return functions;
}

}  // namespace

Expected<std::vector<std::string>> ExportedFunctions(const std::string& path) {
  auto functions = ReadExportedFunctions(path);
  if (!functions) return tl::unexpected(functions.error());
  std::vector<std::string> names;
  names.reserve(functions->size());
  for (ExportedFunction& function : *functions) names.push_back(std::move(function.name));
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

Expected<std::vector<ExportedFunction>> ExportedFunctionAddresses(const std::string& path) {
  auto functions = ReadExportedFunctions(path);
  if (!functions) return tl::unexpected(functions.error());
  std::sort(functions->begin(), functions->end(),
            [](const ExportedFunction& a, const ExportedFunction& b) { return a.name < b.name; });
  return functions;
}

Expected<DynamicDependencies> ReadDynamicDependencies(const std::string& path) {
  const ReadOnlyFile file(path);
  if (!file.is_open()) return tl::unexpected(Unreadable(path, "cannot open the file"));
  const uint64_t file_size = file.Size();
  auto sections = ReadSectionHeaders(file, path);
  if (!sections) return tl::unexpected(sections.error());
  DynamicDependencies dependencies;
  const auto dynamic = std::find_if(sections->begin(), sections->end(),
                                    [](const Elf64_Shdr& s) { return s.sh_type == SHT_DYNAMIC; });
  if (dynamic == sections->end()) return dependencies;
  if (dynamic->sh_entsize != sizeof(Elf64_Dyn) || dynamic->sh_link >= sections->size()) {
    return tl::unexpected(Unreadable(path, "its dynamic section is malformed"));
  }
  const Elf64_Shdr& strings = (*sections)[dynamic->sh_link];
  if (!InsideFile(dynamic->sh_offset, dynamic->sh_size, file_size) ||
      !InsideFile(strings.sh_offset, strings.sh_size, file_size) ||
      strings.sh_size > kMaxStringTableBytes ||
      dynamic->sh_size / sizeof(Elf64_Dyn) > kMaxSymbols) {
    return tl::unexpected(Unreadable(path, "its dynamic section lies outside the file"));
  }
  std::vector<Elf64_Dyn> entries(dynamic->sh_size / sizeof(Elf64_Dyn));
  std::vector<char> names(strings.sh_size);
  if (!file.ReadAt(dynamic->sh_offset, entries.data(), entries.size() * sizeof(Elf64_Dyn)) ||
      !file.ReadAt(strings.sh_offset, names.data(), names.size())) {
    return tl::unexpected(Unreadable(path, "the file changed while it was read"));
  }
  for (const Elf64_Dyn& entry : entries) {
    if (entry.d_tag == DT_NULL) break;
    if (entry.d_tag == DT_NEEDED) {
      if (std::string name = NameAt(names, entry.d_un.d_val); !name.empty()) {
        dependencies.needed.push_back(std::move(name));
      }
    } else if (entry.d_tag == DT_RUNPATH) {
      dependencies.runpath = NameAt(names, entry.d_un.d_val);
    } else if (entry.d_tag == DT_RPATH) {
      dependencies.rpath = NameAt(names, entry.d_un.d_val);
    }
  }
  return dependencies;
}

}  // namespace sectl::loader
