// Shapes of TVM runtime sectl must recognise from the file and survive
// (reference_plugins/tvm_runtime, "TVM runtime shapes"): a v0.25+ backend
// library whose core is found beside it or through --tvm-core, a kExist that
// crashes beyond TVM's DeviceAPI table (a finding, not a load failure), and
// a runtime that installs its own SIGSEGV handler at load.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "loader/exported_symbols.h"
#include "loader/plugin_library.h"
#include "loader/tvm_backend_library.h"
#include "sectl_process.h"

namespace sectl::testing {
namespace {

namespace fs = std::filesystem;

const std::string kShapes = SECTL_TVM_SHAPES_DIR;
const std::string kCore = kShapes + "/split/libtvm_runtime.so";
const std::string kBackend = kShapes + "/split/libtvm_runtime_ext_dev.so";
const std::string kExistCrashes = kShapes + "/exist_crashes_beyond_table.so";
const std::string kSegvHandler = kShapes + "/segv_handler_at_load.so";

// The backend alone in a directory of its own: no core beside it.
class BackendAlone : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() / ("sectl_backend_alone_" + std::to_string(::getpid()));
    fs::create_directories(directory_);
    backend_ = (directory_ / "libtvm_runtime_ext_dev.so").string();
    fs::copy_file(kBackend, backend_, fs::copy_options::overwrite_existing);
  }
  void TearDown() override { fs::remove_all(directory_); }
  fs::path directory_;
  std::string backend_;
};

TEST(TvmBackendLibrary, IsRecognisedFromTheFileAlone) {
  auto dependencies = loader::ReadDynamicDependencies(kBackend);
  ASSERT_TRUE(dependencies) << dependencies.error().message();
  EXPECT_NE(
      std::find(dependencies->needed.begin(), dependencies->needed.end(), "libtvm_runtime.so"),
      dependencies->needed.end());
  auto backend = loader::ReadTvmBackendLibrary(kBackend);
  ASSERT_TRUE(backend);
  EXPECT_EQ(backend->served_name, "ext_dev");
  EXPECT_EQ(backend->core_libraries, std::vector<std::string>{"libtvm_runtime.so"});
  auto abi = loader::RecognisePluginAbi(kBackend);
  ASSERT_TRUE(abi) << abi.error().message();
  EXPECT_EQ(*abi, loader::PluginAbi::kTvmRuntime);
  // The core exports TVM's entry points: a runtime, not a backend library.
  EXPECT_FALSE(loader::ReadTvmBackendLibrary(kCore));
}

