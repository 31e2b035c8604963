// Every load failure gets its own precise one-line diagnosis. Each case is
// a real file: built by CMake (tests/fixtures) or made here from a real plugin.
#include <elf.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "base/file_digest.h"
#include "loader/elf_identity.h"
#include "loader/exported_symbols.h"
#include "loader/plugin_file_pin.h"
#include "loader/plugin_library.h"
#include "sectl_process.h"

namespace sectl::loader {
namespace {

using sectl::testing::FixturePlugin;
using sectl::testing::ReferencePlugin;

class LoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = std::filesystem::temp_directory_path() /
                 ("sectl_loader_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  std::vector<char> ReadPlugin() const {
    std::ifstream file(ReferencePlugin("sectl_minimal"), std::ios::binary);
    return {std::istreambuf_iterator<char>(file), {}};
  }
  std::string Write(const std::string& name, const std::vector<char>& bytes) const {
    auto path = (directory_ / name).string();
    std::ofstream(path, std::ios::binary)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path;
  }
  // A copy of a real plugin with one header field changed.
  template <typename T>
  std::string PatchedPlugin(const std::string& name, size_t offset, T value) const {
    auto bytes = ReadPlugin();
    std::memcpy(bytes.data() + offset, &value, sizeof(value));
    return Write(name, bytes);
  }
  static std::string OpenError(const std::string& path, bool lazy = false) {
    auto library = PluginLibrary::Open(path, {.lazy = lazy});
    EXPECT_FALSE(library.has_value()) << path << " unexpectedly loaded";
    return library ? "" : library.error().message();
  }

