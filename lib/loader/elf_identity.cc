#include "loader/elf_identity.h"

#include <elf.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

namespace sectl::loader {
namespace {

// A file that could be a plugin but is broken (truncated, for another machine).
Error Rejected(const std::string& path, std::string reason) {
  return Error(ErrorCode::kFailedPrecondition, fmt::format("{}: {}", path, reason));
}

// A path that names no shared library at all: the wrong file was named.
Error NotASharedLibrary(const std::string& path, std::string reason) {
  return Error(ErrorCode::kInvalidArgument, fmt::format("{}: {}", path, reason));
}

// What a non-ELF file most likely is, for a more helpful message.
std::string DescribeNonElf(const std::vector<char>& head) {
  std::string_view start(head.data(), head.size());
  if (start.starts_with("!<arch>")) return "a static archive (.a), not a shared library";
  if (start.starts_with("#!")) return "a script, not a shared library";
  if (start.starts_with("\xCA\xFE\xBA\xBE") || start.starts_with("\xCF\xFA\xED\xFE")) {
    return "a Mach-O file (macOS), not a Linux shared library";
  }
  if (start.starts_with("MZ")) return "a Windows PE file (.dll/.exe), not a Linux shared library";
  if (head.empty()) return "an empty file, not a shared library";
  return "not an ELF file";
}

std::string DescribeType(uint16_t type) {
  switch (type) {
    case ET_EXEC:
      return "an executable, not a shared library (build it with -shared -fPIC)";
    case ET_REL:
      return "an object file (.o), not a shared library (link it with -shared)";
    case ET_CORE:
      return "a core dump, not a shared library";
    default:
      return fmt::format("an ELF file of type {}, not a shared library", type);
  }
}

template <typename Header>
Header ReadHeader(const std::vector<char>& bytes) {
  Header header{};
  std::memcpy(&header, bytes.data(), sizeof(header));
  return header;
}

// Program and section header tables must lie inside the file; a file cut
// short in a copy or download fails here rather than deep inside dlopen.
template <typename Header, typename ProgramHeader>
Expected<void> CheckTablesInsideFile(const std::string& path, const std::vector<char>& bytes,
                                     uint64_t file_size) {
  const auto header = ReadHeader<Header>(bytes);
  const uint64_t program_end = header.e_phoff + uint64_t{header.e_phnum} * header.e_phentsize;
  if (program_end > file_size) {
    return tl::unexpected(Rejected(
        path, fmt::format("truncated ELF file: {} bytes, but its program headers end at byte {}",
                          file_size, program_end)));
  }
  if (header.e_shoff != 0) {
    const uint64_t section_end = header.e_shoff + uint64_t{header.e_shnum} * header.e_shentsize;
    if (section_end > file_size) {
      return tl::unexpected(Rejected(
          path, fmt::format("truncated ELF file: {} bytes, but its section headers end at byte {}",
                            file_size, section_end)));
    }
  }
  std::ifstream file(path, std::ios::binary);
  for (uint16_t i = 0; i < header.e_phnum; ++i) {
    ProgramHeader segment{};
    file.seekg(static_cast<std::streamoff>(header.e_phoff + uint64_t{i} * header.e_phentsize));
    if (!file.read(reinterpret_cast<char*>(&segment), sizeof(segment))) break;
    if (segment.p_type == PT_LOAD && segment.p_offset + segment.p_filesz > file_size) {
      return tl::unexpected(Rejected(
          path, fmt::format("truncated ELF file: {} bytes, but a loadable segment ends at byte {}",
                            file_size, segment.p_offset + segment.p_filesz)));
    }
  }
  return {};
}

// Whether an ET_DYN file is a program rather than a library: /bin/ls and
// every PIE program is ET_DYN too. glibc (2.30 and later) refuses to dlopen
// a file whose dynamic section has DF_1_PIE in DT_FLAGS_1, so this asks the
// same question. Called after CheckTablesInsideFile, so the program headers
// lie inside the file.
bool IsPositionIndependentExecutable(const std::string& path, const Elf64_Ehdr& header) {
  std::ifstream file(path, std::ios::binary);
  for (uint16_t i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment{};
    file.seekg(static_cast<std::streamoff>(header.e_phoff + uint64_t{i} * header.e_phentsize));
    if (!file.read(reinterpret_cast<char*>(&segment), sizeof(segment))) return false;
    if (segment.p_type != PT_DYNAMIC) continue;
    file.seekg(static_cast<std::streamoff>(segment.p_offset));
    for (uint64_t read = 0; read + sizeof(Elf64_Dyn) <= segment.p_filesz;
         read += sizeof(Elf64_Dyn)) {
      Elf64_Dyn entry{};
      if (!file.read(reinterpret_cast<char*>(&entry), sizeof(entry))) return false;
      if (entry.d_tag == DT_NULL) return false;
      if (entry.d_tag == DT_FLAGS_1) return (entry.d_un.d_val & DF_1_PIE) != 0;
    }
    return false;
  }
  return false;
}

}  // namespace

bool NamesNoSharedLibrary(const Error& error) {
  // Nothing there (kNotFound), or something that is no shared library.
  return error.code() == ErrorCode::kNotFound || error.code() == ErrorCode::kInvalidArgument;
}

std::string MachineName(uint16_t machine) {
  switch (machine) {
    case EM_X86_64:
      return "x86-64";
    case EM_386:
      return "i386";
    case EM_AARCH64:
      return "aarch64";
    case EM_ARM:
      return "arm";
    case EM_RISCV:
      return "riscv";
    case EM_PPC64:
      return "ppc64";
    case EM_PPC:
      return "ppc";
    case EM_S390:
      return "s390x";
    case EM_MIPS:
      return "mips";
    case EM_LOONGARCH:
      return "loongarch";
    default:
      return fmt::format("machine 0x{:x}", machine);
  }
}

uint16_t HostMachine() {
#if defined(__x86_64__)
  return EM_X86_64;
#elif defined(__aarch64__)
  return EM_AARCH64;
#elif defined(__riscv)
  return EM_RISCV;
#elif defined(__powerpc64__)
  return EM_PPC64;
#elif defined(__s390x__)
  return EM_S390;
#else
#error "sectl does not know this machine's ELF e_machine value"
#endif
}

Expected<ElfIdentity> InspectPluginFile(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    if (errno == ENOENT) return Fail(ErrorCode::kNotFound, fmt::format("{}: no such file", path));
    return Fail(ErrorCode::kIoError, fmt::format("{}: {}", path, std::strerror(errno)));
  }
  if (S_ISDIR(info.st_mode))
    return tl::unexpected(NotASharedLibrary(path, "is a directory, not a plugin file"));
  if (!S_ISREG(info.st_mode)) {
    return tl::unexpected(NotASharedLibrary(path, "is not a regular file"));
  }

