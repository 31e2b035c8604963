// The embedded host runtime's platform: what TensorFlow does when it
// registers a PluggableDevice, done by sectl.
//
// Platform::Create fills SE_PlatformRegistrationParams with version 0.0.1 and
// pre-filled struct sizes, calls SE_InitPlugin, validates everything
// TensorFlow validates (and more, as findings), then calls
// create_device_fns, create_stream_executor and create_timer_fns in
// TensorFlow's order. The destructor tears down in TensorFlow's order.
// Every struct the plugin fills is read by the size the plugin reported, so
// an older plugin's layout is not misread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "abi/host_generations.h"
#include "abi/struct_layouts.h"
#include "base/error.h"
#include "host/dispatcher.h"
#include "host/findings.h"
#include "host/guarded_struct.h"
#include "host/table_access.h"
#include "loader/plugin_library.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

namespace sectl::host {

// TensorFlow's rule for device names and types (device_utils::
// ValidateDeviceType): [A-Z][A-Z_]*, the whole string.
bool IsValidDeviceTypeName(const std::string& name);

class Device;

struct VersionFields {
  int32_t major = 0;
  int32_t minor = 0;
  int32_t patch = 0;
};

// How a host hands one kind of struct to the plugin: the struct_size it
// pre-fills, and how many bytes of storage it really has (canary bytes
// follow them, so a plugin writing past them is seen).
struct HostStructSize {
  size_t prefilled;
  size_t storage;
};

struct PlatformOptions {
  // Which TensorFlow host sectl behaves as: the struct sizes it pre-fills
  // and the members it requires.
  abi::HostGeneration generation = abi::LatestHostGeneration();
  // The version written into SE_PlatformRegistrationParams.
  VersionFields offered_version{SE_MAJOR, SE_MINOR, SE_PATCH};
  // Emulating hosts that never shipped, older or newer: per struct, sizes
  // other than the generation's. Empty for TensorFlow's own behaviour.
  std::map<abi::StructKind, HostStructSize> struct_sizes;
  // The plugin server that loaded the plugin (docs/plugin-server.md): every
  // call goes there. Null: the plugin is in this process.
  remote::PluginServer* server = nullptr;
};

// The size a plugin wrote into one of its structs, and how it was read.
struct StructReport {
  abi::StructKind kind;
  abi::StructSizeReading reading;
};

class Platform {
 public:
  // Registers the plugin. Fails only when SE_InitPlugin itself fails; what
  // TensorFlow would reject afterwards becomes an error finding, so a probe
  // can still describe the plugin.
  static Expected<std::unique_ptr<Platform>> Create(const loader::PluginLibrary& library,
                                                    Journal& journal,
                                                    const PlatformOptions& options = {});

  // Every Device must be destroyed before its Platform (TensorFlow's order).
  ~Platform();
  Platform(const Platform&) = delete;
  Platform& operator=(const Platform&) = delete;

  const std::string& name() const { return name_; }
  const std::string& type() const { return type_; }
  bool supports_unified_memory() const { return platform_.supports_unified_memory != 0; }
  bool use_bfc_allocator() const { return platform_.use_bfc_allocator != 0; }
  bool force_memory_growth() const { return platform_.force_memory_growth != 0; }
  const VersionFields& version_offered() const { return version_offered_; }
  const VersionFields& version_after_init() const { return version_after_init_; }
  const abi::HostGeneration& generation() const { return options_.generation; }
  const std::vector<StructReport>& struct_reports() const { return struct_reports_; }
  const FindingList& findings() const { return findings_; }
  // The header generation the plugin was built against, inferred from the
  // two structs whose sizes changed over time: "TensorFlow 2.7-2.9 header (...)".
  std::string AbiVintage() const;

  // Whether the plugin set `function` (as read by its reported layout).
  bool Provides(abi::PluginFunction function) const;

  // get_device_count, called afresh every time as TensorFlow does.
  Expected<int> DeviceCount() const;

