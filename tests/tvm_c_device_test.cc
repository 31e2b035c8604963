// TVM's C Device API support: TVM's naming rule, finding the devices a file
// exports, recognising the plugin kind, and `sectl conform` / `probe` on the
// woofles reference device.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "loader/exported_symbols.h"
#include "loader/plugin_library.h"
#include "sectl_process.h"
#include "tvm/c_device_catalog.h"
#include "tvm/c_device_names.h"
#include "tvm/context_storage.h"

namespace sectl::tvm {
namespace {

using sectl::testing::ReferencePlugin;
using sectl::testing::RunSectl;

TEST(CDeviceName, FollowsTvmsRule) {
  EXPECT_EQ(CDeviceName("ethos-u"), "EthosU");
  EXPECT_EQ(CDeviceName("ethos_u"), "EthosU");
  EXPECT_EQ(CDeviceName("woofles"), "Woofles");
  EXPECT_EQ(CDeviceName("woofles-dma"), "WooflesDma");
  // Letters after the first of a block are lower-cased.
  EXPECT_EQ(CDeviceName("NPU"), "Npu");
  EXPECT_EQ(CDeviceName("myNpu"), "Mynpu");
}

TEST(CDeviceName, DropsDigitsWithoutStartingABlock) {
  EXPECT_EQ(CDeviceName("npu2"), "Npu");
  EXPECT_EQ(CDeviceName("npu2x"), "Npux");
  EXPECT_EQ(CDeviceName("npu_2_x"), "NpuX");
  EXPECT_EQ(CDeviceName("2d-dma"), "DDma");  // the digit goes, the block still starts
  EXPECT_EQ(CDeviceName("42"), "");
}

TEST(NamingPitfalls, NameDigitsCaseAndEmptyNames) {
  EXPECT_TRUE(NamingPitfalls("ethos-u").empty());
  EXPECT_TRUE(NamingPitfalls("woofles").empty());
  const auto digits = NamingPitfalls("npu2");
  ASSERT_EQ(digits.size(), 1u);
  EXPECT_NE(digits[0].find("digit(s) 2"), std::string::npos) << digits[0];
  EXPECT_NE(digits[0].find("TVMDeviceNpu<Hook>"), std::string::npos) << digits[0];
  const auto upper = NamingPitfalls("NPU");
  ASSERT_EQ(upper.size(), 1u);
  EXPECT_NE(upper[0].find("lower-cases"), std::string::npos) << upper[0];
  EXPECT_FALSE(NamingPitfalls("42").empty());
}

TEST(HookSymbol, ParsesEveryHookAndRejectsOthers) {
  EXPECT_EQ(HookSymbol("EthosU", Hook::kOpen), "TVMDeviceEthosUOpen");
  for (Hook hook : kAllHooks) {
    auto parts = ParseHookSymbol(HookSymbol("WooflesDma", hook));
    ASSERT_TRUE(parts) << HookName(hook);
    EXPECT_EQ(parts->c_name, "WooflesDma");
    EXPECT_EQ(parts->hook, hook);
  }
  // "Deactivate" also ends in "Activate".
  EXPECT_EQ(ParseHookSymbol("TVMDeviceFooDeactivate")->hook, Hook::kDeactivate);
  EXPECT_EQ(ParseHookSymbol("TVMDeviceFooDeactivate")->c_name, "Foo");
  EXPECT_FALSE(ParseHookSymbol("TVMDeviceOpen"));       // no name
  EXPECT_FALSE(ParseHookSymbol("TVMDeviceNpu2Open"));   // TVM never generates digits
  EXPECT_FALSE(ParseHookSymbol("TVMDeviceFooLaunch"));  // not a hook
  EXPECT_FALSE(ParseHookSymbol("SE_InitPlugin"));
  EXPECT_EQ(MangledHookSymbol("Woofles", Hook::kClose), "_Z21TVMDeviceWooflesClosePv");
}

TEST(CDeviceCatalog, GroupsHooksByDeviceAndNotesCxxLinkage) {
  const auto catalog = CatalogFromSymbols({"TVMDeviceBOpen", "TVMDeviceAActivate", "TVMDeviceAOpen",
                                           "TVMDeviceAClose", "TVMDeviceADeactivate",
                                           "_Z15TVMDeviceBClosePv", "unrelated"});
  ASSERT_EQ(catalog.devices.size(), 2u);
  EXPECT_EQ(catalog.devices[0].c_name, "A");
  EXPECT_TRUE(catalog.devices[0].MissingGeneratedCodeHooks().empty());
  EXPECT_FALSE(catalog.devices[0].Exports(Hook::kInit));
  const auto* b = catalog.Find("B");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->cxx_linkage_only, std::vector<Hook>{Hook::kClose});
  EXPECT_EQ(b->MissingGeneratedCodeHooks(),
            (std::vector<Hook>{Hook::kActivate, Hook::kClose, Hook::kDeactivate}));
}

TEST(CDeviceCatalog, ChoosesTheDeviceByTargetOrCName) {
  const auto catalog = CatalogFromSymbols({"TVMDeviceEthosUOpen", "TVMDeviceWooflesOpen"});
  EXPECT_EQ(ChooseDevicesUnderTest(catalog, "")->device, "EthosU");
  EXPECT_EQ(*ChooseDevicesUnderTest(catalog, "")->second, "Woofles");
  EXPECT_EQ(ChooseDevicesUnderTest(catalog, "ethos-u")->device, "EthosU");
  EXPECT_EQ(ChooseDevicesUnderTest(catalog, "Woofles")->device, "Woofles");
  auto missing = ChooseDevicesUnderTest(catalog, "npu");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("it provides: EthosU, Woofles"), std::string::npos)
      << missing.error().message();
}