TEST(TvmBackendLibrary, ProbeWithoutAbiListsWhatTheBackendAdds) {
  const auto result = RunSectl({"probe", kBackend, "--format", "json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto probe = nlohmann::json::parse(result.out);
  EXPECT_EQ(probe["abi"], "tvm-runtime");
  EXPECT_EQ(fs::path(probe["backend"]["core"].get<std::string>()).filename(), "libtvm_runtime.so");
  EXPECT_EQ(probe["backend"]["device_types_added"], nlohmann::json::array({12}));
  bool ext_dev = false;
  for (const auto& type : probe["device_types"]) ext_dev |= type["name"] == "ext_dev";
  EXPECT_TRUE(ext_dev) << probe.dump(2);
}

TEST(TvmBackendLibrary, ProbeOfTheCoreNamesTheBackendBesideIt) {
  const auto result = RunSectl({"probe", kCore, "--format", "json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto probe = nlohmann::json::parse(result.out);
  ASSERT_TRUE(probe.contains("backends_beside")) << probe.dump(2);
  EXPECT_EQ(probe["backends_beside"], nlohmann::json::array({kBackend}));
  for (const auto& type : probe["device_types"]) EXPECT_NE(type["name"], "ext_dev");
}

TEST(TvmBackendLibrary, ConformWithoutAbiChecksTheDeviceTypeTheBackendServes) {
  const auto result = RunSectl({"conform", kBackend, "--format", "json", "-j", "2"});
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  const auto report = nlohmann::json::parse(result.out);
  EXPECT_EQ(report["profile"], "tvm-device-api");
  EXPECT_EQ(report["load_error"], nullptr);
  bool ext_dev_named = false;
  for (const auto& argument : report["command_line"]) ext_dev_named |= argument == "ext_dev";
  EXPECT_FALSE(ext_dev_named) << "the device type came from the file name";
}

TEST(TvmBackendLibrary, TheCoreOnlyNamesTheBackendLibraryForItsDeviceType) {
  const auto result = RunSectl({"conform", kCore, "--tvm-device-type", "ext_dev"});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find("no DeviceAPI for ext_dev in this library (TVM v0.25+ keeps it in " +
                            kBackend),
            std::string::npos)
      << result.err;
}

TEST_F(BackendAlone, WithoutItsCoreIsOneLineNamingTheNeededLibraryAndTheOption) {
  for (const char* command : {"probe", "conform"}) {
    const auto result = RunSectl({command, backend_});
    EXPECT_EQ(result.exit_code, 1) << command << ": " << result.err << result.out;
    const std::string text = result.err + result.out;
    EXPECT_NE(text.find("needs TVM's core library libtvm_runtime.so (DT_NEEDED)"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("--tvm-core PATH"), std::string::npos) << text;
  }
}

TEST_F(BackendAlone, TvmCoreFindsTheCoreElsewhere) {
  const auto probe = RunSectl({"probe", backend_, "--tvm-core", kCore, "--format", "json"});
  ASSERT_EQ(probe.exit_code, 0) << probe.err;
  EXPECT_EQ(nlohmann::json::parse(probe.out)["backend"]["device_types_added"],
            nlohmann::json::array({12}));
  const auto conform = RunSectl({"conform", backend_, "--tvm-core", kCore, "--quiet", "-j", "2"});
  EXPECT_EQ(conform.exit_code, 0) << conform.err << conform.out;
}

// --tvm-core is handed to dlopen, which would wait for a writer on a FIFO:
// it must be a regular file, refused in one line before anything loads.
TEST_F(BackendAlone, TvmCoreThatIsAFifoIsRefusedAtOnce) {
  const std::string fifo = (directory_ / "libtvm_runtime.so").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const char* command : {"probe", "conform"}) {
    testing::RunOptions options;
    options.deadline = std::chrono::seconds(60);
    options.own_process_group = true;
    const auto result = RunSectl({command, backend_, "--tvm-core", fifo}, options);
    EXPECT_FALSE(result.timed_out) << command;
    EXPECT_EQ(result.exit_code, 2) << command << ": " << result.err << result.out;
    EXPECT_NE(result.err.find("--tvm-core " + fifo + ": is a FIFO, not a regular file"),
              std::string::npos)
        << result.err;
  }
}

TEST(TvmRuntimeShapes, AKExistCrashBeyondTvmsTableIsAFindingNotALoadFailure) {
  const auto result = RunSectl(
      {"conform", kExistCrashes, "--tvm-device-type", "37", "--format", "json", "-j", "2"});
  EXPECT_EQ(result.exit_code, 1) << result.err;
  const auto report = nlohmann::json::parse(result.out);
  EXPECT_EQ(report["load_error"], nullptr);
  ASSERT_FALSE(report["learned_before_checks"].empty()) << report.dump(2);
  const std::string problem = report["learned_before_checks"][0]["problem"];
  EXPECT_TRUE(problem.starts_with("kExist(37) crashed with SIGSEGV")) << problem;
  EXPECT_NE(problem.find("without a bounds check"), std::string::npos) << problem;
  for (const auto& check : report["results"]) {
    if (check["id"] == "tvm_device_api.exist") {
      EXPECT_EQ(check["status"], "crash");
    }
  }
  // On a type within the table the same runtime passes.
  const auto cpu = RunSectl({"conform", kExistCrashes, "--quiet", "-j", "2"});
  EXPECT_EQ(cpu.exit_code, 0) << cpu.err << cpu.out;
}

TEST(TvmRuntimeShapes, ASegvHandlerInstalledAtLoadIsReplacedAndSaidOnce) {
  const auto result = RunSectl({"conform", kSegvHandler, "--format", "json", "-j", "2"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  const auto report = nlohmann::json::parse(result.out);
  ASSERT_EQ(report["learned_before_checks"].size(), 1u) << report.dump(2);
  EXPECT_EQ(report["learned_before_checks"][0]["problem"],
            "the runtime installed its own SIGSEGV handler at load "
            "(TVM_FFI_BACKTRACE_ON_SEGFAULT?); sectl restored its own");
  const auto probe = RunSectl({"probe", kSegvHandler});
  EXPECT_NE(probe.out.find("sectl restored its own"), std::string::npos) << probe.out;
}

}  // namespace
}  // namespace sectl::testing
