// Every load failure gets its own precise one-line diagnosis. Each case is
// a real file: built by CMake (tests/fixtures) or made here from a real plugin.
#include <elf.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "loader/elf_identity.h"
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
  EXPECT_NE(message.find("unresolved symbol TF_NewKernelBuilder"), std::string::npos);
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