  std::filesystem::path directory_;
};

TEST_F(LoaderTest, OpensBothReferencePlugins) {
  for (const char* name : {"sectl_cpu", "sectl_minimal"}) {
    auto library = PluginLibrary::Open(ReferencePlugin(name), {});
    ASSERT_TRUE(library.has_value()) << library.error().message();
    EXPECT_NE(library->init_plugin(), nullptr);
    EXPECT_EQ(library->identity().bits, 64);
  }
}

TEST_F(LoaderTest, MissingFile) {
  auto library = PluginLibrary::Open((directory_ / "absent.so").string(), {});
  ASSERT_FALSE(library.has_value());
  EXPECT_EQ(library.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(library.error().message().find("no such file"), std::string::npos);
}

TEST_F(LoaderTest, Directory) {
  EXPECT_NE(OpenError(directory_.string()).find("is a directory"), std::string::npos);
}

TEST_F(LoaderTest, NotElf) {
  const auto path = Write("text.so", {'h', 'e', 'l', 'l', 'o', '\n'});
  EXPECT_NE(OpenError(path).find("not an ELF file"), std::string::npos);
  const auto empty = Write("empty.so", {});
  EXPECT_NE(OpenError(empty).find("empty file"), std::string::npos);
  const std::string archive = "!<arch>\n";
  const auto archive_path = Write("libx.a", {archive.begin(), archive.end()});
  EXPECT_NE(OpenError(archive_path).find("static archive"), std::string::npos);
}

TEST_F(LoaderTest, TruncatedElf) {
  auto bytes = ReadPlugin();
  bytes.resize(bytes.size() / 2);
  EXPECT_NE(OpenError(Write("half.so", bytes)).find("truncated ELF file"), std::string::npos);
  bytes.resize(40);  // inside the ELF header itself
  EXPECT_NE(OpenError(Write("header.so", bytes)).find("the ELF header alone needs 64"),
            std::string::npos);
}

TEST_F(LoaderTest, WrongMachine) {
  const auto path = PatchedPlugin<uint16_t>("s390.so", offsetof(Elf64_Ehdr, e_machine), EM_S390);
  EXPECT_NE(OpenError(path).find("built for s390x, this is " + MachineName(HostMachine())),
            std::string::npos);
}

TEST_F(LoaderTest, WrongClass) {
  const auto path = PatchedPlugin<unsigned char>("class32.so", EI_CLASS, ELFCLASS32);
  EXPECT_NE(OpenError(path).find("(32-bit), this is " + MachineName(HostMachine())),
            std::string::npos);
}

TEST_F(LoaderTest, NotASharedLibrary) {
  const auto executable = PatchedPlugin<uint16_t>("exec.so", offsetof(Elf64_Ehdr, e_type), ET_EXEC);
  EXPECT_NE(OpenError(executable).find("an executable, not a shared library"), std::string::npos);
  const auto object = PatchedPlugin<uint16_t>("object.o", offsetof(Elf64_Ehdr, e_type), ET_REL);
  EXPECT_NE(OpenError(object).find("an object file"), std::string::npos);
}

TEST_F(LoaderTest, MissingNeededLibraryIsNamed) {
  EXPECT_NE(OpenError(FixturePlugin("needs_missing_library"))
                .find("needs library libsectl_fixture_ghost.so, which was not found"),
            std::string::npos);
}

TEST_F(LoaderTest, UnresolvedSymbolInANeededLibraryNamesThatLibrary) {
  const auto message = OpenError(FixturePlugin("needs_broken_library"));
  EXPECT_NE(message.find("needs library "), std::string::npos) << message;
  EXPECT_NE(message.find("libsectl_fixture_broken_dependency.so, which has an unresolved symbol "
                         "sectl_fixture_symbol_nobody_defines"),
            std::string::npos)
      << message;
}

TEST_F(LoaderTest, UnresolvedSymbolIsNamedAndLazyBindingLoadsIt) {
  const auto message = OpenError(FixturePlugin("unresolved_symbol"));
  EXPECT_NE(message.find("unresolved symbol TF_NewGraph"), std::string::npos);
  EXPECT_NE(message.find("--lazy"), std::string::npos);
  auto lazy = PluginLibrary::Open(FixturePlugin("unresolved_symbol"), {.lazy = true});
  EXPECT_TRUE(lazy.has_value());
}

TEST_F(LoaderTest, NoEntryPoint) {
  EXPECT_NE(OpenError(FixturePlugin("no_entry_point")).find("does not export SE_InitPlugin"),
            std::string::npos);
}

TEST_F(LoaderTest, DraftEntryPointIsExplained) {
  const auto message = OpenError(FixturePlugin("draft_entry_point"));
  EXPECT_NE(message.find("SE_InitializePlugin"), std::string::npos);
  EXPECT_NE(message.find("renamed SE_InitPlugin"), std::string::npos);
}

// A hostile ELF file made from scratch: a header for this machine and
// `sections` section headers right after it, then `tail` bytes of padding.
std::vector<char> CraftedElf(const std::vector<Elf64_Shdr>& sections, size_t tail) {
  Elf64_Ehdr header{};
  std::memcpy(header.e_ident, ELFMAG, SELFMAG);
  header.e_ident[EI_CLASS] = ELFCLASS64;
  header.e_ident[EI_DATA] = ELFDATA2LSB;
  header.e_ident[EI_VERSION] = EV_CURRENT;
  header.e_type = ET_DYN;
  header.e_machine = HostMachine();
  header.e_ehsize = sizeof(Elf64_Ehdr);
  header.e_shoff = sizeof(Elf64_Ehdr);
  header.e_shentsize = sizeof(Elf64_Shdr);
  header.e_shnum = static_cast<uint16_t>(sections.size());
  std::vector<char> bytes(sizeof(header) + sections.size() * sizeof(Elf64_Shdr) + tail, 'A');
  std::memcpy(bytes.data(), &header, sizeof(header));
  std::memcpy(bytes.data() + sizeof(header), sections.data(), sections.size() * sizeof(Elf64_Shdr));
  return bytes;
}

Elf64_Shdr DynamicSymbols(uint64_t offset, uint64_t size, uint32_t strings) {
  Elf64_Shdr section{};
  section.sh_type = SHT_DYNSYM;
  section.sh_offset = offset;
  section.sh_size = size;
  section.sh_link = strings;
  section.sh_entsize = sizeof(Elf64_Sym);
  return section;
}

std::string SymbolScanError(const std::string& path) {
  auto functions = ExportedFunctions(path);
  EXPECT_FALSE(functions.has_value()) << path << ": read " << functions->size() << " names";
  if (functions) return "";
  EXPECT_EQ(functions.error().message().find('\n'), std::string::npos);
  return functions.error().message();
}

TEST_F(LoaderTest, ExportedFunctionsOfARealPlugin) {
  auto functions = ExportedFunctions(ReferencePlugin("sectl_minimal"));
  ASSERT_TRUE(functions.has_value()) << functions.error().message();
  EXPECT_TRUE(std::binary_search(functions->begin(), functions->end(), "SE_InitPlugin"));
}

// Each of many overlapping symbol tables, spanning the whole file, made the
// old scan read the file once per table (64 KB took 9.4 s): the scan now
// refuses a second table instead of reading it.
TEST_F(LoaderTest, ManyOverlappingSymbolTablesAreRefusedNotScanned) {
  constexpr size_t kTables = 1000;
  constexpr size_t kTail = 64 * 1024;
  const size_t file_size = sizeof(Elf64_Ehdr) + kTables * sizeof(Elf64_Shdr) + kTail;
  std::vector<Elf64_Shdr> sections(kTables, DynamicSymbols(0, file_size, 0));
  const auto path = Write("overlapping.so", CraftedElf(sections, kTail));
  const auto message = SymbolScanError(path);
  EXPECT_NE(message.find("it has 1000 dynamic symbol tables (SHT_DYNSYM), the ELF format allows 1"),
            std::string::npos)
      << message;
  // The ABI is then not recognised from the file; loading it says why.
  EXPECT_FALSE(RecognisePluginAbi(path).has_value());
}

TEST_F(LoaderTest, SymbolTablesOutsideTheFileAreRefused) {
  const auto huge = Write("huge.so", CraftedElf({DynamicSymbols(0, uint64_t{1} << 62, 0)}, 256));
  EXPECT_NE(SymbolScanError(huge).find("lies outside the file"), std::string::npos);
  const auto wrapping =
      Write("wrapping.so", CraftedElf({DynamicSymbols(~uint64_t{0} - 8, 4096, 0)}, 256));
  EXPECT_NE(SymbolScanError(wrapping).find("lies outside the file"), std::string::npos);
  const auto no_strings = Write("no_strings.so", CraftedElf({DynamicSymbols(0, 64, 40000)}, 256));
  EXPECT_NE(SymbolScanError(no_strings).find("names no string table"), std::string::npos);
  auto bytes = CraftedElf({DynamicSymbols(0, 64, 0)}, 256);
  bytes[offsetof(Elf64_Ehdr, e_shnum)] = 0x10;  // 16 headers in a file that holds 1
  EXPECT_NE(SymbolScanError(Write("few_headers.so", bytes)).find("truncated section headers"),
            std::string::npos);
}

// Names that run to the end of their table without a terminator are not
// names, and many symbols pointing into one long unterminated run would make
// the scan quadratic: it stops at its cap on the bytes scanned.
TEST_F(LoaderTest, OverlappingUnterminatedNamesStopAtTheCap) {
  constexpr size_t kSymbols = 4096;
  constexpr size_t kStrings = 1 << 20;
  const uint64_t symbols_at = sizeof(Elf64_Ehdr) + 2 * sizeof(Elf64_Shdr);
  Elf64_Shdr strings{};
  strings.sh_type = SHT_STRTAB;
  strings.sh_offset = symbols_at + kSymbols * sizeof(Elf64_Sym);
  strings.sh_size = kStrings;
  // kSymbols functions named at offsets 0, 1, 2, ... of `strings`.
  const auto with_symbols = [&] {
    auto bytes = CraftedElf({DynamicSymbols(symbols_at, kSymbols * sizeof(Elf64_Sym), 1), strings},
                            kSymbols * sizeof(Elf64_Sym) + strings.sh_size);
    Elf64_Sym function{};
    function.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
    function.st_shndx = 1;
    for (size_t i = 0; i < kSymbols; ++i) {
      function.st_name = static_cast<uint32_t>(i);
      std::memcpy(bytes.data() + symbols_at + i * sizeof(Elf64_Sym), &function, sizeof(function));
    }
    return bytes;
  };
  const auto path = Write("unterminated.so", with_symbols());
  EXPECT_NE(SymbolScanError(path).find("overlap to more than the 268435456 bytes sectl reads"),
            std::string::npos);
  // A few such names are merely skipped.
  strings.sh_size = 64;
  auto functions = ExportedFunctions(Write("short.so", with_symbols()));
  ASSERT_TRUE(functions.has_value()) << functions.error().message();
  EXPECT_TRUE(functions->empty());
}

// ---- The file tested is the file hashed (loader/plugin_file_pin.h) --------

constexpr std::string_view kChanged = "the plugin file changed during the run";

std::vector<char> ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), {}};
}