  std::ifstream file(path, std::ios::binary);
  if (!file) return Fail(ErrorCode::kIoError, fmt::format("{}: {}", path, std::strerror(errno)));
  std::vector<char> bytes(sizeof(Elf64_Ehdr));
  file.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<size_t>(file.gcount()));

  ElfIdentity identity;
  identity.file_size = static_cast<uint64_t>(info.st_size);
  if (bytes.size() < SELFMAG || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0) {
    return tl::unexpected(NotASharedLibrary(path, DescribeNonElf(bytes)));
  }
  if (bytes.size() < EI_NIDENT) {
    return tl::unexpected(Rejected(
        path, fmt::format("truncated ELF file: {} bytes, shorter than the ELF identification",
                          bytes.size())));
  }
  const auto elf_class = static_cast<unsigned char>(bytes[EI_CLASS]);
  if (elf_class != ELFCLASS32 && elf_class != ELFCLASS64) {
    return tl::unexpected(Rejected(path, "corrupt ELF file: unknown ELF class"));
  }
  identity.bits = elf_class == ELFCLASS64 ? 64 : 32;
  identity.little_endian = bytes[EI_DATA] == ELFDATA2LSB;
  const size_t header_size = identity.bits == 64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
  if (bytes.size() < header_size) {
    return tl::unexpected(
        Rejected(path, fmt::format("truncated ELF file: {} bytes, the ELF header alone needs {}",
                                   bytes.size(), header_size)));
  }
  // e_type and e_machine sit at the same offsets in both classes; a
  // big-endian file gets its fields byte-swapped before we name them.
  uint16_t type = 0;
  uint16_t machine = 0;
  std::memcpy(&type, bytes.data() + offsetof(Elf64_Ehdr, e_type), sizeof(type));
  std::memcpy(&machine, bytes.data() + offsetof(Elf64_Ehdr, e_machine), sizeof(machine));
  if (!identity.little_endian) {
    type = __builtin_bswap16(type);
    machine = __builtin_bswap16(machine);
  }
  identity.type = type;
  identity.machine = machine;

  const std::string host = MachineName(HostMachine());
  if (machine != HostMachine() || identity.bits != 64 || !identity.little_endian) {
    std::string built_for = MachineName(machine);
    if (identity.bits != 64) built_for += " (32-bit)";
    if (!identity.little_endian) built_for += " (big-endian)";
    return tl::unexpected(Rejected(path, fmt::format("built for {}, this is {}", built_for, host)));
  }
  if (type != ET_DYN) return tl::unexpected(NotASharedLibrary(path, DescribeType(type)));
  auto tables = CheckTablesInsideFile<Elf64_Ehdr, Elf64_Phdr>(path, bytes, identity.file_size);
  if (!tables) return tl::unexpected(tables.error());
  if (IsPositionIndependentExecutable(path, ReadHeader<Elf64_Ehdr>(bytes))) {
    return tl::unexpected(
        NotASharedLibrary(path,
                          "a position-independent executable, not a shared library (glibc's dlopen "
                          "refuses those; build the plugin with -shared -fPIC)"));
  }
  return identity;
}

}  // namespace sectl::loader
