// The sectl_cuda reference plugin and sectl-cuda-baseline, end to end.
//
// Two kinds of test. Those that run anywhere, CI included (no GPU, usually no
// driver): the plugin loads, exports nothing but SE_InitPlugin, and where
// there is no usable device `sectl probe` and `sectl conform` say so in one
// clean line with exit status 1, never a crash. Those that need a GPU run
// `sectl conform`, `sectl bench memcpy` and the baseline on it, and skip,
// naming the reason, where cudaGetDeviceCount finds no device.
//
// The programs are found from this test's own path (<build>/tests/), so a
// copy of the build tree moved to a GPU machine
// (bench/cuda_baseline/make_gpu_bundle.sh) runs them as it does here.
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "sectl_process.h"

namespace sectl {
namespace {

using nlohmann::json;
using testing::CommandResult;
using testing::RunCommand;

// `relative` to the directory this test is in.
std::string BesideThisTest(const std::string& relative) {
  std::error_code error;
  const auto test = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return relative;
  return (test.parent_path() / relative).lexically_normal().string();
}

std::string CudaPlugin() { return BesideThisTest(SECTL_PLUGINS_FROM_TEST "/sectl_cuda.so"); }
std::string Baseline() { return BesideThisTest(SECTL_BIN_FROM_TEST "/sectl-cuda-baseline"); }

CommandResult RunSectl(const std::vector<std::string>& arguments) {
  std::vector<std::string> command = {BesideThisTest(SECTL_BIN_FROM_TEST "/sectl")};
  command.insert(command.end(), arguments.begin(), arguments.end());
  return RunCommand(command);
}

CommandResult RunBaseline(const std::vector<std::string>& arguments) {
  std::vector<std::string> command = {Baseline()};
  command.insert(command.end(), arguments.begin(), arguments.end());
  return RunCommand(command);
}

// Why this machine cannot run the GPU tests, or nullopt when it can.
std::optional<std::string> WhyNoCudaDevice() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    return std::string("no CUDA device: ") + cudaGetErrorName(error) + " (" +
           cudaGetErrorString(error) + ")";
  }
  if (count == 0) return std::string("no CUDA device: cudaGetDeviceCount found none");
  return std::nullopt;
}

#define SKIP_WITHOUT_CUDA_DEVICE()                                      \
  do {                                                                  \
    if (const auto reason = WhyNoCudaDevice()) GTEST_SKIP() << *reason; \
  } while (false)

#define SKIP_WITH_CUDA_DEVICE()                                  \
  do {                                                           \
    if (!WhyNoCudaDevice())                                      \
      GTEST_SKIP() << "a CUDA device is present; the GPU tests " \
                      "cover this machine";                      \
  } while (false)

std::string Lines(const std::string& text) {
  return std::to_string(std::count(text.begin(), text.end(), '\n'));
}

json ParseJson(const CommandResult& result) {
  try {
    return json::parse(result.out);
  } catch (const json::exception& error) {
    ADD_FAILURE() << "stdout is not JSON: " << error.what() << "\n" << result.out << result.err;
    return {};
  }
}

