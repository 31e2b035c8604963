// What `sectl probe` finds out about a plugin: plain data, filled inside the
// process that ran the plugin and carried to the parent as JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/host_info.h"

namespace sectl::probe {

struct PluginFile {
  std::string path;  // absolute
  uint64_t size_bytes = 0;
  std::string sha256;
  std::string entry_symbol;
  bool lazy_binding = false;
};

struct StructSize {
  std::string struct_name;
  uint64_t reported_bytes = 0;
  uint64_t current_bytes = 0;  // this host's layout
  std::string verdict;         // "current", "older", "newer", "sizeof", "unknown", ...
  std::string description;
};

struct Version {
  int32_t major = 0;
  int32_t minor = 0;
  int32_t patch = 0;
};

struct PlatformDescription {
  std::string name;
  std::string type;
  bool supports_unified_memory = false;
  bool use_bfc_allocator = false;
  bool force_memory_growth = false;
  Version version_offered;
  Version version_after_init;
};

struct Finding {
  std::string severity;  // "error", "warning", "info"
  std::string id;
  std::string message;
};

struct AllocatorStats {
  int64_t num_allocs = 0;
  int64_t bytes_in_use = 0;
  int64_t peak_bytes_in_use = 0;
  int64_t largest_alloc_size = 0;
  std::optional<int64_t> bytes_limit;  // only when the plugin flags it
  int64_t bytes_reserved = 0;
  int64_t peak_bytes_reserved = 0;
  std::optional<int64_t> bytes_reservable_limit;
  int64_t largest_free_block_bytes = 0;
};

struct DeviceMemoryDescription {
  std::optional<int64_t> total_bytes;
  std::optional<int64_t> free_bytes;
  std::optional<std::string> error;  // why device_memory_usage gave no answer
};

// One TVM DeviceAttrKind as a TVM DeviceAPI over this plugin would answer
// it: an integer, a string, or neither (TVM's None).
struct TvmDeviceAttribute {
  std::string kind;  // "kTotalGlobalMemory"
  std::optional<int64_t> integer;
  std::optional<std::string> text;
};

struct DeviceDescription {
  int ordinal = 0;
  std::optional<std::string> error;  // create_device failed: nothing else is known
  int32_t reported_ordinal = 0;
  std::optional<std::string> hardware_name;
  std::optional<std::string> vendor;
  std::optional<std::string> pci_bus_id;
  // As TensorFlow reads them: nullopt (JSON null) where the plugin has no
  // such function or answered "unset" (a negative NUMA node or bandwidth,
  // GFLOP/s negative or not finite).
  std::optional<int32_t> numa_node;
  std::optional<int64_t> memory_bandwidth_bytes_per_second;
  std::optional<double> gflops;
  DeviceMemoryDescription memory;
  std::optional<AllocatorStats> allocator_stats;
  std::vector<TvmDeviceAttribute> tvm_attributes;  // every DeviceAttrKind, 0-16
};

// One function pointer the plugin may provide.
struct Callback {
  std::string struct_name;
  std::string member;
  bool present = false;
  std::string requirement;  // under the host generation probed as
};

// One thing a TensorFlow generation would make of the plugin.
struct CompatProblem {
  // "refused": that TensorFlow refuses to register the plugin (cleanly);
  // "overrun": the plugin writes past one of its structs;
  // "wrong_function": it reads a member where the plugin put another;
  // "null_call": it calls a member the plugin left null.
  std::string kind;
  std::string message;
};

// Would this TensorFlow generation load the plugin, and use it safely?
struct Compatibility {
  std::string tf_version;   // "2.5", ..., "latest" (--tf-version)
  std::string description;  // "TensorFlow 2.5 to 2.6"
  bool loads = false;
  std::vector<CompatProblem> problems;
};

// One of the entry points TensorFlow's loader looks up, in its order, and
// whether the plugin exports it (probe/plugin_modules.h).
struct PluginModule {
  std::string entry_point;  // "TF_InitKernel"
  std::string module;       // "kernels"
  bool exported = false;
  std::string what_sectl_does;  // for an exported one: "loaded and checked", ...
};

// One kernel the plugin registered (TF_RegisterKernelBuilder), as sectl's
// TensorFlow C API recorded it.
struct KernelDescription {
  std::string op;
  std::string device_type;
  std::vector<std::string> type_constraints;  // "T=float", in call order
  std::vector<std::string> host_memory_arguments;
  std::optional<int> priority;  // set with TF_KernelBuilder_Priority
  std::string label;
  bool has_create = false;
  bool has_compute = false;
  bool has_delete = false;
  bool async = false;
  // Why TensorFlow would have aborted registering it; empty when it went
  // through.
  std::string registration_error;
};

// What the plugin's kernel module (TF_InitKernel) registered.
struct KernelModuleDescription {
  bool exported = false;  // TF_InitKernel is there, and was called
  std::vector<KernelDescription> kernels;
  // Registrations past sectl's caps: counted, not kept.
  uint64_t kernels_not_recorded = 0;
  // The distinct device types and ops the kernels name, sorted.
  std::vector<std::string> device_types;
  std::vector<std::string> ops;
  // Ops the plugin defined itself (TF_RegisterOpDefinition).
  std::vector<std::string> ops_defined;
  // TensorFlow C API functions the plugin called while registering that
  // sectl does not provide: "TF_GetInput (2 calls)".
  std::vector<std::string> unprovided_calls;
  uint64_t log_messages = 0;
};

// What the plugin's graph-optimizer module (TF_InitGraph) registered.
struct GraphModuleDescription {
  bool exported = false;  // TF_InitGraph is there, and was called
  std::optional<std::string> init_error;
  std::optional<std::string> device_type;  // null: left NULL
  bool has_create = false;
  bool has_optimize = false;
  bool has_destroy = false;
  // struct_size of TP_OptimizerRegistrationParams, TP_Optimizer and
  // TP_OptimizerConfigs after the call (TensorFlow pre-fills 56, 40, 92).
  std::vector<uint64_t> struct_sizes;
  // The Grappler passes the plugin turned off (TF_TriState_Off) for graphs
  // on its device; every other pass stays on.
  std::vector<std::string> passes_turned_off;
  bool model_pruning_disabled = false;
};

// What the plugin's profiler module (TF_InitProfiler) registered.
struct ProfilerModuleDescription {
  bool exported = false;  // TF_InitProfiler is there, and was called
  std::optional<std::string> init_error;
  std::optional<std::string> device_type;  // null: left NULL
  // struct_size of TF_ProfilerRegistrationParams, TP_Profiler and
  // TP_ProfilerFns after the call (TensorFlow pre-fills 64, 24, 40).
  std::vector<uint64_t> struct_sizes;
  // "TP_ProfilerFns.start", ...: the five functions TensorFlow requires.
  std::vector<std::string> functions_set;
  std::vector<std::string> functions_missing;
};

struct ProbeReport {
  std::string tool_version;
  PluginFile plugin;
  std::string host_generation;  // "latest", "2.7", ...
  std::string host_generation_description;
  std::string abi_vintage;  // the header generation the struct sizes point to
  std::vector<PluginModule> modules;
  // TensorFlow's libraries the plugin names as needed, met by sectl's
  // stand-ins (loader/tensorflow_stand_ins.h).
  std::vector<std::string> tensorflow_libraries_needed;
  KernelModuleDescription kernel_module;
  GraphModuleDescription graph_module;
  ProfilerModuleDescription profiler_module;
  std::vector<StructSize> struct_sizes;
  PlatformDescription platform;
  std::optional<int> device_count;
  std::optional<std::string> device_count_error;
  std::vector<DeviceDescription> devices;
  std::vector<Callback> callbacks;
  std::vector<Compatibility> compat;  // one per TensorFlow generation, oldest first
  std::vector<Finding> findings;
  HostInfo host;
  std::string plugin_output;  // what the plugin printed while probed (captured)

  bool HasErrorFindings() const;
};

}  // namespace sectl::probe
