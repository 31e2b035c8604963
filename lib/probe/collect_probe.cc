#include "probe/collect_probe.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>

#include "abi/struct_layouts.h"
#include "host/compatibility.h"
#include "host/device.h"
#include "host/graph_module.h"
#include "host/kernel_module.h"
#include "host/memory_usage_judgement.h"
#include "host/platform.h"
#include "host/profiler_module.h"
#include "loader/plugin_file_pin.h"
#include "loader/plugin_library.h"
#include "probe/graph_module_description.h"
#include "probe/kernel_module_description.h"
#include "probe/plugin_modules.h"
#include "probe/profiler_module_description.h"
#include "remote/plugin_server.h"
#include "tvm/device_api.h"

namespace sectl::probe {
namespace {

// More ordinals than this is a plugin bug, not a machine; don't loop for ever.
constexpr int kMaxProbedDevices = 64;

// The plugin server's arena: the host-owned structs of every registration
// and device the probe makes, with room to spare.
constexpr size_t kArenaBytes = size_t{4} << 20;

std::string VerdictName(abi::SizeVerdict verdict) {
  switch (verdict) {
    case abi::SizeVerdict::kCurrent:
      return "current";
    case abi::SizeVerdict::kOlderKnown:
      return "older";
    case abi::SizeVerdict::kNewer:
      return "newer";
    case abi::SizeVerdict::kSizeofInsteadOfEnd:
      return "sizeof";
    case abi::SizeVerdict::kUnknown:
      return "unknown";
    case abi::SizeVerdict::kIncompatible:
      return "incompatible";
    case abi::SizeVerdict::kZero:
      return "zero";
  }
  return "unknown";
}

Finding ToFinding(const host::Finding& finding) {
  return {std::string(host::SeverityName(finding.severity)), finding.id, finding.message};
}

AllocatorStats ToAllocatorStats(const SP_AllocatorStats& stats) {
  AllocatorStats result;
  result.num_allocs = stats.num_allocs;
  result.bytes_in_use = stats.bytes_in_use;
  result.peak_bytes_in_use = stats.peak_bytes_in_use;
  result.largest_alloc_size = stats.largest_alloc_size;
  if (stats.has_bytes_limit != 0) result.bytes_limit = stats.bytes_limit;
  result.bytes_reserved = stats.bytes_reserved;
  result.peak_bytes_reserved = stats.peak_bytes_reserved;
  if (stats.has_bytes_reservable_limit != 0) {
    result.bytes_reservable_limit = stats.bytes_reservable_limit;
  }
  result.largest_free_block_bytes = stats.largest_free_block_bytes;
  return result;
}

// A device function's answer as TensorFlow reads it: the NUMA node and the
// memory bandwidth only when >= 0 (CStreamExecutor::CreateDeviceDescription),
// GFLOP/s (which TensorFlow never reads) only when finite and >= 0. Anything
// else means "unset", as an absent function does.
template <typename Number>
std::optional<Number> UnlessUnset(std::optional<Number> answer) {
  if (!answer || !std::isfinite(static_cast<double>(*answer)) || *answer < 0) return std::nullopt;
  return answer;
}

std::optional<std::string> NonEmpty(const std::string& text) {
  if (text.empty()) return std::nullopt;
  return text;
}

DeviceDescription DescribeDevice(host::Platform& platform, int ordinal,
                                 std::vector<Finding>& findings) {
  DeviceDescription description;
  description.ordinal = ordinal;
  auto device = platform.CreateDevice(ordinal);
  if (!device) {
    description.error = device.error().message();
    findings.push_back({"error", fmt::format("device.{}.create_failed", ordinal),
                        fmt::format("device {}: {}", ordinal, device.error().message())});
    return description;
  }
  const host::Device& created = **device;
  description.reported_ordinal = created.reported_ordinal();
  description.hardware_name = NonEmpty(created.hardware_name());
  description.vendor = NonEmpty(created.vendor());
  description.pci_bus_id = NonEmpty(created.pci_bus_id());
  description.numa_node = UnlessUnset(created.NumaNode());
  description.memory_bandwidth_bytes_per_second = UnlessUnset(created.MemoryBandwidth());
  description.gflops = UnlessUnset(created.Gflops());
  if (auto usage = created.QueryMemoryUsage()) {
    description.memory.total_bytes = usage->total_bytes;
    description.memory.free_bytes = usage->free_bytes;
    // The same judgement as conform's memory.usage (required): an error.
    for (const std::string& problem : host::MemoryUsageProblems(*usage)) {
      findings.push_back({"error", fmt::format("device.{}.memory_usage", ordinal),
                          fmt::format("device {}: {}", ordinal, problem)});
    }
  } else {
    description.memory.error = usage.error().message();
    findings.push_back({"error", fmt::format("device.{}.memory_usage", ordinal),
                        fmt::format("device {}: {}", ordinal, usage.error().message())});
  }
  if (auto stats = created.QueryAllocatorStats(); stats && stats->has_value()) {
    description.allocator_stats = ToAllocatorStats(**stats);
  }
  for (int kind = 0; kind < tvm::kDeviceAttrKindCount; ++kind) {
    const auto attribute = static_cast<tvm::DeviceAttrKind>(kind);
    const tvm::AttrValue value = tvm::DeviceAttribute(created, attribute);
    TvmDeviceAttribute described{std::string(tvm::DeviceAttrName(attribute)), {}, {}};
    if (const auto* number = std::get_if<int64_t>(&value)) described.integer = *number;
    if (const auto* text = std::get_if<std::string>(&value)) described.text = *text;
    description.tvm_attributes.push_back(std::move(described));
  }
  for (const auto& finding : created.findings().all()) {
    findings.push_back(ToFinding(finding));
  }
  return description;
}

// ---- The compatibility matrix ---------------------------------------------

// One registration per generation, each torn down before the next, after
// the probe's own registration is gone.
std::vector<Compatibility> CollectCompatibility(const loader::PluginLibrary& library,
                                                host::Journal& journal,
                                                remote::PluginServer* server) {
  std::vector<Compatibility> rows;
  for (const auto& generation : abi::AllHostGenerations()) {
    auto registered =
        host::Platform::Create(library, journal, {.generation = generation, .server = server});
    const host::Compatibility verdict = host::JudgeCompatibility(generation, registered);
    Compatibility row{
        std::string(generation.id), std::string(generation.description), verdict.loads, {}};
    for (const auto& problem : verdict.problems) {
      row.problems.push_back({problem.kind, problem.message});
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// Runs the plugin's other modules after SE_InitPlugin, in TensorFlow's
// order (kernels, graph optimizer, profiler), and describes them. A crash or
// hang in one ends the probe naming its entry point, as it would end
// TensorFlow's process while it loads the plugin. Under --lazy the kernel
// module is not run (host::kKernelModuleNotRunLazily).
Expected<void> DescribeModules(const loader::PluginLibrary& library, const host::Platform& platform,
                               bool lazy, ProbeReport& report, std::vector<Finding>& findings) {
  const host::Dispatcher& dispatcher = platform.dispatcher();
  if (lazy) {
    auto address = library.ModuleEntryPoint(abi::PluginFunction::kInitKernel);
    if (address && *address != 0) {
      findings.push_back({"info", "kernels.not_run", std::string(host::kKernelModuleNotRunLazily)});
    }
  } else {
    auto kernels = host::RunKernelModule(library, dispatcher);
    if (!kernels) return tl::unexpected(kernels.error());
    report.kernel_module =
        DescribeKernelModule(kernels->present, kernels->recording, platform.type(), findings);
  }
  auto graph = host::RunGraphModule(library, dispatcher);
  if (!graph) return tl::unexpected(graph.error());
  report.graph_module = DescribeGraphModule(*graph, platform.type(), findings);
  auto profiler = host::RunProfilerModule(library, dispatcher);
  if (!profiler) return tl::unexpected(profiler.error());
  report.profiler_module = DescribeProfilerModule(*profiler, platform.type(), findings);
  return {};
}

}  // namespace

Expected<ProbeReport> CollectProbe(const ProbeOptions& options, host::Journal& journal) {
  // Hashed before it is loaded; Open verifies it loads the file hashed.
  const auto pinned = loader::PinPluginFile(options.plugin_path);
  std::unique_ptr<remote::PluginServer> server;
  if (!options.plugin_server.empty()) {
    // In the probe's own child process: when the plugin kills its server,
    // the probe's process dies the same way, as it did with the plugin in it.
    auto started = remote::PluginServer::Start(options.plugin_server, kArenaBytes,
                                               remote::WhenTheServerEnds::kEndTheSameWay);
    if (!started) return tl::unexpected(started.error());
    server = std::move(*started);
  }
  auto library = server ? loader::PluginLibrary::OpenInServer(options.plugin_path,
                                                              {.lazy = options.lazy}, *server)
                        : loader::PluginLibrary::Open(options.plugin_path, {.lazy = options.lazy});
  if (!library) return tl::unexpected(library.error());

  ProbeReport report;
  report.tool_version = options.tool_version;
  report.host = DescribeHost();
  report.host_generation = std::string(options.generation.id);
  report.host_generation_description = std::string(options.generation.description);
  std::error_code ignored;
  report.plugin.path = std::filesystem::absolute(options.plugin_path, ignored).string();
  report.plugin.size_bytes = library->identity().file_size;
  report.plugin.entry_symbol = "SE_InitPlugin";
  report.plugin.lazy_binding = options.lazy;
  if (pinned) report.plugin.sha256 = pinned->sha256();
  // The file loaded already, so it reads as a shared library.
  if (auto scan = ScanPluginModules(report.plugin.path)) {
    report.modules = std::move(scan->modules);
    report.tensorflow_libraries_needed = std::move(scan->tensorflow_libraries_needed);
    report.findings.insert(report.findings.end(), scan->findings.begin(), scan->findings.end());
  }

  auto platform = host::Platform::Create(
      *library, journal, {.generation = options.generation, .server = server.get()});
  if (!platform) return tl::unexpected(platform.error().WithContext(options.plugin_path));
  host::Platform& registered = **platform;

  report.platform.name = registered.name();
  report.platform.type = registered.type();
  report.platform.supports_unified_memory = registered.supports_unified_memory();
  report.platform.use_bfc_allocator = registered.use_bfc_allocator();
  report.platform.force_memory_growth = registered.force_memory_growth();
  const auto& offered = registered.version_offered();
  const auto& after = registered.version_after_init();
  report.platform.version_offered = {offered.major, offered.minor, offered.patch};
  report.platform.version_after_init = {after.major, after.minor, after.patch};

  std::vector<Finding> module_findings;
  if (auto described = DescribeModules(*library, registered, options.lazy, report, module_findings);
      !described) {
    return tl::unexpected(described.error().WithContext(options.plugin_path));
  }

  std::vector<Finding> device_findings;
  if (auto count = registered.DeviceCount()) {
    report.device_count = *count;
    if (*count == 0) {
      // A machine without the device: a usable report, with the reason in it.
      device_findings.push_back({"warning", "platform.device_count.none",
                                 "get_device_count reported 0 devices: TensorFlow registers the "
                                 "platform but creates no device, so no device was probed"});
    } else if (*count < 0) {
      device_findings.push_back(
          {"error", "platform.device_count.negative",
           fmt::format("get_device_count reported {} devices: a count is never negative, and "
                       "TensorFlow would create no device",
                       *count)});
    } else if (*count > kMaxProbedDevices) {
      device_findings.push_back(
          {"warning", "platform.device_count.implausible",
           fmt::format("get_device_count reported {} devices; only the first {} were probed",
                       *count, kMaxProbedDevices)});
    }
    for (int ordinal = 0; ordinal < std::min(*count, kMaxProbedDevices); ++ordinal) {
      report.devices.push_back(DescribeDevice(registered, ordinal, device_findings));
    }
  } else {
    report.device_count_error = count.error().message();
    device_findings.push_back({"error", "platform.device_count.failed", count.error().message()});
  }

  const bool unified = registered.supports_unified_memory();
  for (const auto& info : abi::AllPluginFunctions()) {
    if (info.function == abi::PluginFunction::kInitPlugin) continue;
    report.callbacks.push_back({std::string(info.struct_name), std::string(info.member),
                                registered.Provides(info.function),
                                std::string(abi::RequirementName(abi::RequirementOf(
                                    info.function, options.generation, unified)))});
  }
  for (const auto& struct_report : registered.struct_reports()) {
    const auto& reading = struct_report.reading;
    const bool already_listed = std::any_of(
        report.struct_sizes.begin(), report.struct_sizes.end(),
        [&](const StructSize& size) { return size.struct_name == reading.layout->struct_name; });
    if (already_listed) continue;
    report.struct_sizes.push_back({std::string(reading.layout->struct_name), reading.reported_size,
                                   abi::CurrentLayout(struct_report.kind).struct_size,
                                   VerdictName(reading.verdict), reading.Describe()});
  }
  report.abi_vintage = registered.AbiVintage();

  for (const auto& finding : registered.findings().all()) {
    report.findings.push_back(ToFinding(finding));
  }
  report.findings.insert(report.findings.end(), device_findings.begin(), device_findings.end());
  report.findings.insert(report.findings.end(), module_findings.begin(), module_findings.end());
  platform->reset();  // teardown in TensorFlow's order, inside the probe
  report.compat = CollectCompatibility(*library, journal, server.get());
  return report;
}

}  // namespace sectl::probe