// A temporary file name, removed when the test is done with it.
class TemporaryPath {
 public:
  explicit TemporaryPath(const std::string& stem)
      : path_(std::filesystem::temp_directory_path() /
              (stem + "_" + std::to_string(::getpid()) + ".json")) {}
  ~TemporaryPath() { std::filesystem::remove(path_); }
  TemporaryPath(const TemporaryPath&) = delete;
  TemporaryPath& operator=(const TemporaryPath&) = delete;
  std::string string() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

// --- Anywhere -------------------------------------------------------------

struct LibraryCloser {
  void operator()(void* handle) const { dlclose(handle); }
};

TEST(CudaPlugin, LoadsWithoutDriverOrDevice) {
  // The CUDA runtime is linked statically: nothing the plugin needs at load
  // time is missing on a machine without the NVIDIA driver.
  const std::unique_ptr<void, LibraryCloser> library(
      dlopen(CudaPlugin().c_str(), RTLD_NOW | RTLD_LOCAL));
  ASSERT_NE(library, nullptr) << dlerror();
  EXPECT_NE(dlsym(library.get(), "SE_InitPlugin"), nullptr);
  // The runtime linked into it stays private to it.
  EXPECT_EQ(dlsym(library.get(), "cudaGetDeviceCount"), nullptr);
}

TEST(CudaPlugin, ExportsOnlyItsEntryPoint) {
  const CommandResult symbols = RunCommand({"nm", "-D", "--defined-only", CudaPlugin()});
  ASSERT_EQ(symbols.exit_code, 0) << symbols.err;
  std::istringstream lines(symbols.out);
  std::vector<std::string> names;
  for (std::string address, type, name; lines >> address >> type >> name;) names.push_back(name);
  EXPECT_EQ(names, std::vector<std::string>{"SE_InitPlugin"}) << symbols.out;
}

TEST(CudaPlugin, LinksNoCudaLibraryDynamically) {
  const CommandResult dynamic = RunCommand({"readelf", "-d", CudaPlugin()});
  ASSERT_EQ(dynamic.exit_code, 0) << dynamic.err;
  EXPECT_EQ(dynamic.out.find("libcuda"), std::string::npos) << dynamic.out;
  EXPECT_EQ(dynamic.out.find("libcudart"), std::string::npos) << dynamic.out;
}

TEST(CudaPlugin, ProbeWithoutDeviceIsOneCleanLine) {
  SKIP_WITH_CUDA_DEVICE();
  const CommandResult result = RunSectl({"probe", CudaPlugin()});
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_TRUE(result.out.empty()) << result.out;
  EXPECT_EQ(Lines(result.err), "1") << result.err;
  EXPECT_EQ(result.err.rfind("sectl: error: ", 0), 0u) << result.err;
  EXPECT_NE(result.err.find("SE_InitPlugin failed: UNAVAILABLE: sectl_cuda: no CUDA "),
            std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("cudaGetDeviceCount failed with cuda"), std::string::npos)
      << result.err;
}

TEST(CudaPlugin, ConformWithoutDeviceReportsTheLoadError) {
  SKIP_WITH_CUDA_DEVICE();
  const CommandResult result = RunSectl({"conform", "--report", "json", CudaPlugin()});
  EXPECT_EQ(result.exit_code, 1) << result.err;
  const json report = ParseJson(result);
  ASSERT_TRUE(report.contains("load_error")) << report.dump(2);
  EXPECT_NE(report["load_error"].get<std::string>().find("sectl_cuda: no CUDA "), std::string::npos)
      << report["load_error"];
  EXPECT_TRUE(report["results"].empty()) << "no check can run without a device";
  for (const auto& [status, count] : report["summary"].items()) {
    EXPECT_EQ(count, 0) << status;
  }
}

TEST(CudaBaseline, WithoutDeviceIsOneCleanLine) {
  SKIP_WITH_CUDA_DEVICE();
  for (const std::vector<std::string>& arguments :
       {std::vector<std::string>{"--sizes", "4KiB"},
        {"--sizes", "4KiB", "--host-memory", "pageable"},
        {"latency"}}) {
    const CommandResult result = RunBaseline(arguments);
    EXPECT_EQ(result.exit_code, 1) << result.err;
    EXPECT_TRUE(result.out.empty()) << result.out;
    EXPECT_EQ(Lines(result.err), "1") << result.err;
    EXPECT_EQ(result.err.rfind("sectl-cuda-baseline: error: no CUDA device: ", 0), 0u)
        << result.err;
  }
}

TEST(CudaBaseline, UsageErrorsExitTwo) {
  // The arguments, and what the one line of error must name.
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--sizes", "lots"}, "--sizes"},
      {{"--direction", "sideways"}, "--direction"},
      {{"--host-memory", "sideways"}, "--host-memory"},
      {{"--host-memory", "none"}, "--host-memory"},
      {{"--budget", "0"}, "--budget"},
      {{"--no-such-flag"}, "--no-such-flag"},
      {{"--sizes", "4KiB", "latency"}, "--sizes"},
      {{"latency", "--host-memory", "pageable"}, "--host-memory"},
      {{"latency", "--budget", "0"}, "--budget"}};
  for (const auto& [arguments, named] : cases) {
    const CommandResult result = RunBaseline(arguments);
    EXPECT_EQ(result.exit_code, 2) << arguments[0] << ": " << result.err;
    EXPECT_EQ(Lines(result.err), "1") << result.err;
    EXPECT_NE(result.err.find(named), std::string::npos) << result.err;
  }
}