TEST(ContextStorage, IsZeroedAndEndsAtAGuardPage) {
  auto storage = ContextStorage::Create(100);
  ASSERT_TRUE(storage);
  auto* bytes = static_cast<unsigned char*>(storage->context());
  for (size_t i = 0; i < 100; ++i) ASSERT_EQ(bytes[i], 0) << i;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(storage->context()) % 16, 0u);
  EXPECT_TRUE(storage->PrefixIntact());
  bytes[-1] = 1;
  EXPECT_FALSE(storage->PrefixIntact());
  // One byte past the end (rounded to the context's alignment) is the guard page.
  constexpr size_t kRoundedSize = (100 + 15) / 16 * size_t{16};
  EXPECT_DEATH(bytes[kRoundedSize] = 1, "");
}

TEST(Woofles, IsRecognisedFromItsSymbols) {
  const std::string woofles = ReferencePlugin("sectl_woofles");
  auto functions = loader::ExportedFunctions(woofles);
  ASSERT_TRUE(functions) << functions.error().message();
  const auto catalog = CatalogFromSymbols(*functions);
  ASSERT_EQ(catalog.devices.size(), 2u);
  EXPECT_EQ(catalog.devices[0].c_name, "Woofles");
  EXPECT_EQ(catalog.devices[1].c_name, "WooflesDma");
  for (Hook hook : kAllHooks) EXPECT_TRUE(catalog.devices[0].Exports(hook)) << HookName(hook);
  EXPECT_EQ(*loader::RecognisePluginAbi(woofles), loader::PluginAbi::kTvmCDevice);
  EXPECT_EQ(*loader::RecognisePluginAbi(ReferencePlugin("sectl_cpu")),
            loader::PluginAbi::kStreamExecutor);
  // Opened as a StreamExecutor plugin, it says what it is.
  auto opened = loader::PluginLibrary::Open(woofles, {});
  ASSERT_FALSE(opened);
  EXPECT_NE(opened.error().message().find("--abi tvm-c-device"), std::string::npos)
      << opened.error().message();
  EXPECT_TRUE(loader::PluginLibrary::Open(woofles, {.abi = loader::PluginAbi::kTvmCDevice}));
}

