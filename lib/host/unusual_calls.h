// The few plugin calls a check must make differently from the runtime's
// objects: into structs the check keeps, or with arguments the check chooses,
// so that it can see what the plugin did where Device or Platform would hide
// it. Each still goes through the Dispatcher and is journaled as usual.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/error.h"
#include "host/device.h"
#include "host/dispatcher.h"
#include "host/guarded_struct.h"
#include "host/journal.h"
#include "host/platform.h"
#include "loader/plugin_library.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

namespace sectl::host {

class UnusualCalls {
 public:
  // What create_device left in the host's structs for one ordinal, kept
  // even when the plugin reports failure.
  struct CreatedDevice {
    Expected<void> status;
    SP_Device device{};
  };

  // create_device as TensorFlow calls it, but without the runtime's Device
  // around the result: nothing is checked or destroyed on the caller's behalf.
  static CreatedDevice CreateDevice(Platform& platform, int ordinal);
  // destroy_device for a device made by CreateDevice above.
  static void DestroyDevice(const Platform& platform, SP_Device device);

  // allocate as TensorFlow calls it, returning the struct exactly as the
  // plugin filled it (DeviceMemory would free it as TensorFlow does; the
  // caller here chooses what deallocate receives).
  static Expected<SP_DeviceMemoryBase> Allocate(const Device& device, uint64_t size,
                                                int64_t memory_space = 0);
  // deallocate with exactly `memory`.
  static void Deallocate(const Device& device, SP_DeviceMemoryBase memory);
  // host_memory_allocate (kPinned) or unified_memory_allocate (kUnified),
  // the pointer exactly as returned: HostMemory would free even a null one,
  // a call a replay of 0 bytes must not add.
  static Expected<void*> AllocateHost(const Device& device, HostMemoryKind kind, uint64_t size);
};

// One SE_InitPlugin call made as TensorFlow makes it (fresh structs with
// struct_size pre-filled, a fresh TF_Status), offering `offered`, and
// nothing after it: a plugin that declined is asked for nothing more. For
// checks that negotiate versions Platform would never offer. A registration
// the plugin reported as successful is torn down as TensorFlow tears one
// down, with destroy_platform and destroy_platform_fns.
class InitOnlyRegistration {
 public:
  // With a `server`, the call is made there (`init_plugin` is the server's
  // address of SE_InitPlugin, loader::PluginLibrary::OpenInServer).
  InitOnlyRegistration(Journal& journal, loader::InitPluginFunction init_plugin,
                       const VersionFields& offered, remote::PluginServer* server = nullptr);
  ~InitOnlyRegistration();
  InitOnlyRegistration(const InitOnlyRegistration&) = delete;
  InitOnlyRegistration& operator=(const InitOnlyRegistration&) = delete;
  InitOnlyRegistration(InitOnlyRegistration&&) = delete;
  InitOnlyRegistration& operator=(InitOnlyRegistration&&) = delete;

  const VersionFields& offered() const { return offered_; }
  bool succeeded() const { return result_.has_value(); }
  // The plugin's error, "SE_InitPlugin failed: FAILED_PRECONDITION: ..."; "" on success.
  std::string error() const { return succeeded() ? "" : result_.error().message(); }

  // What TensorFlow validates once SE_InitPlugin returns OK, as far as the
  // plugin set it: "name", "type", "destroy_platform", "destroy_platform_fns".
  std::vector<std::string> RegisteredMembers() const;

 private:
  Dispatcher dispatcher_;
  VersionFields offered_;
  GuardedStruct<SE_PlatformRegistrationParams> params_;
  GuardedStruct<SP_Platform> platform_;
  GuardedStruct<SP_PlatformFns> platform_fns_;
  Expected<void> result_;
};

}  // namespace sectl::host
