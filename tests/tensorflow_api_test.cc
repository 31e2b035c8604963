// Plugins with a kernel module load as TensorFlow loads them, with RTLD_NOW
// and no --lazy: sectl's executables export TensorFlow's C API
// (lib/tf_c_api/) and load stand-ins for the TensorFlow libraries a plugin
// names as needed (loader/tensorflow_stand_ins.h), in the plugin server and
// in sectl's own process alike. A plugin that needs TensorFlow's C++ API is
// refused with a message that says so.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "sectl_process.h"

namespace sectl::testing {
namespace {

std::string FieldPlugin(const std::string& name) {
  return std::string(SECTL_FIELD_PLUGIN_DIR) + "/" + name + ".so";
}

struct Loading {
  std::string plugin;
  std::vector<std::string> extra;  // flags beyond the plugin

  friend void PrintTo(const Loading& loading, std::ostream* out) {
    *out << loading.plugin << (loading.extra.empty() ? "" : " in sectl's own process");
  }
};

class KernelModulePlugin : public ::testing::TestWithParam<Loading> {};

TEST_P(KernelModulePlugin, LoadsWithoutLazyBinding) {
  std::vector<std::string> arguments = {"probe", FieldPlugin(GetParam().plugin)};
  arguments.insert(arguments.end(), GetParam().extra.begin(), GetParam().extra.end());
  const CommandResult run = RunSectl(arguments);
  EXPECT_EQ(run.exit_code, 0) << run.err << run.out;
  EXPECT_NE(run.out.find("WHOLE_STRUCT"), std::string::npos) << run.out;
}

INSTANTIATE_TEST_SUITE_P(
    TensorFlowApi, KernelModulePlugin,
    ::testing::Values(Loading{"field_sample_kernels", {}}, Loading{"field_framework_linked", {}},
                      // In sectl's own process: the stand-ins are loaded there too.
                      Loading{"field_framework_linked", {"--isolation", "none"}}),
    [](const auto& info) {
      return info.param.plugin + (info.param.extra.empty() ? "" : "_in_process");
    });

// The modules TensorFlow's loader would find, read from the plugin's
// exported symbols, with the TensorFlow libraries it names as needed.
TEST(TensorFlowApi, ProbeListsTheModulesTheLoaderWouldFind) {
  const CommandResult run =
      RunSectl({"probe", FieldPlugin("field_framework_linked"), "--format", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto report = nlohmann::json::parse(run.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << run.out;
  std::vector<std::string> exported;
  for (const auto& module : report["modules"]) {
    if (module["exported"].get<bool>()) exported.push_back(module["entry_point"]);
  }
  EXPECT_EQ(exported, (std::vector<std::string>{"SE_InitPlugin", "TF_InitKernel"}));
  EXPECT_EQ(report["tensorflow_libraries_needed"],
            nlohmann::json::array({"libtensorflow_framework.so.2"}));
}

// The community sample's graph module, under a name no loader looks up.
TEST(TensorFlowApi, AGraphModuleUnderTheSamplesNameIsAWarning) {
  const CommandResult run =
      RunSectl({"probe", FieldPlugin("field_sample_kernels"), "--format", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto report = nlohmann::json::parse(run.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << run.out;
  bool warned = false;
  for (const auto& finding : report["findings"]) {
    if (finding["id"] == "module.graph.entry_point_misnamed") {
      warned = true;
      EXPECT_EQ(finding["severity"], "warning");
      EXPECT_NE(finding["message"].get<std::string>().find("TF_InitGraph"), std::string::npos);
    }
  }
  EXPECT_TRUE(warned) << report["findings"].dump(2);
  EXPECT_TRUE(report["tensorflow_libraries_needed"].empty());
}

TEST(TensorFlowApi, APluginOfTheCxxApiIsRefusedSayingSo) {
  const CommandResult run = RunSectl({"probe", FieldPlugin("field_cxx_kernel_api")});
  EXPECT_EQ(run.exit_code, 1) << run.err << run.out;
  // The first of its references the loader meets: the base class's type
  // information or its destructor.
  EXPECT_NE(run.err.find("needs TensorFlow's C++ API (unresolved symbol _Z"), std::string::npos)
      << run.err;
}

}  // namespace
}  // namespace sectl::testing