TEST(WooflesConform, PassesEveryCheckOfItsProfile) {
  const auto result = RunSectl(
      {"conform", ReferencePlugin("sectl_woofles"), "--report", "json", "--timeout", "20"});
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  const auto report = nlohmann::json::parse(result.out);
  EXPECT_EQ(report["profile"], "tvm-c-device");
  EXPECT_EQ(report["plugin"]["entry"], "TVMDeviceWoofles*");
  EXPECT_GE(report["results"].size(), 10u);
  for (const auto& entry : report["results"]) {
#if defined(SECTL_SANITIZED)
    // Sanitizers own the allocator: the allocation watch is compiled out.
    if (entry["id"] == "tvm_c_device.no_dynamic_allocation") {
      EXPECT_EQ(entry["status"], "skip") << entry.dump(2);
      continue;
    }
#endif
    EXPECT_EQ(entry["status"], "pass") << entry.dump(2);
  }
}

TEST(WooflesConform, TestsTheDeviceAskedFor) {
  const auto result =
      RunSectl({"conform", ReferencePlugin("sectl_woofles"), "--tvm-device", "woofles-dma",
                "--report", "json", "--filter", "tvm_c_device.success_returns_zero"});
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_EQ(nlohmann::json::parse(result.out)["plugin"]["entry"], "TVMDeviceWooflesDma*");
}

TEST(WooflesConform, UsageErrorsExitWithTwo) {
  const auto unknown =
      RunSectl({"conform", ReferencePlugin("sectl_woofles"), "--tvm-device", "npu2"});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
  EXPECT_NE(unknown.err.find("it provides: Woofles, WooflesDma"), std::string::npos) << unknown.err;
  const auto wrong_profile =
      RunSectl({"conform", ReferencePlugin("sectl_cpu"), "--profile", "tvm-c-device"});
  EXPECT_EQ(wrong_profile.exit_code, 2) << wrong_profile.err;
  const auto forced_abi =
      RunSectl({"conform", ReferencePlugin("sectl_cpu"), "--abi", "tvm-c-device"});
  EXPECT_EQ(forced_abi.exit_code, 1) << forced_abi.out << forced_abi.err;
  EXPECT_NE(forced_abi.out.find("exports no TVM C Device API hooks"), std::string::npos)
      << forced_abi.out;
}

TEST(WooflesProbe, ListsEveryDeviceAndItsHooks) {
  const auto table = RunSectl({"probe", ReferencePlugin("sectl_woofles")});
  EXPECT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("Device WooflesDma"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("TVMDeviceWooflesDeactivate"), std::string::npos) << table.out;
  const auto json = RunSectl({"probe", ReferencePlugin("sectl_woofles"), "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto probe = nlohmann::json::parse(json.out);
  EXPECT_EQ(probe["abi"], "tvm-c-device");
  ASSERT_EQ(probe["devices"].size(), 2u);
  EXPECT_EQ(probe["devices"][0]["hooks"]["Open"]["state"], "exported");
  EXPECT_EQ(probe["devices"][0]["has_init"], true);
}

TEST(WooflesProbe, ACxxLinkageHookIsAnError) {
  const auto result = RunSectl(
      {"probe", std::string(SECTL_FAULTY_PLUGIN_DIR) + "/faulty_tvm_cxx_linkage_close.so"});
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_NE(result.out.find("C++ linkage only"), std::string::npos) << result.out;
}

TEST(StreamExecutorProbe, ShowsTvmDeviceAttributes) {
  const auto result = RunSectl({"probe", ReferencePlugin("sectl_cpu"), "--format", "json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto probe = nlohmann::json::parse(result.out);
  const auto& attributes = probe["devices"][0]["tvm_attributes"];
  ASSERT_EQ(attributes.size(), 17u);
  EXPECT_EQ(attributes[0]["kind"], "kExist");
  EXPECT_EQ(attributes[0]["integer"], 1);
  EXPECT_EQ(attributes[14]["kind"], "kTotalGlobalMemory");
  EXPECT_GT(attributes[14]["integer"].get<int64_t>(), 0);
  EXPECT_TRUE(attributes[2]["integer"].is_null());  // kWarpSize: none
  EXPECT_TRUE(attributes[2]["text"].is_null());
}

}  // namespace
}  // namespace sectl::tvm