TEST_F(LoaderTest, PinnedPluginLoadsAndIsHashedOnce) {
  const auto path = Write("pinned.so", ReadPlugin());
  auto pin = PinPluginFile(path);
  ASSERT_TRUE(pin.has_value()) << pin.error().message();
  EXPECT_EQ(pin->sha256(), *Sha256OfFile(ReferencePlugin("sectl_minimal")));
  // Another spelling of the same path is the same pin.
  auto again = PinPluginFile((directory_ / "." / "pinned.so").string());
  ASSERT_TRUE(again.has_value()) << again.error().message();
  EXPECT_EQ(again->sha256(), pin->sha256());
  auto library = PluginLibrary::Open(path, {});
  ASSERT_TRUE(library.has_value()) << library.error().message();
}

TEST_F(LoaderTest, PluginFileReplacedAfterHashingIsNotLoaded) {
  const auto path = Write("replaced.so", ReadPlugin());
  auto pin = PinPluginFile(path);
  ASSERT_TRUE(pin.has_value()) << pin.error().message();
  // A rebuild, or a plugin rewriting its own file: another file, renamed over it.
  const auto other = Write("other.so", ReadFile(ReferencePlugin("sectl_cpu")));
  std::filesystem::rename(other, path);

  auto library = PluginLibrary::Open(path, {});
  ASSERT_FALSE(library.has_value());
  EXPECT_NE(library.error().message().find(kChanged), std::string::npos)
      << library.error().message();
  EXPECT_NE(library.error().message().find("names another file"), std::string::npos);
  // A child pinning it again (probe does) is refused as well.
  auto repinned = PinPluginFile(path);
  ASSERT_FALSE(repinned.has_value());
  EXPECT_NE(repinned.error().message().find(kChanged), std::string::npos);
}

