#include "probe/probe_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "base/text.h"
#include "base/text_layout.h"

namespace sectl::probe {
namespace {

constexpr int kKeyWidth = 30;
constexpr size_t kValueColumn = 2 + kKeyWidth + 1;  // where a row's value starts
constexpr size_t kFindingTextColumn = 2 + 8;        // after "  warning "

std::string FormatBytes(int64_t bytes) {
  constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  auto value = static_cast<double>(bytes);
  size_t unit = 0;
  while (std::abs(value) >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  if (unit == 0) return fmt::format("{} B", bytes);
  return fmt::format("{:.1f} {}", value, kUnits[unit]);
}

std::string YesNo(bool value) { return value ? "yes" : "no"; }

// What the table shows for a value the plugin did not report, or reported
// as unset (a negative NUMA node, bandwidth or GFLOP/s).
constexpr std::string_view kNotReported = "(not reported)";

template <typename T>
std::string OrNotReported(const std::optional<T>& value) {
  if (!value) return std::string(kNotReported);
  return fmt::format("{}", *value);
}

class Writer {
 public:
  explicit Writer(const TableStyle& style) : style_(style) {}
  void Section(std::string_view title) {
    if (!text_.empty()) text_ += "\n";
    text_ += Bold(title) + "\n";
  }
  // Values may hold plugin text (names, messages): escaped, so a plugin
  // cannot drive the terminal. A long value (a list of attributes, a
  // message) wraps in its column.
  void Row(std::string_view key, std::string_view value) {
    text_ += WrapLine(fmt::format("  {:<{}} {}", key, kKeyWidth, EscapeControlCharacters(value)),
                      style_.width, kValueColumn);
    text_ += '\n';
  }
  // A line of its own; wrapped, it goes on at column `hanging`.
  void Line(std::string_view line, size_t hanging = 2) {
    text_ += WrapLine(fmt::format("  {}", line), style_.width, hanging);
    text_ += '\n';
  }
  std::string Bold(std::string_view text) const {
    return style_.color ? fmt::format("\033[1m{}\033[0m", text) : std::string(text);
  }
  std::string Severity(std::string_view severity) const {
    std::string label = fmt::format("{:<7}", severity);
    if (!style_.color) return label;
    const char* colour = severity == "error" ? "31" : severity == "warning" ? "33" : "36";
    return fmt::format("\033[{}m{}\033[0m", colour, label);
  }
  std::string Take() { return std::move(text_); }

 private:
  const TableStyle& style_;
  std::string text_;
};

void WriteDevice(Writer& out, const DeviceDescription& device) {
  out.Section(fmt::format("Device {}", device.ordinal));
  if (device.error) {
    out.Row("Creation", fmt::format("failed: {}", *device.error));
    return;
  }
  if (device.reported_ordinal != device.ordinal) {
    out.Row("Reported ordinal", fmt::format("{}", device.reported_ordinal));
  }
  out.Row("Hardware name", OrNotReported(device.hardware_name));
  out.Row("Vendor", OrNotReported(device.vendor));
  out.Row("PCI bus id", OrNotReported(device.pci_bus_id));
  // Unset values are null in the report (collect_probe.cc); a report from
  // elsewhere may still hold TensorFlow's negative "unset".
  out.Row("NUMA node", device.numa_node && *device.numa_node >= 0
                           ? fmt::format("{}", *device.numa_node)
                           : std::string(kNotReported));
  const auto& bandwidth = device.memory_bandwidth_bytes_per_second;
  out.Row("Memory bandwidth",
          bandwidth && *bandwidth >= 0
              ? fmt::format("{:.1f} GB/s", static_cast<double>(*bandwidth) / 1e9)
              : std::string(kNotReported));
  out.Row("Peak GFLOP/s", device.gflops && std::isfinite(*device.gflops) && *device.gflops >= 0
                              ? fmt::format("{:.1f}", *device.gflops)
                              : std::string(kNotReported));
  if (device.memory.total_bytes && device.memory.free_bytes) {
    out.Row("Memory", fmt::format("{} free of {}", FormatBytes(*device.memory.free_bytes),
                                  FormatBytes(*device.memory.total_bytes)));
  } else {
    out.Row("Memory", fmt::format("unknown: {}", device.memory.error.value_or("no answer")));
  }
  if (const auto& stats = device.allocator_stats) {
    out.Row("Allocator",
            fmt::format("{} allocations, {} in use, peak {}", stats->num_allocs,
                        FormatBytes(stats->bytes_in_use), FormatBytes(stats->peak_bytes_in_use)));
    out.Row("Allocator limit",
            stats->bytes_limit ? FormatBytes(*stats->bytes_limit) : "(none flagged)");
  } else {
    out.Row("Allocator", "(stats not available)");
  }
  // As TVM's DeviceAPI::GetAttr would answer over this plugin.
  std::string answered;
  std::string unanswered;
  for (const auto& attribute : device.tvm_attributes) {
    if (attribute.integer) {
      answered +=
          fmt::format("{}{}={}", answered.empty() ? "" : ", ", attribute.kind, *attribute.integer);
    } else if (attribute.text) {
      answered +=
          fmt::format("{}{}=\"{}\"", answered.empty() ? "" : ", ", attribute.kind, *attribute.text);
    } else {
      unanswered += fmt::format("{}{}", unanswered.empty() ? "" : ", ", attribute.kind);
    }
  }
  if (!device.tvm_attributes.empty()) {
    out.Row("TVM attributes", answered.empty() ? "(none answered)" : answered);
    out.Row("TVM: none", unanswered);
  }
}

// The kernels per device type; with `verbose`, one line per kernel: op,
// type constraints, and what else was set.
void WriteKernels(Writer& out, const KernelModuleDescription& module, bool verbose) {
  if (!module.exported && module.kernels.empty()) return;
  out.Section("Kernels (TF_InitKernel)");
  const uint64_t total = module.kernels.size() + module.kernels_not_recorded;
  out.Row("Registered", fmt::format("{} kernel{} of {} op{}", total, total == 1 ? "" : "s",
                                    module.ops.size(), module.ops.size() == 1 ? "" : "s"));
  for (const auto& type : module.device_types) {
    const auto count =
        std::count_if(module.kernels.begin(), module.kernels.end(),
                      [&](const auto& kernel) { return kernel.device_type == type; });
    out.Row(fmt::format("For {}", type.empty() ? "(no device type)" : type),
            fmt::format("{} kernel{}", count, count == 1 ? "" : "s"));
  }
  if (!module.ops_defined.empty()) {
    out.Row("Ops defined", fmt::format("{}", fmt::join(module.ops_defined, ", ")));
  }
  for (const auto& call : module.unprovided_calls) out.Row("Called, not provided", call);
  if (module.log_messages > 0) out.Row("Log messages", fmt::format("{}", module.log_messages));
  if (!verbose) {
    if (!module.kernels.empty()) out.Row("", "(sectl probe -v lists each kernel)");
    return;
  }
  for (const auto& kernel : module.kernels) {
    std::vector<std::string> notes;
    if (!kernel.type_constraints.empty()) {
      notes.push_back(fmt::format("{}", fmt::join(kernel.type_constraints, ", ")));
    }
    if (!kernel.host_memory_arguments.empty()) {
      notes.push_back(
          fmt::format("host memory: {}", fmt::join(kernel.host_memory_arguments, ", ")));
    }
    if (kernel.priority) notes.push_back(fmt::format("priority {}", *kernel.priority));
    if (!kernel.label.empty()) notes.push_back(fmt::format("label \"{}\"", kernel.label));
    if (kernel.async) notes.emplace_back("async");
    if (!kernel.has_compute) notes.emplace_back("no compute");
    if (!kernel.registration_error.empty()) notes.push_back("aborts: " + kernel.registration_error);
    out.Row(kernel.op, fmt::format("{}{}{}", kernel.device_type, notes.empty() ? "" : "  ",
                                   fmt::join(notes, "; ")));
  }
}

void WriteGraphOptimizer(Writer& out, const GraphModuleDescription& module) {
  if (!module.exported) return;
  out.Section("Graph optimizer (TF_InitGraph)");
  if (module.init_error) {
    out.Row("Registration", "failed: " + *module.init_error);
    return;
  }
  out.Row("Device type", module.device_type.value_or("(not set)"));
  std::vector<std::string> set;
  std::vector<std::string> unset;
  (module.has_create ? set : unset).emplace_back("create_func");
  (module.has_optimize ? set : unset).emplace_back("optimize_func");
  (module.has_destroy ? set : unset).emplace_back("destroy_func");
  out.Row("Functions", fmt::format("{}{}{}", fmt::join(set, ", "),
                                   unset.empty() ? "" : "; not set: ", fmt::join(unset, ", ")));
  out.Row("Passes turned off", module.passes_turned_off.empty()
                                   ? std::string("none")
                                   : fmt::format("{}", fmt::join(module.passes_turned_off, ", ")));
  if (module.model_pruning_disabled) out.Row("Model pruning", "disabled");
}

void WriteProfiler(Writer& out, const ProfilerModuleDescription& module) {
  if (!module.exported) return;
  out.Section("Profiler (TF_InitProfiler)");
  if (module.init_error) {
    out.Row("Registration", "failed: " + *module.init_error);
    return;
  }
  out.Row("Device type", module.device_type.value_or("(not set)"));
  out.Row("Functions set", fmt::format("{} of 5", module.functions_set.size()));
  for (const auto& missing : module.functions_missing) out.Row("", "not set: " + missing);
}

void WriteCallbacks(Writer& out, const std::vector<Callback>& callbacks) {
  out.Section("Callbacks");
  std::vector<std::string> structs;
  for (const auto& callback : callbacks) {
    if (std::find(structs.begin(), structs.end(), callback.struct_name) == structs.end()) {
      structs.push_back(callback.struct_name);
    }
  }
  for (const auto& name : structs) {
    int present = 0;
    int total = 0;
    std::vector<std::string> absent;
    for (const auto& callback : callbacks) {
      if (callback.struct_name != name) continue;
      ++total;
      if (callback.present) {
        ++present;
      } else {
        absent.push_back(fmt::format("{} ({})", callback.member, callback.requirement));
      }
    }
    out.Row(name, fmt::format("{} of {} set", present, total));
    for (const auto& missing : absent) out.Row("", fmt::format("absent: {}", missing));
  }
}

// "wrong_function" as "wrong function".
std::string ProblemLabel(std::string_view kind) {
  std::string label(kind);
  std::replace(label.begin(), label.end(), '_', ' ');
  return label;
}

// One row per generation: whether it loads the plugin, then every problem.
void WriteCompatibility(Writer& out, const std::vector<Compatibility>& rows) {
  out.Section("TensorFlow compatibility");
  for (const auto& row : rows) {
    const bool harmful =
        std::any_of(row.problems.begin(), row.problems.end(),
                    [](const CompatProblem& problem) { return problem.kind != "refused"; });
    std::string verdict = row.loads ? "loads it" : "refuses it";
    if (harmful) {
      verdict += row.loads ? ", unsafely" : ", after the plugin wrote past its structs";
    }
    out.Row(row.description, fmt::format("{} (--tf-version {})", verdict, row.tf_version));
    for (const auto& problem : row.problems) {
      out.Row("", fmt::format("{}: {}", ProblemLabel(problem.kind), problem.message));
    }
  }
}

}  // namespace

std::string RenderProbeTable(const ProbeReport& report, const TableStyle& style) {
  Writer out(style);
  out.Section("Plugin");
  out.Row("File", report.plugin.path);
  out.Row("Size", fmt::format("{} bytes", report.plugin.size_bytes));
  out.Row("SHA-256", report.plugin.sha256);
  out.Row("Entry point", report.plugin.entry_symbol);
  out.Row("Symbol binding", report.plugin.lazy_binding ? "lazy (--lazy)" : "immediate (RTLD_NOW)");
  out.Row("ABI vintage", report.abi_vintage);
  out.Row("Host emulated", fmt::format("{} (--tf-version {})", report.host_generation_description,
                                       report.host_generation));

  if (!report.modules.empty()) {
    // TensorFlow's loader initialises each module it finds, in this order.
    out.Section("Modules");
    for (const PluginModule& module : report.modules) {
      out.Row(module.entry_point, module.exported
                                      ? fmt::format("{}: {}", module.module, module.what_sectl_does)
                                      : fmt::format("{}: not exported", module.module));
    }
    for (const std::string& library : report.tensorflow_libraries_needed) {
      out.Row("Needs", fmt::format("{} (TensorFlow's; sectl loads its stand-in)", library));
    }
  }

  WriteKernels(out, report.kernel_module, style.verbose);
  WriteGraphOptimizer(out, report.graph_module);
  WriteProfiler(out, report.profiler_module);

  out.Section("Platform");
  out.Row("Name", report.platform.name.empty() ? "(not set)" : report.platform.name);
  out.Row("Type", report.platform.type.empty() ? "(not set)" : report.platform.type);
  out.Row("Unified memory", YesNo(report.platform.supports_unified_memory));
  out.Row("BFC allocator", YesNo(report.platform.use_bfc_allocator));
  out.Row("Force memory growth", YesNo(report.platform.force_memory_growth));
  const auto& offered = report.platform.version_offered;
  const auto& after = report.platform.version_after_init;
  out.Row("Version offered", fmt::format("{}.{}.{}", offered.major, offered.minor, offered.patch));
  out.Row("Version after init", fmt::format("{}.{}.{}", after.major, after.minor, after.patch));
  out.Row("Devices", report.device_count
                         ? fmt::format("{}", *report.device_count)
                         : fmt::format("unknown: {}", report.device_count_error.value_or("")));

  out.Section("Struct sizes reported by the plugin");
  for (const auto& size : report.struct_sizes) out.Row(size.struct_name, size.description);

  for (const auto& device : report.devices) WriteDevice(out, device);
  WriteCallbacks(out, report.callbacks);
  WriteCompatibility(out, report.compat);

  out.Section("Findings");
  if (report.findings.empty()) out.Line("none");
  for (const auto& finding : report.findings) {
    out.Line(fmt::format("{} {}: {}", out.Severity(finding.severity), finding.id,
                         EscapeControlCharacters(finding.message)),
             kFindingTextColumn);
  }
  return out.Take();
}

}  // namespace sectl::probe