// --- On a GPU -------------------------------------------------------------

TEST(CudaPluginOnGpu, ProbeDescribesTheDevice) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const CommandResult result = RunSectl({"probe", "--format", "json", CudaPlugin()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  const json report = ParseJson(result);
  EXPECT_EQ(report["platform"]["name"], "SECTL_CUDA");
  ASSERT_GE(report["devices"].size(), 1u);
  const json& device = report["devices"][0];
  EXPECT_EQ(device["vendor"], "NVIDIA");
  EXPECT_FALSE(device["hardware_name"].get<std::string>().empty());
  // As sysfs spells it, so /sys/bus/pci/devices/<id>/numa_node can be read.
  EXPECT_TRUE(std::regex_match(device["pci_bus_id"].get<std::string>(),
                               std::regex("[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]")))
      << device["pci_bus_id"];
  EXPECT_GT(device["memory"]["total_bytes"].get<int64_t>(), 0);
  EXPECT_GT(device["memory_bandwidth_bytes_per_second"].get<int64_t>(), 0);
  EXPECT_TRUE(report["findings"].empty()) << report["findings"].dump(2);
}

TEST(CudaPluginOnGpu, ConformPassesEveryRequiredCheck) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const CommandResult result = RunSectl({"conform", "--report", "json", CudaPlugin()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  const json report = ParseJson(result);
  EXPECT_TRUE(report["load_error"].is_null()) << report["load_error"];
  EXPECT_FALSE(report["results"].empty());
  for (const json& check : report["results"]) {
    const std::string status = check["status"];
    EXPECT_TRUE(status == "pass" || status == "skip" || status == "warn")
        << check["id"] << " " << status << ": " << check["message"];
  }
}

// The copy paths a memcpy report measured ("h2d pageable async 65536"),
// each of which must have been measured and verified.
std::set<std::string> MeasuredPaths(const json& report) {
  std::set<std::string> keys;
  for (const json& result : report["results"]) {
    EXPECT_TRUE(result["error"].is_null()) << result;
    EXPECT_EQ(result["verification"], "passed") << result;
    EXPECT_GT(result["median_gbps"].get<double>(), 0) << result;
    EXPECT_FALSE(result["plugin_timer"].is_null()) << "the timer column is filled: " << result;
    keys.insert(result["direction"].get<std::string>() + " " +
                result["host_memory"].get<std::string>() + " " + result["mode"].get<std::string>() +
                " " + result["bytes"].dump());
  }
  return keys;
}

json ReadJsonFile(const std::string& path) {
  std::ifstream file(path);
  json document = json::parse(file, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(document.is_discarded()) << path << " holds no JSON";
  return document;
}

TEST(CudaPluginOnGpu, BenchCopiesAreVerifiedAndComparableWithTheBaseline) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const TemporaryPath baseline("sectl_cuda_baseline");
  const CommandResult raw =
      RunBaseline({"--sizes", "64KiB,16MiB", "--budget", "0.1", "-o", baseline.string()});
  ASSERT_EQ(raw.exit_code, 0) << raw.err;

  // The plugin path against the raw one. Speed is not asserted (that is the
  // benchmark's business); that both measure the same paths, verified, is.
  const CommandResult bench =
      RunSectl({"bench", "memcpy", CudaPlugin(), "--sizes", "64KiB,16MiB", "--budget", "0.1",
                "--report", "json", "--compare", baseline.string(), "--tolerance", "99%"});
  ASSERT_NE(bench.exit_code, 2) << bench.err;
  const json report = ParseJson(bench);
  const json raw_report = ReadJsonFile(baseline.string());

  // Each report measured the same six paths (three directions, two sizes),
  // each verified, so --compare pairs every result with its raw twin.
  const std::set<std::string> plugin_paths = MeasuredPaths(report);
  EXPECT_EQ(plugin_paths.size(), 6u) << report.dump(2);
  EXPECT_EQ(plugin_paths, MeasuredPaths(raw_report));
}

// CUDA makes a copy between the device and pageable memory wait for the
// work queued before it (bench/cuda_baseline/raw_copy.h). The baseline
// times such copies without a gate; sectl bench must measure them too,
// rather than stall behind a gate that only its own blocked copy could open.
TEST(CudaPluginOnGpu, PageableCopiesAreMeasuredAndComparableWithTheBaseline) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const TemporaryPath baseline("sectl_cuda_baseline_pageable");
  const CommandResult raw = RunBaseline({"--host-memory", "pageable", "--sizes", "64KiB,4MiB",
                                         "--budget", "0.1", "-o", baseline.string()});
  ASSERT_EQ(raw.exit_code, 0) << raw.err;
  const json raw_report = ReadJsonFile(baseline.string());
  for (const json& result : raw_report["results"]) {
    // Ungated where pageable, gated (d2d) otherwise.
    EXPECT_EQ(result["enqueue_excluded"], result["host_memory"] != "pageable") << result;
  }

  // A stalled copy is killed after 20 s without progress, not waited out.
  const CommandResult bench =
      RunSectl({"bench", "memcpy", CudaPlugin(), "--host-memory", "pageable", "--sizes",
                "64KiB,4MiB", "--budget", "0.1", "--timeout", "20", "--report", "json", "--compare",
                baseline.string(), "--tolerance", "99%"});
  ASSERT_NE(bench.exit_code, 2) << bench.err;
  const json report = ParseJson(bench);
  const std::set<std::string> plugin_paths = MeasuredPaths(report);
  EXPECT_EQ(plugin_paths.size(), 6u) << report.dump(2);
  EXPECT_EQ(plugin_paths, MeasuredPaths(raw_report));
  EXPECT_EQ(plugin_paths.count("h2d pageable async 65536"), 1u) << report.dump(2);
}

TEST(CudaPluginOnGpu, LatencyIsComparableWithTheRawCalls) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const TemporaryPath baseline("sectl_cuda_raw_latency");
  const CommandResult raw = RunBaseline({"latency", "--budget", "0.05", "-o", baseline.string()});
  ASSERT_EQ(raw.exit_code, 0) << raw.err;
  const CommandResult bench =
      RunSectl({"bench", "latency", CudaPlugin(), "--budget", "0.05", "--report", "json",
                "--compare", baseline.string(), "--tolerance", "99%"});
  ASSERT_NE(bench.exit_code, 2) << bench.err;

  // The same operations, each measured on both paths.
  const auto operations = [](const json& measured) {
    std::set<std::string> names;
    for (const json& result : measured["latency"]) {
      EXPECT_TRUE(result["error"].is_null()) << result;
      EXPECT_GT(result["median_ns"].get<double>(), 0) << result;
      names.insert(result["operation"].get<std::string>());
    }
    return names;
  };
  const std::set<std::string> plugin_operations = operations(ParseJson(bench));
  EXPECT_EQ(plugin_operations.size(), 8u);
  EXPECT_EQ(plugin_operations, operations(ReadJsonFile(baseline.string())));
}

}  // namespace
}  // namespace sectl
