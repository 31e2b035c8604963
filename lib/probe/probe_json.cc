#include "probe/probe_json.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>

#include "base/json_text.h"

// std::optional as JSON null-or-value.
namespace nlohmann {
template <typename T>
struct adl_serializer<std::optional<T>> {
  static void to_json(json& j, const std::optional<T>& value) {
    if (value) {
      j = *value;
    } else {
      j = nullptr;
    }
  }
  static void from_json(const json& j, std::optional<T>& value) {
    if (j.is_null()) {
      value.reset();
    } else {
      value = j.get<T>();
    }
  }
};
}  // namespace nlohmann

namespace sectl {
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(HostInfo, os, kernel, machine, cpu_model,
                                                logical_cpus, memory_bytes)
}  // namespace sectl

namespace sectl::probe {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PluginFile, path, size_bytes, sha256, entry_symbol,
                                                lazy_binding)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PluginModule, entry_point, module, exported,
                                                what_sectl_does)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(KernelDescription, op, device_type,
                                                type_constraints, host_memory_arguments, priority,
                                                label, has_create, has_compute, has_delete, async,
                                                registration_error)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(KernelModuleDescription, exported, kernels,
                                                kernels_not_recorded, device_types, ops,
                                                ops_defined, unprovided_calls, log_messages)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(GraphModuleDescription, exported, init_error,
                                                device_type, has_create, has_optimize, has_destroy,
                                                struct_sizes, passes_turned_off,
                                                model_pruning_disabled)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ProfilerModuleDescription, exported, init_error,
                                                device_type, struct_sizes, functions_set,
                                                functions_missing)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(StructSize, struct_name, reported_bytes,
                                                current_bytes, verdict, description)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Version, major, minor, patch)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PlatformDescription, name, type,
                                                supports_unified_memory, use_bfc_allocator,
                                                force_memory_growth, version_offered,
                                                version_after_init)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Finding, severity, id, message)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(AllocatorStats, num_allocs, bytes_in_use,
                                                peak_bytes_in_use, largest_alloc_size, bytes_limit,
                                                bytes_reserved, peak_bytes_reserved,
                                                bytes_reservable_limit, largest_free_block_bytes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DeviceMemoryDescription, total_bytes, free_bytes,
                                                error)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TvmDeviceAttribute, kind, integer, text)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DeviceDescription, ordinal, error, reported_ordinal,
                                                hardware_name, vendor, pci_bus_id, numa_node,
                                                memory_bandwidth_bytes_per_second, gflops, memory,
                                                allocator_stats, tvm_attributes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Callback, struct_name, member, present, requirement)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CompatProblem, kind, message)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Compatibility, tf_version, description, loads,
                                                problems)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ProbeReport, tool_version, plugin, host_generation,
                                                host_generation_description, abi_vintage, modules,
                                                tensorflow_libraries_needed, kernel_module,
                                                graph_module, profiler_module, struct_sizes,
                                                platform, device_count, device_count_error, devices,
                                                callbacks, compat, findings, host, plugin_output)

std::string ProbeReportToJson(const ProbeReport& report) {
  nlohmann::ordered_json document;
  document["schema_version"] = kProbeSchemaVersion;
  document["kind"] = "sectl.probe";
  // Keys in the order of the struct, after the header fields.
  const nlohmann::json body = report;
  for (const char* key : {"tool_version",
                          "plugin",
                          "host_generation",
                          "host_generation_description",
                          "abi_vintage",
                          "modules",
                          "tensorflow_libraries_needed",
                          "kernel_module",
                          "graph_module",
                          "profiler_module",
                          "platform",
                          "device_count",
                          "device_count_error",
                          "devices",
                          "struct_sizes",
                          "callbacks",
                          "compat",
                          "findings",
                          "plugin_output",
                          "host"}) {
    document[key] = body.at(key);
  }
  return EncodeJson(document, 2) + "\n";
}

Expected<ProbeReport> ProbeReportFromJson(const std::string& text) {
  try {
    const Expected<nlohmann::json> parsed = ParseUntrustedJson(text);
    if (!parsed) {
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("malformed probe report: {}", parsed.error().message()));
    }
    const nlohmann::json& document = *parsed;
    if (document.value("schema_version", 0) != kProbeSchemaVersion) {
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("probe report has schema_version {}, expected {}",
                              document.value("schema_version", 0), kProbeSchemaVersion));
    }
    return document.get<ProbeReport>();
  } catch (const nlohmann::json::exception& error) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("malformed probe report: {}", error.what()));
  }
}

}  // namespace sectl::probe
