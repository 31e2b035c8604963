#include "probe/collect_probe.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>

#include "abi/struct_layouts.h"
#include "base/file_digest.h"
#include "host/device.h"
#include "host/platform.h"
#include "loader/plugin_library.h"

namespace sectl::probe {
namespace {

// More ordinals than this is a plugin bug, not a machine; don't loop for ever.
constexpr int kMaxProbedDevices = 64;

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
  description.numa_node = created.NumaNode();
  description.memory_bandwidth_bytes_per_second = created.MemoryBandwidth();
  description.gflops = created.Gflops();
  if (auto usage = created.QueryMemoryUsage()) {
    description.memory.total_bytes = usage->total_bytes;
    description.memory.free_bytes = usage->free_bytes;
  } else {
    description.memory.error = usage.error().message();
    findings.push_back({"error", fmt::format("device.{}.memory_usage", ordinal),
                        fmt::format("device {}: {}", ordinal, usage.error().message())});
  }
  if (auto stats = created.QueryAllocatorStats(); stats && stats->has_value()) {
    description.allocator_stats = ToAllocatorStats(**stats);
  }
  for (const auto& finding : created.findings().all()) {
    findings.push_back(ToFinding(finding));
  }
  return description;
}

// ---- The compatibility matrix ---------------------------------------------
//
// The same judgement as the compat.* conformance checks (checks/
// compat_checks.cc): the plugin is registered with the struct sizes each
// generation pre-fills, and what it wrote is read by that generation's own
// layout, whatever struct_size the plugin reports.

// Builds one generation's row.
class CompatibilityJudge {
 public:
  explicit CompatibilityJudge(const abi::HostGeneration& generation) : generation_(generation) {
    row_.tf_version = std::string(generation.id);
    row_.description = std::string(generation.description);
  }

  Compatibility Judge(Expected<std::unique_ptr<host::Platform>>& registered) {
    if (!registered) {
      Add("refused", registered.error().message());
    } else {
      unified_ = (*registered)->supports_unified_memory();
      JudgeFindings(**registered);
      JudgeFunctionTables(**registered);
      JudgeStreamExecutor(**registered);
    }
    row_.loads =
        std::none_of(row_.problems.begin(), row_.problems.end(),
                     [](const CompatProblem& problem) { return problem.kind == "refused"; });
    // A plugin the host refuses is never called: only its overruns matter.
    if (!row_.loads) {
      std::erase_if(row_.problems, [](const CompatProblem& problem) {
        return problem.kind == "wrong_function" || problem.kind == "null_call";
      });
    }
    return row_;
  }

 private:
  // A function pointer the plugin wrote, and which member it meant it as.
  struct WrittenMember {
    std::string_view name;
    const void* value = nullptr;
  };

  void Add(std::string_view kind, std::string message) {
    row_.problems.push_back({std::string(kind), std::move(message)});
  }

  static const host::StructReport* FindReport(const host::Platform& platform,
                                              abi::StructKind kind) {
    for (const auto& report : platform.struct_reports()) {
      if (report.kind == kind) return &report;
    }
    return nullptr;
  }

  void JudgeFindings(const host::Platform& platform) {
    for (const auto& finding : platform.findings().all()) {
      if (finding.severity != host::Severity::kError) continue;
      const std::string& id = finding.id;
      if (id.starts_with("required.")) continue;  // judged below, by this generation's layout
      if (id == "platform.create_timer_fns.failed" && !generation_.calls_create_timer_fns) {
        continue;
      }
      if (id.starts_with("struct_size.overrun.")) {
        Add("overrun", finding.message);
      } else if (id.starts_with("struct_size.incompatible.")) {
        Add("wrong_function", finding.message);
      } else {
        Add("refused", finding.message);
      }
    }
  }

  void JudgeRequirement(abi::PluginFunction function, const std::string& elsewhere) {
    switch (abi::RequirementOf(function, generation_, unified_)) {
      case abi::Requirement::kValidated:
        Add("refused", abi::TensorFlowMissingMemberMessage(function) + elsewhere);
        break;
      case abi::Requirement::kCalledUnconditionally:
        Add("null_call",
            fmt::format("{} calls {} without checking for null, and this plugin "
                        "leaves it null{}: the process crashes when it is called",
                        generation_.description, abi::QualifiedName(function), elsewhere));
        break;
      case abi::Requirement::kOptional:
      case abi::Requirement::kUnused:
        break;
    }
  }

  // The tables whose layout never changed: read as the plugin wrote them.
  void JudgeFunctionTables(const host::Platform& platform) {
    const bool has_device_fns = FindReport(platform, abi::StructKind::kDeviceFns) != nullptr;
    const bool has_timer_fns = FindReport(platform, abi::StructKind::kTimerFns) != nullptr &&
                               generation_.calls_create_timer_fns;
    for (const auto& info : abi::AllPluginFunctions()) {
      if (info.function == abi::PluginFunction::kInitPlugin || platform.Provides(info.function)) {
        continue;
      }
      if (info.struct_name == "SP_StreamExecutor" ||
          (info.struct_name == "SP_DeviceFns" && !has_device_fns) ||
          (info.struct_name == "SP_TimerFns" && !has_timer_fns)) {
        continue;
      }
      JudgeRequirement(info.function, "");
    }
  }

