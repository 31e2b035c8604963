#include "probe/plugin_modules.h"

#include <algorithm>

#include "loader/exported_symbols.h"

namespace sectl::probe {
namespace {

struct EntryPoint {
  const char* name;
  const char* module;
  const char* what_sectl_does;
};

// The loader's order (RegisterPluggableDevicePlugin, tf-module-c-api-facts.md
// §10.2).
constexpr EntryPoint kEntryPoints[] = {
    {"SE_InitPlugin", "StreamExecutor (device, streams, memory)", "loaded and checked"},
    {"TFNPD_InitPlugin", "next pluggable device", "recognised; not checked yet"},
    {"GetPjrtApi", "PJRT C API", "recognised; not checked yet"},
    {"TF_InitKernel", "kernels",
     "run after SE_InitPlugin, as TensorFlow runs it; its registrations are listed and "
     "judged"},
    {"TF_InitGraph", "graph optimizer (Grappler)",
     "run after TF_InitKernel with the structs TensorFlow pre-fills; its registration is "
     "described and judged"},
    {"TF_InitProfiler", "profiler",
     "run after TF_InitGraph with the structs TensorFlow pre-fills; its registration is "
     "described and judged"},
};

// TensorFlow's libraries a plugin may name as needed.
constexpr const char* kTensorFlowLibraries[] = {"libtensorflow_framework.so.2",
                                                "_pywrap_tensorflow_internal.so"};

bool Contains(const std::vector<std::string>& sorted, const std::string& name) {
  return std::binary_search(sorted.begin(), sorted.end(), name);
}

}  // namespace

Expected<PluginModules> ScanPluginModules(const std::string& path) {
  auto exported = loader::ExportedFunctions(path);
  if (!exported) return tl::unexpected(exported.error());
  PluginModules scan;
  for (const EntryPoint& entry : kEntryPoints) {
    const bool present = Contains(*exported, entry.name);
    scan.modules.push_back({.entry_point = entry.name,
                            .module = entry.module,
                            .exported = present,
                            .what_sectl_does = present ? entry.what_sectl_does : ""});
  }
  // The community sample's name for its graph module: every released
  // loader looks up TF_InitGraph, so the optimizer is silently skipped
  // (tf-module-c-api-facts.md §1, item 6).
  if (Contains(*exported, "TF_InitGraphPlugin") && !Contains(*exported, "TF_InitGraph")) {
    scan.findings.push_back(
        {"warning", "module.graph.entry_point_misnamed",
         "the plugin exports TF_InitGraphPlugin, a name no released TensorFlow looks up: its "
         "loader looks up TF_InitGraph, so this graph optimizer is never registered (rename the "
         "function TF_InitGraph)"});
  }
  if (auto dependencies = loader::ReadDynamicDependencies(path)) {
    for (const std::string& needed : dependencies->needed) {
      if (std::find(std::begin(kTensorFlowLibraries), std::end(kTensorFlowLibraries), needed) !=
          std::end(kTensorFlowLibraries)) {
        scan.tensorflow_libraries_needed.push_back(needed);
      }
    }
  }
  return scan;
}

}  // namespace sectl::probe