TEST_F(LoaderTest, PluginFileRewrittenInPlaceAfterHashingIsNotLoaded) {
  const auto path = Write("rewritten.so", ReadPlugin());
  auto pin = PinPluginFile(path);
  ASSERT_TRUE(pin.has_value()) << pin.error().message();
  std::ofstream(path, std::ios::binary | std::ios::app) << '\0';  // same inode, new bytes

  auto library = PluginLibrary::Open(path, {});
  ASSERT_FALSE(library.has_value());
  EXPECT_NE(library.error().message().find("it was rewritten since it was hashed"),
            std::string::npos)
      << library.error().message();
}

// dlopen answers a path it has loaded before with the library already loaded,
// whatever file the path names now: the check after dlopen tells that the
// library it returned is not the file hashed.
TEST_F(LoaderTest, LibraryLoadedIsVerifiedToBeTheFileHashed) {
  const auto path = Write("switched.so", ReadFile(ReferencePlugin("sectl_cpu")));
  auto earlier = PluginLibrary::Open(path, {});  // not pinned: loads sectl_cpu's bytes
  ASSERT_TRUE(earlier.has_value()) << earlier.error().message();
  std::filesystem::rename(Write("minimal.so", ReadPlugin()), path);

  auto pin = PinPluginFile(path);  // hashes sectl_minimal's bytes
  ASSERT_TRUE(pin.has_value()) << pin.error().message();
  auto library = PluginLibrary::Open(path, {});
  ASSERT_FALSE(library.has_value());
  EXPECT_NE(library.error().message().find("the library loaded is not the file hashed"),
            std::string::npos)
      << library.error().message();
}

TEST_F(LoaderTest, APathIsPinnedOnlyWhileAPinLives) {
  const auto path = Write("scoped.so", ReadPlugin());
  {
    auto pin = PinPluginFile(path);
    ASSERT_TRUE(pin.has_value()) << pin.error().message();
    auto moved = std::move(*pin);
    auto second = PinPluginFile(path);
    ASSERT_TRUE(second.has_value());
    EXPECT_TRUE(PinnedIdentity(path).has_value());
  }
  EXPECT_FALSE(PinnedIdentity(path).has_value());
}

TEST_F(LoaderTest, HashingAFifoFailsInsteadOfWaitingForAWriter) {
  const auto path = (directory_ / "fifo.so").string();
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  auto digest = DigestFile(path);
  ASSERT_FALSE(digest.has_value());
  EXPECT_NE(digest.error().message().find("not a regular file"), std::string::npos)
      << digest.error().message();
  EXPECT_FALSE(PinPluginFile(path).has_value());
}

TEST(PluginPath, BareNameMeansTheCurrentDirectory) {
  EXPECT_EQ(PluginPathFromArgument("plugin.so"), "./plugin.so");
  EXPECT_EQ(PluginPathFromArgument("lib/plugin.so"), "lib/plugin.so");
  EXPECT_EQ(PluginPathFromArgument("/opt/plugin.so"), "/opt/plugin.so");
}

TEST(ElfIdentity, NamesMachines) {
  EXPECT_EQ(MachineName(EM_X86_64), "x86-64");
  EXPECT_EQ(MachineName(EM_AARCH64), "aarch64");
  EXPECT_EQ(MachineName(0x1234), "machine 0x1234");
}

}  // namespace
}  // namespace sectl::loader