  // SP_StreamExecutor, read by this generation's own layout.
  void JudgeStreamExecutor(const host::Platform& platform) {
    const host::StructReport* report = FindReport(platform, abi::StructKind::kStreamExecutor);
    if (report == nullptr) return;  // create_stream_executor failed: already a refusal
    const abi::StructLayout* host_layout = &abi::CurrentLayout(abi::StructKind::kStreamExecutor);
    for (const auto& layout : abi::KnownLayouts(abi::StructKind::kStreamExecutor)) {
      if (layout.struct_size == generation_.stream_executor_struct_size) host_layout = &layout;
    }
    const size_t plugin_size = report->reading.reported_size;
    const auto written = AsWritten(platform, *report->reading.layout);
    for (const auto& member : host_layout->members) {
      const abi::PluginFunction function = FunctionNamed(member.name);
      if (function == abi::PluginFunction::kCount) continue;  // struct_size, ext
      const auto found = written.find(member.offset);
      const void* value = found != written.end() ? found->second.value : nullptr;
      if (value != nullptr && found->second.name != member.name) {
        Add("wrong_function",
            fmt::format("{} reads SP_StreamExecutor.{} at offset {}, where this plugin's {}-byte "
                        "layout put {}: it would call {} in place of {}",
                        generation_.description, member.name, member.offset, plugin_size,
                        found->second.name, found->second.name, member.name));
      } else if (value == nullptr) {
        JudgeRequirement(function, WhereItWent(written, member.name, *host_layout, plugin_size));
      }
    }
  }

  static abi::PluginFunction FunctionNamed(std::string_view member) {
    for (const auto& info : abi::FunctionsOf("SP_StreamExecutor")) {
      if (info.member == member) return info.function;
    }
    return abi::PluginFunction::kCount;
  }

  // Each function pointer at the byte offset the plugin's reported layout
  // gives its member.
  static std::map<size_t, WrittenMember> AsWritten(const host::Platform& platform,
                                                   const abi::StructLayout& plugin_layout) {
    const auto& current = abi::CurrentLayout(abi::StructKind::kStreamExecutor);
    const auto* decoded = reinterpret_cast<const unsigned char*>(&platform.stream_executor());
    std::map<size_t, WrittenMember> written;
    for (const auto& member : plugin_layout.members) {
      for (const auto& same : current.members) {
        if (same.name != member.name || member.name == "struct_size" || member.name == "ext") {
          continue;
        }
        const void* value = nullptr;
        std::memcpy(&value, decoded + same.offset, sizeof(value));
        written[member.offset] = {member.name, value};
      }
    }
    return written;
  }

  // " (this plugin's 264-byte layout put it at offset 256, where ... reads mem_zero)".
  std::string WhereItWent(const std::map<size_t, WrittenMember>& written, std::string_view member,
                          const abi::StructLayout& host_layout, size_t plugin_size) const {
    for (const auto& [offset, entry] : written) {
      if (entry.name != member || entry.value == nullptr) continue;
      std::string_view host_member = "nothing";
      for (const auto& candidate : host_layout.members) {
        if (candidate.offset == offset) host_member = candidate.name;
      }
      return fmt::format(" (this plugin's {}-byte layout put it at offset {}, where {} reads {})",
                         plugin_size, offset, generation_.description, host_member);
    }
    return "";
  }

  const abi::HostGeneration& generation_;
  bool unified_ = false;
  Compatibility row_;
};

// One registration per generation, each torn down before the next, after
// the probe's own registration is gone.
std::vector<Compatibility> CollectCompatibility(const loader::PluginLibrary& library,
                                                host::Journal& journal) {
  std::vector<Compatibility> rows;
  for (const auto& generation : abi::AllHostGenerations()) {
    auto registered = host::Platform::Create(library, journal, {.generation = generation});
    rows.push_back(CompatibilityJudge(generation).Judge(registered));
  }
  return rows;
}

}  // namespace

Expected<ProbeReport> CollectProbe(const ProbeOptions& options, host::Journal& journal) {
  auto library = loader::PluginLibrary::Open(options.plugin_path, {.lazy = options.lazy});
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
  if (auto digest = Sha256OfFile(options.plugin_path)) report.plugin.sha256 = *digest;

  auto platform = host::Platform::Create(*library, journal, {.generation = options.generation});
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

  std::vector<Finding> device_findings;
  if (auto count = registered.DeviceCount()) {
    report.device_count = *count;
    if (*count > kMaxProbedDevices) {
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
  platform->reset();  // teardown in TensorFlow's order, inside the probe
  report.compat = CollectCompatibility(*library, journal);
  return report;
}

}  // namespace sectl::probe