  // create_device for `ordinal`, as TensorFlow's GetUncachedExecutor does.
  Expected<std::unique_ptr<Device>> CreateDevice(int ordinal);

  // Calls of `function` from now on fail with `reason`, and the plugin is
  // not called (Dispatcher::Refuse).
  void Refuse(abi::PluginFunction function, std::string reason) {
    dispatcher_.Refuse(function, std::move(reason));
  }

  // For the runtime's other objects.
  const Dispatcher& dispatcher() const { return dispatcher_; }
  const SP_Platform* plugin_platform() const { return &platform_; }
  // The raw tables, for those TableAccess lets in (see host/table_access.h).
  const SP_PlatformFns& platform_fns(TableAccess /*key*/) const { return platform_fns_; }
  const SP_StreamExecutor& stream_executor(TableAccess /*key*/) const { return stream_executor_; }
  const SP_DeviceFns& device_fns(TableAccess /*key*/) const { return device_fns_; }
  const SP_TimerFns& timer_fns(TableAccess /*key*/) const { return timer_fns_; }
  // The stream executor table as the plugin filled it, as bytes to read
  // (where each function pointer landed), not to call through.
  std::span<const std::byte> stream_executor_bytes() const {
    return std::as_bytes(std::span(&stream_executor_, 1));
  }

  // Records what a struct's reported size says, with a finding when it is
  // not the current layout. Returns the reading.
  abi::StructSizeReading NoteStructSize(abi::StructKind kind, size_t reported_size);
  // How this host hands a struct of `kind` to the plugin.
  HostStructSize HostSizeOf(abi::StructKind kind) const;
  // Records a finding when the plugin wrote past the host's struct: how
  // many bytes, where, and how far past the end the write reached.
  template <typename T>
  void NoteOverrun(std::string_view struct_name, const GuardedStruct<T>& filled) {
    NoteOverrun(struct_name, filled.host_bytes(), filled.WrittenPastEnd());
  }
  void NoteOverrun(std::string_view struct_name, size_t host_bytes, WritePastEnd written);
  FindingList& findings() { return findings_; }

 private:
  struct Passkey {};

 public:
  Platform(Passkey, Journal& journal, PlatformOptions options);

  // A host-owned struct of `kind`, as this host hands it over.
  // (Returned by guaranteed copy elision: GuardedStruct never moves.)
  template <typename T>
  GuardedStruct<T> HandOver(abi::StructKind kind) const {
    const HostStructSize size = HostSizeOf(kind);
    return GuardedStruct<T>(size.prefilled, size.storage, dispatcher_.arena());
  }

 private:
  Expected<void> Register(const loader::PluginLibrary& library);
  void ValidatePlatform();
  void ValidateRequiredMembers();
  void CreateDeviceFns();
  void CreateStreamExecutor();
  void CreateTimerFns();

  Dispatcher dispatcher_;
  PlatformOptions options_;
  FindingList findings_;
  std::vector<StructReport> struct_reports_;
  VersionFields version_offered_;
  VersionFields version_after_init_;
  std::string name_;
  std::string type_;

  // The host's copies, passed to the plugin in every later call (TensorFlow
  // copies these structs by value after creation, as sectl does).
  SP_Platform platform_{};
  SP_PlatformFns platform_fns_{};
  SP_DeviceFns device_fns_{};
  SP_StreamExecutor stream_executor_as_filled_{};
  SP_TimerFns timer_fns_{};
  // The two teardown functions SE_InitPlugin left in its params (the
  // params' other members point at storage that is gone after Register).
  SE_PlatformRegistrationParams teardown_{};

  // The stream executor as read by the plugin's layout; what sectl calls.
  SP_StreamExecutor stream_executor_{};

  bool has_device_fns_ = false;
  bool has_stream_executor_ = false;
  bool has_timer_fns_ = false;
};

}  // namespace sectl::host
